"""Open a connection to one server with the SDK's own transports."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO

from mcp.client._transport import TransportStreams

from scanner.sources.model import ResolvedLaunch


@asynccontextmanager
async def open_transport(
    launch: ResolvedLaunch,
    *,
    env: dict[str, str],
    cwd: str,
    errlog: IO[str],
    timeout: float,
    transport: str | None = None,
    witness: object | None = None,
) -> AsyncIterator[TransportStreams]:
    """Yield the read and write streams of `launch`, using `transport` when given (SSE fallback).

    `witness` (an `errors.HttpWitness`) becomes the HTTP client's transport, to see each status.
    """
    kind = transport or launch.transport
    if kind == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert launch.command is not None
        params = StdioServerParameters(
            command=launch.command,
            args=list(launch.args),
            env=env,
            cwd=cwd,
            # Garbage bytes on stdout must not kill the reader; a broken line then fails to parse.
            encoding_error_handler="replace",
        )
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
    elif kind == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        assert launch.url is not None
        client = httpx2.AsyncClient(
            headers=launch.headers,
            timeout=httpx2.Timeout(timeout),
            transport=witness,  # type: ignore[arg-type]
        )
        async with client, streamable_http_client(launch.url, http_client=client) as streams:
            yield streams
    elif kind == "sse":
        from mcp.client.sse import sse_client

        assert launch.url is not None
        async with sse_client(launch.url, headers=launch.headers, timeout=timeout) as streams:
            yield streams
    else:  # pragma: no cover - discovery only produces the three transports above
        raise ValueError(f"unknown transport {kind!r}")
