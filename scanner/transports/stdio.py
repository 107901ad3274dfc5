"""Start a stdio server, read its stdout as bounded lines, and end its whole process group.

Teardown is a SIGKILL of the server's process group: mcp-lock asks nothing more of a server once it
has listed. `scanner.transports.rpc` speaks JSON-RPC over these pipes.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import IO

import anyio
from anyio.abc import ByteReceiveStream, Process

EXIT_WAIT = 2.0  # seconds for the event loop to see a killed server's exit


async def spawn(argv: Sequence[str], *, env: dict[str, str], cwd: str, errlog: IO[str]) -> Process:
    """Start the server in its own session (so its process group can be killed), stderr to `errlog`."""
    return await anyio.open_process(list(argv), env=env, cwd=cwd, stderr=errlog, start_new_session=True)


@asynccontextmanager
async def running(argv: Sequence[str], *, env: dict[str, str], cwd: str, errlog: IO[str]) -> AsyncIterator[Process]:
    """`spawn`, and on exit (error and cancellation included) kill the server's process group."""
    process = await spawn(argv, env=env, cwd=cwd, errlog=errlog)
    try:
        yield process
    finally:
        with anyio.CancelScope(shield=True):
            await stop(process)


MAX_LINE = 64 * 1024 * 1024  # bytes; a server that never ends its line must not exhaust memory
HEAD = 4096  # what is kept of an over-long line, so the request it answers can still be failed


class OverlongLine(bytes):
    """The first HEAD bytes of a line longer than MAX_LINE; the rest was dropped."""


async def lines(stdout: ByteReceiveStream) -> AsyncIterator[bytes]:
    """Complete lines as they arrive; a megabyte line is joined once, not re-scanned per chunk."""
    pending: list[bytes] = []
    size = 0
    head: bytes | None = None  # set while dropping the rest of an over-long line
    try:
        async for chunk in stdout:
            start = 0
            while (cut := chunk.find(b"\n", start)) >= 0:
                line = b"".join([*pending, chunk[start:cut]]) if head is None else head
                yield line if head is None else OverlongLine(line)
                pending.clear()
                size, head, start = 0, None, cut + 1
            if start < len(chunk) and head is None:
                pending.append(chunk[start:])
                size += len(chunk) - start
                if size > MAX_LINE:
                    head = b"".join(pending)[:HEAD]
                    pending.clear()
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        return


async def stop(process: Process) -> None:
    """Kill the server's process group and wait (bounded) for its exit; never raises."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    # Poll instead of wait(): asyncio's wait also waits for pipe EOF, which a surviving child can hold.
    with anyio.move_on_after(EXIT_WAIT):
        while process.returncode is None:
            await anyio.sleep(0.01)
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()
    # The asyncio transport otherwise stays open (and warns at exit) while a child holds a pipe.
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    with suppress(Exception):
        transport.close()  # type: ignore[union-attr]
