"""Talk to a connected server: handshake, then list every definition, keeping the raw JSON.

The SDK's typed models drop unknown fields, add defaults and reject some real definitions
(an `inputSchema` without `type`), so the probe drives the SDK's JSON-RPC dispatcher directly
and pins the result dictionaries exactly as they arrived.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from scanner import __version__
from scanner.snapshot import KINDS, Snapshot
from scanner.transports.stage import Stage

# A server that pages past this is not listing a finite surface; refuse to pin half of it.
MAX_PAGES = 500
CLIENT_INFO = {"name": "mcp-lock", "version": __version__}
# Capability advertised by the server for each kind of definition.
CAPABILITY_OF = {"tools": "tools", "prompts": "prompts", "resources": "resources", "resourceTemplates": "resources"}
LIST_METHOD = {
    "tools": "tools/list",
    "prompts": "prompts/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
}
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"


class ProbeError(Exception):
    """The server answered, but not in a way that can be pinned."""


async def probe(session: ClientSession, stage: Stage) -> Snapshot:
    """Handshake with the server behind `session` and list everything it offers."""
    stage.current = "the initialize handshake"
    snapshot = await _handshake(session)
    for kind, _ in KINDS:
        if CAPABILITY_OF[kind] not in snapshot.capabilities:
            continue
        snapshot.definitions[kind] = await _list_all(session, kind, stage)
    return snapshot


async def _handshake(session: ClientSession) -> Snapshot:
    params = {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
    try:
        raw = await _send(session, "initialize", params, cancel_on_abandon=False)
    except MCPError as error:
        modern = _modern_version_offered(error)
        if modern is None:
            raise
        return await _discover(session, modern)
    _adopt_initialize(session, raw)
    await session.send_notification(types.InitializedNotification())
    return Snapshot(
        protocol_version=_text(raw.get("protocolVersion")),
        server_info=_object(raw.get("serverInfo")),
        capabilities=_object(raw.get("capabilities")),
        instructions=raw.get("instructions") if isinstance(raw.get("instructions"), str) else None,
    )


def _modern_version_offered(error: MCPError) -> str | None:
    """A modern-only server answers `initialize` with -32022 naming the versions it speaks."""
    if error.code != UNSUPPORTED_PROTOCOL_VERSION:
        return None
    data = error.error.data if isinstance(error.error.data, dict) else {}
    supported = data.get("supported") or []
    mutual = [v for v in MODERN_PROTOCOL_VERSIONS if v in supported]
    return mutual[-1] if mutual else None


async def _discover(session: ClientSession, version: str) -> Snapshot:
    raw = await session.send_discover(version)
    session.adopt(types.DiscoverResult.model_validate(raw))
    meta = _object(raw.get("_meta"))
    return Snapshot(
        protocol_version=version,
        server_info=_object(meta.get(SERVER_INFO_META_KEY)),
        capabilities=_object(raw.get("capabilities")),
        instructions=raw.get("instructions") if isinstance(raw.get("instructions"), str) else None,
    )


def _adopt_initialize(session: ClientSession, raw: dict[str, Any]) -> None:
    """Install the negotiated version even when the SDK's model dislikes the rest of the answer."""
    try:
        result = types.InitializeResult.model_validate(raw, by_name=False)
    except ValidationError:
        version = raw.get("protocolVersion")
        if not isinstance(version, str):
            raise ProbeError("the initialize result has no protocolVersion") from None
        result = types.InitializeResult(
            protocol_version=version,
            capabilities=types.ServerCapabilities(),
            server_info=types.Implementation(name="", version=""),
        )
    session.adopt(result)


async def _list_all(session: ClientSession, kind: str, stage: Stage) -> list[dict[str, Any]]:
    method = LIST_METHOD[kind]
    items: list[dict[str, Any]] = []
    seen_cursors: set[str] = set()
    cursor: str | None = None
    for page in range(1, MAX_PAGES + 1):
        stage.current = f"{method} (page {page})"
        result = await _send(session, method, {"cursor": cursor} if cursor is not None else {})
        items.extend(_page_items(result, kind, method, page))
        cursor = result.get("nextCursor")
        if cursor is None or cursor == "":
            return items
        if not isinstance(cursor, str):
            raise ProbeError(f"{method} page {page} returned a nextCursor that is not a string")
        if cursor in seen_cursors:
            raise ProbeError(f"{method} pages in a loop: page {page} repeats an earlier nextCursor")
        seen_cursors.add(cursor)
    raise ProbeError(f"{method} did not end after {MAX_PAGES} pages; refusing to pin a partial list")


def _page_items(result: dict[str, Any], kind: str, method: str, page: int) -> list[dict[str, Any]]:
    entries = result.get(kind)
    if not isinstance(entries, list):
        raise ProbeError(f"{method} page {page} has no `{kind}` list")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ProbeError(f"{method} page {page}: entry {index} is not a JSON object")
    return entries


async def _send(
    session: ClientSession, method: str, params: dict[str, Any], *, cancel_on_abandon: bool = True
) -> dict[str, Any]:
    # The session's stamp adds what the negotiated protocol era needs (headers, `_meta` envelope);
    # sending through the dispatcher skips the typed parse that would rewrite the result.
    data: dict[str, Any] = {"method": method, "params": dict(params)}
    opts: dict[str, Any] = {"cancel_on_abandon": cancel_on_abandon}
    session._stamp(data, opts)  # type: ignore[arg-type]
    return await session._dispatcher.send_raw_request(method, data["params"] or None, opts)  # type: ignore[arg-type]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
