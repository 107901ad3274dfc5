"""MCP Apps (SEP-1865): a tool may name a `ui://` resource the host renders for its results.

The tool's `_meta` (`ui.resourceUri`, or the older flat `ui/resourceUri` key) is part of the tool's
definition, so it is pinned and digested with it. The resource itself is pinned through its
`resources/list` entry; a tool pointing at a `ui://` resource the server does not list leaves that
resource unpinned, and the probe notes it (lockfile-spec/SPEC.md, "MCP Apps").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

UI_SCHEME = "ui://"
MAX_NOTED = 10  # a hostile server could name thousands; the note lists this many and counts the rest


def ui_resource_uri(tool: Mapping[str, Any]) -> str | None:
    """The `ui://` resource a tool definition points at, if any (nested spelling first, then the flat one)."""
    meta = tool.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, Mapping) else None
    if not isinstance(uri, str):
        uri = meta.get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith(UI_SCHEME) else None


def unlisted_ui_resources(definitions: Mapping[str, Sequence[Any]]) -> list[str]:
    """A note naming the `ui://` resources that tools point at but `resources/list` did not list."""
    listed = {r.get("uri") for r in definitions.get("resources", ()) if isinstance(r, Mapping)}
    missing: dict[str, str] = {}  # uri -> the first tool naming it
    for tool in definitions.get("tools", ()):
        uri = ui_resource_uri(tool) if isinstance(tool, Mapping) else None
        if uri is not None and uri not in listed:
            missing.setdefault(uri, str(tool.get("name")))
    if not missing:
        return []
    shown = [f"{uri} (tool {tool})" for uri, tool in list(missing.items())[:MAX_NOTED]]
    more = f" and {len(missing) - MAX_NOTED} more" if len(missing) > MAX_NOTED else ""
    return [
        "tools point at MCP Apps UI resources that resources/list does not list, so they are not pinned: "
        + ", ".join(shown)
        + more
    ]
