"""JSON files that map server names to entries: `mcpServers` (Claude Code and the many clients that
copied its schema), VS Code `servers`, Zed `context_servers`. Per-client differences are data."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from scanner.model.transports import HTTP
from scanner.sources import interpolate as ip
from scanner.sources import jsonc
from scanner.sources.common import Scan, SourceError, broken, load_json, problem
from scanner.sources.declarations import ConfigFile, Declaration, Problem
from scanner.sources.entry import Dialect, Entry, declare_in

Keys = tuple[str, ...]

STRICT: frozenset[jsonc.NoteKind] = frozenset({"comment", "trailing-comma", "bom"})


@dataclass(frozen=True)
class MapFormat:
    """A JSON file holding one or more name → entry maps."""

    dialect: Dialect
    top: Keys = ("mcpServers",)
    optional: bool = False  # a settings file: not an MCP config unless `top` is present
    inputs: Keys | None = None  # VS Code `inputs` list (ids and defaults)
    note: tuple[str, str] | None = None  # a warning (code, message) about the file itself
    # Where the server maps are, for layouts a single `top` cannot describe (opencode 1.x + 2.0).
    find: Callable[[dict[str, object]], list[Keys]] | None = None
    # Which members of a map are server entries (opencode mixes settings into its map).
    is_entry: Callable[[Keys, str, object], bool] = field(default=lambda *_: True)


def _zed_entry(entry: Entry) -> Entry | None:
    command = entry.get("command")
    if isinstance(command, dict):  # the older shape: "command": {"path", "args", "env"}
        entry = {
            **entry,
            "command": command.get("path"),
            "args": command.get("args"),
            "env": command.get("env"),
        }
    if "command" not in entry and "url" not in entry and ("settings" in entry or entry.get("source") == "extension"):
        return None
    return entry


CLAUDE = Dialect(
    "claude-code",
    "Claude Code",
    ip.CLAUDE,
    url_only="error",
    types=frozenset({"stdio", "http", "streamable-http", "sse"}),
    strict=STRICT,
    reserved=frozenset({"workspace"}),
)
VSCODE = Dialect(
    "vscode",
    "VS Code",
    ip.VSCODE,
    url_only="http+sse",
    http_fallback=True,
    types=frozenset({"stdio", "http", "sse"}),
)
CURSOR = Dialect("cursor", "Cursor", ip.VSCODE, strict=STRICT)
WINDSURF = Dialect("windsurf", "Windsurf", ip.VSCODE, url_keys={"serverUrl": None, "url": None}, strict=STRICT)
ROO = Dialect("roo", "Roo Code", strict=STRICT)
KILO = Dialect("kilo", "Kilo Code", strict=STRICT)
KIRO = Dialect("kiro", "Kiro", ip.KIRO, strict=STRICT)
AMAZON_Q = Dialect("amazon-q", "Amazon Q", strict=STRICT)
JUNIE = Dialect("junie", "Junie", strict=STRICT)
COPILOT = Dialect("copilot-cli", "Copilot CLI", types=frozenset({"local", "stdio", "http", "sse"}), strict=STRICT)
GEMINI = Dialect(
    "gemini",
    "Gemini CLI",
    ip.GEMINI,
    url_only="http+sse",
    url_keys={"httpUrl": HTTP, "url": None},
    # Gemini strips comments but not trailing commas (strip-json-comments, then JSON.parse).
    strict=frozenset({"trailing-comma", "bom"}),
)
GEMINI_EXTENSION = replace(GEMINI, family=ip.GEMINI_EXTENSION)
ZED = Dialect("zed", "Zed", reshape=_zed_entry, skip_note="provided by a Zed extension, which mcp-lock cannot launch")

_DEPRECATED = "VS Code 1.102 deprecated the `mcp` key in settings.json; move these servers to .vscode/mcp.json"
_NOT_READ = "not read by Windsurf (it only reads the user-level file ~/.codeium/windsurf/mcp_config.json)"

FORMATS: dict[str, MapFormat] = {
    ".mcp.json": MapFormat(CLAUDE),
    ".vscode/mcp.json": MapFormat(VSCODE, ("servers",), inputs=("inputs",)),
    ".vscode/settings.json": MapFormat(
        VSCODE, ("mcp", "servers"), optional=True, inputs=("mcp", "inputs"), note=("deprecated", _DEPRECATED)
    ),
    ".cursor/mcp.json": MapFormat(CURSOR),
    ".windsurf/mcp_config.json": MapFormat(WINDSURF, note=("not-read", _NOT_READ)),
    ".roo/mcp.json": MapFormat(ROO),
    ".kilocode/mcp.json": MapFormat(KILO),
    ".kiro/settings/mcp.json": MapFormat(KIRO),
    ".amazonq/mcp.json": MapFormat(AMAZON_Q),
    ".amazonq/default.json": MapFormat(AMAZON_Q),
    ".junie/mcp/mcp.json": MapFormat(JUNIE),
    ".github/mcp.json": MapFormat(COPILOT),
    ".gemini/settings.json": MapFormat(GEMINI, optional=True),
    ".zed/settings.json": MapFormat(ZED, ("context_servers",), optional=True),
}
GEMINI_EXTENSION_FORMAT = MapFormat(GEMINI_EXTENSION, optional=True)


def read(scan: Scan, rel: str, fmt: MapFormat) -> ConfigFile | None:
    """Read `rel` in format `fmt`; None when a settings-style file declares no servers."""
    client = fmt.dialect.client
    try:
        doc = load_json(scan.repo, rel)
    except SourceError as err:
        return broken(rel, client, err)
    if not isinstance(doc.value, dict):
        if fmt.optional:
            return None
        return ConfigFile(
            rel, client, problems=[problem("error", "invalid-entry", f"{rel} must hold a JSON object", rel)]
        )
    maps = fmt.find(doc.value) if fmt.find else [fmt.top] if _get(doc.value, fmt.top) is not None else []
    if not maps and fmt.optional:
        return None
    cf = ConfigFile(rel, client, problems=syntax_problems(doc, rel, fmt.dialect))
    if fmt.note:
        cf.problems.append(problem("warning", *fmt.note, rel))
    if not maps:
        cf.problems.append(problem("warning", "no-servers", f"{rel} has no `{'.'.join(fmt.top)}` object", rel))
    defaults, declared = _inputs(doc, fmt.inputs)
    for path in maps:
        servers = _get(doc.value, path)
        if not isinstance(servers, dict):
            message = f"`{'.'.join(path)}` must be an object mapping server names to their settings"
            cf.problems.append(problem("error", "invalid-field", message, rel, doc.line(*path)))
            continue
        for name, entry in servers.items():
            if fmt.is_entry(path, name, entry):
                decl = declare_in(doc, path, name, entry, fmt.dialect, scan, rel, defaults)
                decl.problems += _undeclared_inputs(decl, entry, declared) if fmt.inputs else []
                cf.declarations.append(decl)
    return cf


def reader(fmt: MapFormat) -> Callable[[Scan, str], ConfigFile | None]:
    return partial(read, fmt=fmt)


def syntax_problems(doc: jsonc.Document, rel: str, dialect: Dialect) -> list[Problem]:
    """Duplicate keys, and one warning per leniency a strict-JSON client would reject."""
    found: list[Problem] = [
        problem("warning", "duplicate-key", f"{rel}: {n.detail}", rel, n.line)
        for n in doc.notes
        if n.kind == "duplicate-key"
    ]
    for kind in ("bom", "comment", "trailing-comma"):
        lines = list(dict.fromkeys(n.line for n in doc.notes if n.kind == kind))
        if lines and kind in dialect.strict:
            where = ", ".join(map(str, lines))
            message = (
                f"{dialect.label} parses strict JSON and will reject {rel}: "
                f"{kind.replace('-', ' ')} at line{'s' if len(lines) > 1 else ''} {where}"
            )
            found.append(problem("warning", "strict-json", message, rel, lines[0]))
    return found


def _get(value: object, path: Keys) -> object:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _inputs(doc: jsonc.Document, path: Keys | None) -> tuple[dict[str, str], set[str]]:
    """VS Code `inputs`: declared ids, and the defaults of those that have one."""
    items = _get(doc.value, path) if path else None
    if not isinstance(items, list):
        return {}, set()
    found = [i for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)]
    defaults = {i["id"]: i["default"] for i in found if isinstance(i.get("default"), str)}
    return defaults, {i["id"] for i in found}


_INPUT = re.compile(r"\$\{input:([^}\s]+)\}")


def _undeclared_inputs(decl: Declaration, entry: object, declared: set[str]) -> list[Problem]:
    """VS Code cannot prompt for an input that `inputs` does not declare."""
    used = dict.fromkeys(m for s in _strings(entry) for m in _INPUT.findall(s))
    return [
        problem(
            "warning",
            "undeclared-input",
            f"server '{decl.name}' uses ${{input:{name}}} but `inputs` declares no input '{name}'",
            decl.location.file,
            decl.location.line,
        )
        for name in used
        if name not in declared
    ]


def _strings(value: object, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 8:
        return []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []
