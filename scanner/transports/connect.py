"""Open a connection to a remote (HTTP or SSE) server with the SDK's own transports; stdio is in stdio.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.client._transport import TransportStreams

from scanner.sources.model import ResolvedLaunch


@asynccontextmanager
async def open_transport(
    launch: ResolvedLaunch,
    *,
    timeout: float,
    transport: str | None = None,
    witness: object | None = None,
) -> AsyncIterator[TransportStreams]:
    """Yield the read and write streams of `launch`, using `transport` when given (SSE fallback).

    `witness` (an `errors.HttpWitness`) becomes the HTTP client's transport, to see each status.
    """
    kind = transport or launch.transport
    if kind == "http":
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
        import httpx2
        from mcp.client.sse import sse_client

        assert launch.url is not None
        def client_factory(
            headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: Any = None
        ) -> httpx2.AsyncClient:
            # As the SDK's own factory, with the witness as transport (sse_client always passes a timeout).
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, transport=witness)

        async with sse_client(
            launch.url, headers=launch.headers, timeout=timeout, httpx_client_factory=client_factory
        ) as streams:
            yield streams
    else:  # pragma: no cover - stdio servers go through scanner.transports.stdio
        raise ValueError(f"unknown transport {kind!r}")
