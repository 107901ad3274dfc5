"""Talk to a connected server: handshake, then list every definition, keeping the raw JSON.

Typed models would drop unknown fields, add defaults and reject some real definitions (an
`inputSchema` without `type`), so the probe sends raw requests and pins the result dictionaries
exactly as they arrived. It needs no SDK: the channel carries the requests.
"""

from __future__ import annotations

from typing import Any, Protocol

from scanner.model.kinds import KIND_BY_KEY, KINDS
from scanner.model.ui_resources import unlisted_ui_resources
from scanner.snapshot import Snapshot
from scanner.transports.protocol import (
    CLIENT_INFO,
    HANDSHAKE_VERSION,
    METHOD_NOT_FOUND,
    MODERN_VERSIONS,
    SERVER_INFO_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProbeError,
    RpcError,
)
from scanner.transports.stage import Stage

# A server that pages past this is not listing a finite surface; refuse to pin half of it.
MAX_PAGES = 500
# Kinds pinned as empty when a server advertises them but answers "Method not found" (many real servers
# advertise `resources` without implementing templates). Tools are not among them: they are the surface the
# lock exists to review, and a server that claims tools but will not list them cannot be vouched for.
OPTIONAL_LISTS = frozenset({"prompts", "resources", "resourceTemplates"})


class Channel(Protocol):
    """A connected server: `rpc.StdioChannel` for stdio, `remote.SdkChannel` for HTTP and SSE."""

    async def request(self, method: str, params: dict[str, Any], *, negotiation: bool = False) -> dict[str, Any]: ...

    async def notify(self, method: str) -> None: ...

    async def discover(self, version: str) -> dict[str, Any]: ...

    def adopt_legacy(self, result: dict[str, Any]) -> None: ...

    def adopt_modern(self, version: str, result: dict[str, Any]) -> None: ...


async def probe(
    channel: Channel,
    stage: Stage,
    client: dict[str, str] = CLIENT_INFO,
    hello: tuple[str, dict[str, Any]] = (HANDSHAKE_VERSION, {}),
) -> Snapshot:
    """Handshake with the server behind `channel`, as `client` (its clientInfo) with `hello` (the protocol
    version and capabilities that client sends), and list everything it offers."""
    stage.current = "the initialize handshake"
    snapshot = await _handshake(channel, client, hello)
    for kind in KINDS:
        if kind.capability not in snapshot.capabilities:
            continue
        try:
            snapshot.definitions[kind.key] = await _list_all(channel, kind.key, stage)
        except RpcError as error:
            if error.code != METHOD_NOT_FOUND or kind.key not in OPTIONAL_LISTS:
                raise
            snapshot.definitions[kind.key] = []
            snapshot.notes.append(
                f"advertises `{kind.capability}` but answered {kind.list_method} with -32601 (Method not found); "
                f"pinned as no {kind.noun}s"
            )
    snapshot.notes += unlisted_ui_resources(snapshot.definitions)
    return snapshot


async def _handshake(channel: Channel, client: dict[str, str], hello: tuple[str, dict[str, Any]]) -> Snapshot:
    version, capabilities = hello
    params = {"protocolVersion": version, "capabilities": dict(capabilities), "clientInfo": dict(client)}
    try:
        raw = await channel.request("initialize", params, negotiation=True)
    except RpcError as error:
        modern = _modern_version_offered(error)
        if modern is None:
            raise
        return await _discover(channel, modern)
    if not isinstance(raw.get("protocolVersion"), str):
        raise ProbeError("the initialize result has no protocolVersion")
    channel.adopt_legacy(raw)
    await channel.notify("notifications/initialized")
    return Snapshot(
        protocol_version=raw["protocolVersion"],
        server_info=_object(raw.get("serverInfo")),
        capabilities=_object(raw.get("capabilities")),
        instructions=raw.get("instructions") if isinstance(raw.get("instructions"), str) else None,
    )


def _modern_version_offered(error: RpcError) -> str | None:
    """A modern-only server answers `initialize` with -32022 naming the versions it speaks."""
    if error.code != UNSUPPORTED_PROTOCOL_VERSION:
        return None
    data = error.data if isinstance(error.data, dict) else {}
    return _newest_mutual(data.get("supported"))


def _newest_mutual(supported: Any) -> str | None:
    mutual = [v for v in MODERN_VERSIONS if isinstance(supported, list) and v in supported]
    return mutual[-1] if mutual else None


async def _discover(channel: Channel, offered: str) -> Snapshot:
    raw = await channel.discover(offered)
    version = _newest_mutual(raw.get("supportedVersions"))
    if version is None:
        raise ProbeError(f"server/discover named no protocol version mcp-lock speaks ({', '.join(MODERN_VERSIONS)})")
    channel.adopt_modern(version, raw)
    meta = _object(raw.get("_meta"))
    return Snapshot(
        protocol_version=version,
        server_info=_object(meta.get(SERVER_INFO_META_KEY)),
        capabilities=_object(raw.get("capabilities")),
        instructions=raw.get("instructions") if isinstance(raw.get("instructions"), str) else None,
    )


async def _list_all(channel: Channel, kind: str, stage: Stage) -> list[dict[str, Any]]:
    method = KIND_BY_KEY[kind].list_method
    items: list[dict[str, Any]] = []
    seen_cursors: set[str] = set()
    cursor: str | None = None
    for page in range(1, MAX_PAGES + 1):
        stage.current = f"{method} (page {page})"
        result = await channel.request(method, {"cursor": cursor} if cursor is not None else {})
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


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
