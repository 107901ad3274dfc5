"""opencode: `opencode.json(c)` with an `mcp` map (1.x) or `mcp.servers` (2.0); argv in `command`."""

from __future__ import annotations

from scanner.sources import interpolate as ip
from scanner.sources.entry import Dialect
from scanner.sources.mcpjson import Keys, MapFormat, reader

OPENCODE = Dialect(
    "opencode",
    "opencode",
    ip.OPENCODE,
    types=frozenset({"local", "remote"}),
    env_key="environment",
    argv_command=True,
)


def _looks_like_entry(value: object) -> bool:
    return isinstance(value, dict) and any(k in value for k in ("type", "command", "url"))


def _maps(config: dict[str, object]) -> list[Keys]:
    """2.0 nests the map under `mcp.servers`; a file may hold both layouts."""
    mcp = config.get("mcp")
    if not isinstance(mcp, dict):
        return [] if mcp is None else [("mcp",)]
    servers = mcp.get("servers")
    nested = isinstance(servers, dict) and not _looks_like_entry(servers)
    return [("mcp", "servers"), ("mcp",)] if nested else [("mcp",)]


def _is_entry(path: Keys, name: str, value: object) -> bool:
    # In the 1.x map, a 2.0 `servers` map and non-object settings are not servers.
    if path == ("mcp",) and not isinstance(value, dict):
        return False
    return not (path == ("mcp",) and name == "servers" and not _looks_like_entry(value))


FORMAT = MapFormat(OPENCODE, ("mcp",), optional=True, find=_maps, is_entry=_is_entry)
PATHS = ("opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc")
READERS = dict.fromkeys(PATHS, reader(FORMAT))
