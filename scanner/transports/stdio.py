"""Start a stdio server, read its stdout as bounded lines, keep the tail of its stderr, end its process group.

Teardown is a SIGKILL of the server's process group: mcp-lock asks nothing more of a server once it
has listed. `scanner.transports.rpc` speaks JSON-RPC over these pipes. stderr goes through a pipe into
a `StderrTail` in memory: a server that writes gigabytes there costs reading time, never host disk or memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress

import anyio
from anyio.abc import ByteReceiveStream, Process

EXIT_WAIT = 2.0  # seconds for the event loop to see a killed server's exit
EXIT_POLL = 0.002  # seconds between two looks at whether it has
STDERR_TAIL_BYTES = 4096  # what is kept of a server's stderr, for its error messages
DRAIN_WAIT = 0.5  # seconds to read what a server printed before it exited, once it is killed
EXITED_WAIT = 0.5  # seconds for the exit status of a server whose stderr already closed


class StderrTail:
    """The last `limit` bytes a server wrote to stderr; everything before is read and dropped."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self.limit = limit
        self.total = 0  # bytes seen
        self._kept = bytearray()
        self.exit_code: int | None = None  # the server's own exit status, when it exited before it was ended

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._kept += chunk[-self.limit :]
        if len(self._kept) > 2 * self.limit:
            del self._kept[: -self.limit]

    def text(self) -> str:
        return bytes(self._kept[-self.limit :]).decode("utf-8", "replace").strip()

    async def drain(self, stream: ByteReceiveStream, ended: anyio.Event) -> None:
        """Read `stream` to its end (or until cancelled), keeping the tail; `ended` is set at the end."""
        try:
            async for chunk in stream:
                self.feed(chunk)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            ended.set()


@asynccontextmanager
async def scratch_folder() -> AsyncIterator[str]:
    """A private folder for one server process (an unsandboxed server's TMPDIR), removed in a worker thread:
    with the loop removing it (3 ms a boot at load 7), every other boot waited. Shielded, so that a cancelled
    boot still removes it; TemporaryDirectory's cleanup, so that what a server made read-only goes too."""
    folder = tempfile.TemporaryDirectory(prefix="mcp-lock-")
    try:
        yield folder.name
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(folder.cleanup)


async def spawn(argv: Sequence[str], *, env: dict[str, str], cwd: str) -> Process:
    """Start the server in its own session (so its process group can be killed), stderr to a pipe."""
    return await anyio.open_process(list(argv), env=env, cwd=cwd, stderr=subprocess.PIPE, start_new_session=True)


@asynccontextmanager
async def running(
    argv: Sequence[str], *, env: dict[str, str], cwd: str, errlog: StderrTail
) -> AsyncIterator[Process]:
    """`spawn`, keeping its stderr's tail in `errlog`; on exit (error and cancellation included) kill the
    server's process group."""
    process = await spawn(argv, env=env, cwd=cwd)
    ended = anyio.Event()
    async with anyio.create_task_group() as group:
        assert process.stderr is not None
        group.start_soon(errlog.drain, process.stderr, ended)
        try:
            yield process
        finally:
            with anyio.CancelScope(shield=True):
                if ended.is_set():  # its stderr closed: it is exiting on its own, say with what status
                    with anyio.move_on_after(EXITED_WAIT):
                        while process.returncode is None:
                            await anyio.sleep(0.01)
                errlog.exit_code = process.returncode
                await stop(process)
                with anyio.move_on_after(DRAIN_WAIT):
                    await ended.wait()  # a child that kept the pipe open must not hold the boot
                group.cancel_scope.cancel()
                with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await process.stderr.aclose()


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
    # Poll instead of wait(): asyncio's wait also waits for pipe EOF, which a surviving child can hold. Every boot
    # waits here with its slot held, so the poll is short: a killed server is gone within a few milliseconds.
    with anyio.move_on_after(EXIT_WAIT):
        while process.returncode is None:
            await anyio.sleep(EXIT_POLL)
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()
    # The asyncio transport otherwise stays open (and warns at exit) while a child holds a pipe.
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    with suppress(Exception):
        transport.close()  # type: ignore[union-attr]
