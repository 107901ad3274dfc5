"""The MCP protocol constants the probe needs, without importing the SDK (its import costs about 0.4 s).

A test in tests/transports/test_rpc.py holds each value to the SDK's own, so an SDK upgrade that adds a
protocol version fails a test instead of drifting silently.
"""

from __future__ import annotations

from typing import Any

from scanner.transports.clients import DEFAULT_CLIENT, client_info

HANDSHAKE_VERSION = "2025-11-25"  # newest version reachable through `initialize`
MODERN_VERSIONS = ("2026-07-28",)  # per-request `_meta` envelope versions, oldest first
UNSUPPORTED_PROTOCOL_VERSION = -32022
PARSE_ERROR = -32700
METHOD_NOT_FOUND = -32601

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

CLIENT_INFO = client_info(DEFAULT_CLIENT)  # a client's, never mcp-lock's own name (see clients.py)
CLIENT_CAPABILITIES: dict[str, Any] = {}  # when no declaring client's are known (see clients.client_hello)


def modern_envelope(
    version: str, client: dict[str, str] = CLIENT_INFO, capabilities: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The `_meta` every request carries once a modern version is agreed."""
    return {
        PROTOCOL_VERSION_META_KEY: version,
        CLIENT_INFO_META_KEY: dict(client),
        CLIENT_CAPABILITIES_META_KEY: dict(CLIENT_CAPABILITIES if capabilities is None else capabilities),
    }


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class ConnectionClosed(Exception):
    """The server's stdout ended (or its stdin broke) before it answered."""


class ProbeError(Exception):
    """The server answered, but not in a way that can be pinned."""
