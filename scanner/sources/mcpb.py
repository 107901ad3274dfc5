"""MCPB (formerly DXT) `manifest.json`: `server.mcp_config` is a Claude-style stdio entry where
`${__dirname}` is the manifest's folder and `${user_config.KEY}` a value the user configures."""

from __future__ import annotations

import posixpath

from scanner.sources import interpolate as ip
from scanner.sources.common import Scan, load_recognised, problem
from scanner.sources.declarations import ConfigFile, Declaration, SourceLocation
from scanner.sources.entry import Dialect, Where, declare
from scanner.sources.mcpjson import syntax_problems

MCPB = Dialect("mcpb", "MCPB", ip.MCPB)
FILENAME = "manifest.json"


def is_manifest(value: object) -> bool:
    """`manifest.json` is also a web-app and browser-extension name; require MCPB's own keys."""
    if not isinstance(value, dict):
        return False
    return ("manifest_version" in value or "dxt_version" in value) and "server" in value


def read(scan: Scan, rel: str) -> ConfigFile | None:
    doc = load_recognised(scan.repo, rel, is_manifest)
    if doc is None:
        return None
    manifest: dict[str, object] = doc.value  # type: ignore[assignment]
    cf = ConfigFile(rel, MCPB.client, problems=syntax_problems(doc, rel, MCPB))
    name = manifest.get("name")
    name = name if isinstance(name, str) else posixpath.dirname(rel) or "bundle"
    server = manifest["server"]
    config = server.get("mcp_config") if isinstance(server, dict) else None
    if config is None:
        decl = Declaration(name, MCPB.client, SourceLocation(rel, doc.line("server")), None, None)
        kind = server.get("type") if isinstance(server, dict) else None
        note = f"server '{name}' (type {kind}) has no `server.mcp_config`; the host decides how to launch it"
        decl.problems.append(problem("warning", "not-launchable", note, rel, decl.location.line))
    else:
        where = Where.of(doc, rel, ("server", "mcp_config"), config)
        defaults = _user_defaults(manifest.get("user_config"), scan.context(name, rel))
        decl = declare(name, config, where, MCPB, scan.context(name, rel, defaults))
    cf.declarations.append(decl)
    return cf


def _user_defaults(user_config: object, ctx: ip.Context) -> dict[str, str]:
    """`user_config` defaults as input values; they may use `${HOME}` and friends themselves."""
    defaults: dict[str, str] = {}
    for key, spec in (user_config if isinstance(user_config, dict) else {}).items():
        value = spec.get("default") if isinstance(spec, dict) else None
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, int | float):
            value = str(value)
        if isinstance(value, str):
            resolver = ip.Resolver(MCPB.family, ctx)
            resolved = resolver(value)
            if not resolver.missing:
                defaults[key] = resolved
    return defaults
