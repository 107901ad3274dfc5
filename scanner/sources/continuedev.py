"""Continue: `.continue/mcpServers/*.yaml` blocks holding an `mcpServers:` list. JSON files in the
Claude/Cursor format dropped into the same folder are read as `mcpServers` maps."""

from __future__ import annotations

from scanner.sources import interpolate as ip
from scanner.sources.common import Scan, SourceError, broken, load_yaml, problem
from scanner.sources.declarations import ConfigFile, Declaration
from scanner.sources.entry import Dialect, Where, declare
from scanner.sources.mcpjson import MapFormat
from scanner.sources.mcpjson import read as read_json

CONTINUE = Dialect("continue", "Continue", ip.CONTINUE)
FOLDER = ".continue/mcpServers"
SUFFIXES = (".yaml", ".yml", ".json")
JSON_FORMAT = MapFormat(CONTINUE)


def read(scan: Scan, rel: str) -> ConfigFile | None:
    if rel.endswith(".json"):
        return read_json(scan, rel, JSON_FORMAT)
    try:
        doc = load_yaml(scan.repo, rel)
    except SourceError as err:
        return broken(rel, CONTINUE.client, err)
    cf = ConfigFile(rel, CONTINUE.client)
    items = doc.value.get("mcpServers") if isinstance(doc.value, dict) else None
    if items is None:
        cf.problems.append(problem("warning", "no-servers", f"{rel} has no `mcpServers` list", rel))
    elif not isinstance(items, list):
        message = "`mcpServers` must be a list of servers"
        cf.problems.append(problem("error", "invalid-field", message, rel, doc.line("mcpServers")))
    else:
        for i, item in enumerate(items):
            cf.declarations.append(_item(scan, rel, item, Where.of(doc, rel, ("mcpServers", i), item), i))
    return cf


def _item(scan: Scan, rel: str, item: object, where: Where, index: int) -> Declaration:
    name = item.get("name") if isinstance(item, dict) else None
    if isinstance(item, dict) and name is None and "uses" in item:
        decl = Declaration(str(item["uses"]), CONTINUE.client, where.at(), None, None)
        message = f"`uses: {item['uses']}` refers to a Continue Hub block, which mcp-lock cannot read"
        decl.problems.append(problem("warning", "not-launchable", message, rel, where.line))
        return decl
    label = name if isinstance(name, str) else f"#{index + 1}"
    decl = declare(label, item, where, CONTINUE, scan.context(label, rel))
    if not isinstance(name, str):
        message = f"item {index + 1} of `mcpServers` needs a string `name`"
        decl.problems.append(problem("error", "invalid-entry", message, rel, where.line))
    return decl
