"""A stdio transport over a process mcp-lock started itself, so servers can start before the SDK is imported.

`import mcp` costs about half a second; spawning first lets every server boot during that time.
`spawn` needs only anyio; `process_streams` then turns the running process's pipes into the two
streams `mcp.ClientSession` reads and writes, as the SDK's own `stdio_client` does. Teardown is a
SIGKILL of the server's process group: mcp-lock asks nothing more of a server once it has listed.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import IO, Any

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


@asynccontextmanager
async def process_streams(process: Process) -> AsyncIterator[Any]:
    """Yield (read, write) streams for `mcp.ClientSession` over `process`'s stdout and stdin."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    def parse(line: bytes) -> SessionMessage | Exception:
        """A message, or the parse error as a value (the session reports it; the probe counts it)."""
        # Invalid UTF-8 must not kill the reader; the replaced text then parses or fails like any line.
        text = line.decode("utf-8", "replace")
        if isinstance(line, OverlongLine):
            return _refusal(types, text, ValueError(f"a line longer than {MAX_LINE} bytes")) or ValueError(
                f"dropped a line longer than {MAX_LINE} bytes"
            )
        try:
            # Python's parser, not pydantic's: pydantic refuses JSON nested past 200 levels, and a
            # schema that deep is a definition to pin (or flag), not a reason to drop the response.
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(json.loads(text), by_name=False))
        except (ValueError, RecursionError) as error:
            problem = error if isinstance(error, ValueError) else ValueError("JSON nested too deeply to parse")
            return _refusal(types, text, problem) or problem

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        async with read_writer:
            async for line in _lines(process.stdout):
                try:
                    await read_writer.send(parse(line))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the server stopped reading: end the session, do not hang it

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        group.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            group.cancel_scope.cancel()
            for stream in (read_stream, write_stream, read_writer, write_reader):
                stream.close()


# A response the server meant for us ('{"jsonrpc": …, "id": 3, …') whose id we can still read.
_RESPONSE_ID = re.compile(rb'^\s*\{.*?"id"\s*:\s*(\d{1,18})\b', re.S)


def _refusal(types: Any, text: str, problem: ValueError) -> Any:
    """An error response to the request the unparsable line answers, so that request fails now, clearly,
    instead of waiting for the timeout; None when the line does not look like a response."""
    if '"jsonrpc"' not in text[:4096]:
        return None
    match = _RESPONSE_ID.match(text[:4096].encode("utf-8", "replace"))
    if not match:
        return None
    from mcp.shared.message import SessionMessage

    reason = str(problem).splitlines()[0][:200]
    error = types.ErrorData(code=types.PARSE_ERROR, message=f"mcp-lock could not parse the response: {reason}")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=int(match[1]), error=error))


MAX_LINE = 64 * 1024 * 1024  # bytes; a server that never ends its line must not exhaust memory
HEAD = 4096  # what is kept of an over-long line, so the request it answers can still be failed


class OverlongLine(bytes):
    """The first HEAD bytes of a line longer than MAX_LINE; the rest was dropped."""


async def _lines(stdout: ByteReceiveStream) -> AsyncIterator[bytes]:
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
