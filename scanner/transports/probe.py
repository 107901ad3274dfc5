"""Talk to a connected server: handshake, then list every definition, keeping the raw JSON.

Typed models would drop unknown fields, add defaults and reject some real definitions (an
`inputSchema` without `type`), so the probe sends raw requests and pins the result dictionaries
exactly as they arrived. It needs no SDK: the channel carries the requests.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from scanner.model.kinds import KIND_BY_KEY, KINDS
from scanner.model.ui_resources import unlisted_ui_resources
from scanner.snapshot import Snapshot
from scanner.transports.listing import DEFAULT_CAPS, ListingBudget, ListingCaps
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
# `prompts/get` is called for prompts that need no argument: at most this many, this many bytes of results.
MAX_PROMPT_BODIES = 500
MAX_PROMPT_BODY_BYTES = 16 * 1024 * 1024
COMPLETE = "complete"  # the `resultType` of a result that holds the whole answer (absent before 2026-07-28)


class Channel(Protocol):
    """A connected server: `rpc.StdioChannel` for stdio, `remote.SdkChannel` for HTTP and SSE."""

    async def request(self, method: str, params: dict[str, Any], *, negotiation: bool = False) -> dict[str, Any]: ...

    async def notify(self, method: str) -> None: ...

    async def discover(self, version: str) -> dict[str, Any]: ...

    def adopt_legacy(self, result: dict[str, Any]) -> None: ...

    def adopt_modern(self, version: str, result: dict[str, Any]) -> None: ...

    def watch_listing(self, budget: ListingBudget | None) -> None: ...

    def present(self, client: dict[str, str]) -> None: ...


async def probe(
    channel: Channel,
    stage: Stage,
    client: dict[str, str] = CLIENT_INFO,
    caps: ListingCaps = DEFAULT_CAPS,
    hello: tuple[str, dict[str, Any]] = (HANDSHAKE_VERSION, {}),
    *,
    bodies: bool = True,
) -> Snapshot:
    """Handshake with the server behind `channel`, as `client` (its clientInfo) with `hello` (the protocol
    version and capabilities that client sends), and list everything it offers within `caps`; with `bodies`,
    also `prompts/get` each prompt that needs no argument (the second listing, scanner.run.faces, does not)."""
    stage.current = "the initialize handshake"
    # Who every request says it is from now on: in a 2026-07-28 envelope each request names its client, so a second
    # listing over the same connection (scanner.run.faces) must name its own on every request, not the first's.
    channel.present(client)
    snapshot = await _handshake(channel, client, hello)
    budget = ListingBudget(caps)
    for kind in KINDS:
        if kind.capability not in snapshot.capabilities:
            continue
        try:
            snapshot.definitions[kind.key] = await _list_all(channel, kind.key, stage, budget)
        except RpcError as error:
            if error.code != METHOD_NOT_FOUND or kind.key not in OPTIONAL_LISTS:
                raise
            snapshot.definitions[kind.key] = []
            snapshot.notes.append(
                f"advertises `{kind.capability}` but answered {kind.list_method} with -32601 (Method not found); "
                f"pinned as no {kind.noun}s"
            )
    snapshot.notes += unlisted_ui_resources(snapshot.definitions)
    if bodies:
        snapshot.prompt_bodies = await _prompt_bodies(channel, snapshot, stage)
    return snapshot


async def _prompt_bodies(channel: Channel, snapshot: Snapshot, stage: Stage) -> dict[str, dict[str, Any]]:
    """`prompts/get` for every listed prompt that needs no argument: the messages the model is handed.

    Bounded like the listings: at most `MAX_PROMPT_BODIES` calls and `MAX_PROMPT_BODY_BYTES` of results,
    past which nothing is pinned rather than a part. A server without `prompts/get` (-32601) pins no
    bodies; a prompt whose get fails otherwise has no body pinned and a note says so.
    """
    names = _argument_free(snapshot.definitions.get("prompts", []))
    if len(names) > MAX_PROMPT_BODIES:
        raise ProbeError(
            f"{len(names)} prompts need no argument, over the {MAX_PROMPT_BODIES} whose prompts/get is pinned; "
            "refusing to pin part of them"
        )
    bodies: dict[str, dict[str, Any]] = {}
    total = 0
    for name in names:
        stage.current = f"prompts/get {name!r}"
        try:
            result = await channel.request("prompts/get", {"name": name})
        except RpcError as error:
            if error.code == METHOD_NOT_FOUND:
                return {}
            failed = f"{error.code} {error.message[:200]!r}"
            snapshot.notes.append(f"prompts/get for prompt {name!r} failed ({failed}); its body is not pinned")
            continue
        total += len(json.dumps(result, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
        if total > MAX_PROMPT_BODY_BYTES:
            raise ProbeError(f"prompts/get results exceed {MAX_PROMPT_BODY_BYTES} bytes; refusing to pin part of them")
        bodies[name] = result
    return bodies


def _argument_free(prompts: list[dict[str, Any]]) -> list[str]:
    """Names of listed prompts with no required argument (first listing of a name only)."""
    names: list[str] = []
    for prompt in prompts:
        name, arguments = prompt.get("name"), prompt.get("arguments")
        if not isinstance(name, str) or name in names:
            continue
        if arguments is None or (
            isinstance(arguments, list)
            and all(isinstance(a, dict) and a.get("required") is not True for a in arguments)
        ):
            names.append(name)
    return names


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
        server_info=_object(meta.get(SERVER_INFO_META_KEY) or raw.get("serverInfo")),  # the stamp, or the field
        capabilities=_object(raw.get("capabilities")),
        instructions=raw.get("instructions") if isinstance(raw.get("instructions"), str) else None,
    )


async def _list_all(channel: Channel, kind: str, stage: Stage, budget: ListingBudget) -> list[dict[str, Any]]:
    method = KIND_BY_KEY[kind].list_method
    budget.start(method)
    channel.watch_listing(budget)
    try:
        return await _pages(channel, kind, method, stage, budget)
    finally:
        channel.watch_listing(None)


async def _pages(channel: Channel, kind: str, method: str, stage: Stage, budget: ListingBudget) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    seen_cursors: set[str] = set()
    cursor: str | None = None
    for page in range(1, MAX_PAGES + 1):
        stage.current = f"{method} (page {page})"
        result = await channel.request(method, {"cursor": cursor} if cursor is not None else {})
        entries = _page_items(result, kind, method, page)
        budget.take_page(len(entries))
        items.extend(entries)
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
    # 2026-07-28 results say whether they are complete (`resultType`); any other kind is not a listing to pin.
    result_type = result.get("resultType", COMPLETE)
    if result_type != COMPLETE:
        raise ProbeError(f"{method} page {page} is not a complete result (resultType {str(result_type)[:40]!r}); "
                         "refusing to pin part of a listing")
    entries = result.get(kind)
    if not isinstance(entries, list):
        raise ProbeError(f"{method} page {page} has no `{kind}` list")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ProbeError(f"{method} page {page}: entry {index} is not a JSON object")
    return entries


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
