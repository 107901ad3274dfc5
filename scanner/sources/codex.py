"""Codex CLI: `[mcp_servers.NAME]` tables in `.codex/config.toml`. No interpolation: environment
variables are named in dedicated fields (`env_vars`, `bearer_token_env_var`, `env_http_headers`)."""

from __future__ import annotations

import re

from scanner.model.transports import is_local
from scanner.sources.common import Scan, SourceError, broken, problem, read_text
from scanner.sources.declarations import ConfigFile
from scanner.sources.entry import Dialect, Fields, Forward, Launch, Where, finish, parse_entry

CODEX = Dialect("codex", "Codex", headers_key="http_headers")
PATH = ".codex/config.toml"

_KEY = r"""("(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[A-Za-z0-9_-]+))"""
_HEADER = re.compile(r"\[\s*mcp_servers\s*\.\s*" + _KEY + r"\s*[\].]")
_DOTTED = re.compile(r"mcp_servers\s*\.\s*" + _KEY + r"\s*[=.]")
_IN_TABLE = re.compile(_KEY + r"\s*[=.]")
_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def read(scan: Scan, rel: str = PATH) -> ConfigFile | None:
    try:
        text = read_text(scan.repo, rel).removeprefix("\ufeff")
        config = _toml(text, rel)
    except SourceError as err:
        return broken(rel, CODEX.client, err)
    servers = config.get("mcp_servers")
    if servers is None:
        return None
    cf = ConfigFile(rel, CODEX.client)
    if not isinstance(servers, dict):
        cf.problems.append(problem("error", "invalid-field", "`mcp_servers` must be a table", rel))
        return cf
    lines = _lines(text)
    for name, entry in servers.items():
        where = Where(rel, lines.get(name, 1))
        decl, launch = parse_entry(name, entry, where, CODEX)
        if launch is not None and isinstance(entry, dict) and _extras(Fields(decl, entry, where), launch):
            finish(decl, launch, CODEX, scan.context(name, rel))
        cf.declarations.append(decl)
    return cf


def _toml(text: str, rel: str) -> dict[str, object]:
    import tomllib  # only a repository with a Codex config pays for it, before its first server spawns

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _POSITION.search(str(exc))
        line = int(at.group(1)) if at else 1
        raise SourceError("parse-error", f"{rel} is not valid TOML: {exc}", line) from None
    except RecursionError:
        raise SourceError("parse-error", f"{rel} is not valid TOML: nested too deeply") from None


def _extras(f: Fields, launch: Launch) -> bool:
    """Codex's environment-variable fields, as forwards; False when one is invalid."""
    if "bearer_token" in f.raw:
        f.invalid = True
        hint = "name an environment variable in `bearer_token_env_var` instead"
        f.report("error", "invalid-field", f"Codex rejects an inline `bearer_token`: {hint}", "bearer_token")
    for var in f.strings("env_vars") or []:
        launch.env_from[var] = Forward(var, required=False)  # Codex forwards only what is set
    if not is_local(launch.transport):
        token = f.text("bearer_token_env_var")
        if token:
            launch.headers_from["Authorization"] = Forward(token, "Bearer ")
        for header, var in f.table("env_http_headers").items():
            launch.headers_from[header] = Forward(var)
    return not f.invalid


def _lines(text: str) -> dict[str, int]:
    """Line of each server's first mention: `[mcp_servers.NAME]`, `NAME = ` or `mcp_servers.NAME.`."""
    found: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        match = _HEADER.match(stripped)
        if stripped.startswith("[") and not match:
            table = re.sub(r"\s", "", stripped)
            continue
        if not match:
            match = _DOTTED.match(stripped) if table == "" else None
            match = match or (_IN_TABLE.match(stripped) if table == "[mcp_servers]" else None)
        if match:
            name = next(g for g in (match["dq"], match["sq"], match["bare"]) if g is not None)
            found.setdefault(name, number)
            table = "[mcp_servers.*]" if stripped.startswith("[") else table
    return found
