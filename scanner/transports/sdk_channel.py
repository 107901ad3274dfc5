"""The probe's channel over the SDK's `ClientSession`, for HTTP and SSE servers (stdio uses rpc.py).

Requests go through the session's JSON-RPC dispatcher with the session's stamp (the negotiated era's
headers and `_meta` envelope), skipping the typed parse that would rewrite the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from scanner.transports.protocol import RpcError


class SdkChannel:
    def __init__(self, session: ClientSession) -> None:
        self._session = session

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
