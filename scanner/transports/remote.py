"""The HTTP and SSE transports, through the SDK's client: the one module that imports the SDK.

It is imported only when an HTTP or SSE server is booted (see `scanner.transports.channel`). Requests
go through the session's JSON-RPC dispatcher with the session's stamp (the negotiated era's headers
and `_meta` envelope), skipping the typed parse that would rewrite the result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from scanner.model.transports import HTTP, SSE
from scanner.sources.declarations import ResolvedLaunch
from scanner.transports.channel import BootFailure, ChannelRequest, first_error
from scanner.transports.http_errors import HttpWitness, describe_http
from scanner.transports.listing import ListingBudget
from scanner.transports.protocol import RpcError


@asynccontextmanager
async def open_channel(request: ChannelRequest) -> AsyncIterator[SdkChannel]:
    """The SDK's session over its HTTP or SSE transport, failing at once when the connection fails."""
    witness = HttpWitness()
    try:
        async with _watched(witness), AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(
                _streams(request.launch, request.transport, request.timeout, witness)
            )
            session = await stack.enter_async_context(
                ClientSession(
                    read,
                    write,
                    message_handler=_garbage_handler(request),
                    client_info=types.Implementation(**request.client),
                )
            )
            yield SdkChannel(session, witness)
    except Exception as error:
        leaf = first_error(error)
        converted = rpc_error(leaf)  # the SDK's transports raise its own MCPError outside any request
        url = request.launch.url
        message = describe_http(converted, url, witness, request.stage, request.timeout) if url else None
        if message is not None:
            raise BootFailure(message) from error
        if converted is not leaf:
            raise converted from error
        raise


@asynccontextmanager
async def _watched(witness: HttpWitness) -> AsyncIterator[None]:
    """Fail the block at once when the witness sees the connection fail (the SDK would wait for the timeout)."""

    async def watch() -> None:
        await witness.failed.wait()
        assert witness.error is not None
        raise witness.error

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


def _garbage_handler(request: ChannelRequest) -> Callable[[object], Awaitable[None]]:
    async def on_message(message: object) -> None:
        if isinstance(message, Exception):
            request.on_garbage(str(message).splitlines()[0][:200] if str(message) else type(message).__name__)

    return on_message


@asynccontextmanager
async def _streams(
    launch: ResolvedLaunch, transport: str, timeout: float, witness: HttpWitness
) -> AsyncIterator[TransportStreams]:
    """The read and write streams of `launch` over `transport`; `witness` sees each HTTP status."""
    assert launch.url is not None
    if transport == HTTP:
        client = httpx2.AsyncClient(headers=launch.headers, timeout=httpx2.Timeout(timeout), transport=witness)
        async with client, streamable_http_client(launch.url, http_client=client) as streams:
            yield streams
    elif transport == SSE:

        def client_factory(
            headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: Any = None
        ) -> httpx2.AsyncClient:
            # As the SDK's own factory, with the witness as transport (sse_client always passes a timeout).
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, transport=witness)

        async with sse_client(
            launch.url, headers=launch.headers, timeout=timeout, httpx_client_factory=client_factory
        ) as streams:
            yield streams
    else:
        raise BootFailure(f"{transport} is not spoken by the SDK's client")


class SdkChannel:
    """The probe's channel over the SDK's `ClientSession`."""

    def __init__(self, session: ClientSession, witness: HttpWitness | None = None) -> None:
        self._session = session
        self._witness = witness

    async def request(self, method: str, params: dict[str, Any], *, negotiation: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"method": method, "params": dict(params)}
        opts: dict[str, Any] = {"cancel_on_abandon": not negotiation}
        self._session._stamp(data, opts)  # type: ignore[arg-type]
        with _as_rpc_error():
            return await self._session._dispatcher.send_raw_request(  # type: ignore[arg-type]
                method, data["params"] or None, opts  # type: ignore[arg-type]
            )

    async def notify(self, method: str) -> None:
        if method != "notifications/initialized":
            raise ValueError(f"no SDK notification for {method}")
        await self._session.send_notification(types.InitializedNotification())

    async def discover(self, version: str) -> dict[str, Any]:
        with _as_rpc_error():
            return await self._session.send_discover(version)

    def adopt_legacy(self, result: dict[str, Any]) -> None:
        """Install the negotiated version even when the SDK's model dislikes the rest of the answer."""
        try:
            typed = types.InitializeResult.model_validate(result, by_name=False)
        except ValidationError:
            typed = types.InitializeResult(
                protocol_version=result["protocolVersion"],
                capabilities=types.ServerCapabilities(),
                server_info=types.Implementation(name="", version=""),
            )
        self._session.adopt(typed)

    def adopt_modern(self, version: str, result: dict[str, Any]) -> None:
        self._session.adopt(types.DiscoverResult.model_validate(result))

    def present(self, client: dict[str, str]) -> None:
        """Name `client` in every request from now on: the session's clientInfo, and its modern stamp rebuilt."""
        self._session._client_info = types.Implementation(**client)  # type: ignore[attr-defined]
        discovered = self._session._discover_result  # type: ignore[attr-defined]
        if discovered is not None:
            self._session.adopt(discovered)

    def watch_listing(self, budget: ListingBudget | None) -> None:
        """Count every byte of the responses read during the listing against `budget` (None: stop), before
        the SDK parses them; each response is bounded by MAX_RESPONSE_BYTES too."""
        if self._witness is not None:
            self._witness.listing = budget


@contextmanager
def _as_rpc_error() -> Iterator[None]:
    try:
        yield
    except MCPError as error:
        raise rpc_error(error) from error


def rpc_error(error: BaseException) -> BaseException:
    """The SDK's MCPError as the probe's RpcError (same code, message and data); any other error as it is."""
    if isinstance(error, MCPError):
        return RpcError(error.code, error.error.message, error.error.data)
    return error
