"""Writes renovate/mcp-servers.json from named parts: run `python renovate/build_preset.py` after a change.

Renovate runs each manager's matchStrings as a chain (`recursive`): the server whose command is the
launcher, then its argument lists, then the one pinned argument, whose text is all a bump rewrites.
The regexes are RE2 in JavaScript syntax: no lookaround and no backreferences, so nesting is spelled
out to a fixed depth and every boundary is a consumed character.
"""

from __future__ import annotations

import json
from pathlib import Path

PRESET = Path(__file__).with_name("mcp-servers.json")

STRING = r'"(?:[^"\\\n]|\\.)*"'  # a JSON string, so braces and brackets inside it are text
OTHER = r'[^"\[\]{}]'


def array(depth: int) -> str:
    """A JSON array holding scalars and objects up to `depth` - 1 levels deep."""
    inner = f"{STRING}|{OTHER}" + (f"|{json_object(depth - 1)}" if depth > 1 else "")
    return rf"\[(?:{inner})*\]"


def json_object(depth: int) -> str:
    """A JSON object up to `depth` levels deep."""
    inner = f"{STRING}|{OTHER}|{array(max(depth - 1, 1))}" + (f"|{json_object(depth - 1)}" if depth > 1 else "")
    return rf"\{{(?:{inner})*\}}"


def member(depth: int) -> str:
    """Anything between the braces of an object `depth` levels deep."""
    return rf"(?:{STRING}|{OTHER}|{array(depth - 1)}|{json_object(depth - 1)})"


def launch(launchers: str) -> str:
    """A server started by one of `launchers`, in each client format."""
    any_member = member(3)
    json_server = rf'\{{{any_member}*"(?:command|path)"\s*:\s*"(?:{launchers})"{any_member}*\}}'
    opencode = rf'"command"\s*:\s*\[\s*"(?:{launchers})"(?:\s*,\s*{STRING})*\s*,?\s*\]'
    toml_line = r"\n+[ \t]*[^\s\[][^\n]*"  # up to the next [table] header
    toml_table = (
        rf"(?:^|\n)\[[^\[\]\n]+\][ \t]*(?:{toml_line})*?"
        rf"""\n[ \t]*command[ \t]*=[ \t]*["'](?:{launchers})["'][^\n]*(?:{toml_line})*"""
    )
    toml_value = rf"""(?:[^{{}}\n"']|{STRING}|'[^'\n]*'|\{{(?:[^{{}}\n"']|{STRING}|'[^'\n]*')*\}})"""
    toml_inline = rf"""\{{{toml_value}*\bcommand[ \t]*=[ \t]*["'](?:{launchers})["']{toml_value}*\}}"""
    # The item's other keys and its lists; a list item that reads like `- key: value` starts the next server.
    yaml_line = r"""\n(?:[ \t]*-[ \t]+(?:["'][^\n]*|[^\n:]*[@=./0-9-][^\n:]*)|[ \t]*[^\s-][^\n]*)?"""
    yaml = rf"""\bcommand:[ \t]*["']?(?:{launchers})["']?[ \t]*(?:#[^\n]*)?(?:{yaml_line})*"""
    return f"(?:{json_server}|{opencode}|{toml_table}|{toml_inline}|{yaml})"


LISTS = r"""\[(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^"'\[\]])*\]|(?:\n[ \t]*-[ \t]+[^\n]*)+"""
BEFORE = r"""(?:^|[\s"'\[,])"""
AFTER = r"""(?:["'\s,\]]|$)"""
SEMVER = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
PEP440 = r"\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?"
NPM = rf"{BEFORE}(?<depName>(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*)@(?<currentValue>{SEMVER}){AFTER}"
PYPI = (
    rf"{BEFORE}(?<depName>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:\[[A-Za-z0-9._, -]*\])?"
    rf"(?:==|@)(?<currentValue>{PEP440}){AFTER}"
)
# A tag that starts with a digit (or v and a digit): never `latest`, never a port or a volume.
IMAGE = (
    rf"{BEFORE}(?<depName>[a-z][a-z0-9._-]*(?::\d+)?(?:/[a-z0-9][a-z0-9._-]*)*)"
    rf":(?<currentValue>v?\d[\w.-]{{0,127}})(?:@(?<currentDigest>sha256:[a-f0-9]{{64}}))?{AFTER}"
)

CLIENT_FILES = [
    r"/(^|/)\.mcp\.json$/",
    r"/(^|/)\.vscode/(mcp|settings)\.json$/",
    r"/(^|/)\.cursor/mcp\.json$/",
    r"/(^|/)\.windsurf/mcp_config\.json$/",
    r"/(^|/)\.(roo|kilocode)/mcp\.json$/",
    r"/(^|/)\.kiro/settings/mcp\.json$/",
    r"/(^|/)\.amazonq/(mcp|default)\.json$/",
    r"/(^|/)\.junie/mcp/mcp\.json$/",
    r"/(^|/)\.github/mcp\.json$/",
    r"/(^|/)\.gemini/settings\.json$/",
    r"/(^|/)gemini-extension\.json$/",
    r"/(^|/)\.zed/settings\.json$/",
    r"/(^|/)\.codex/config\.toml$/",
    r"/(^|/)\.continue/mcpServers/[^/]+\.(ya?ml|json)$/",
    r"/(^|/)(\.opencode/)?opencode\.jsonc?$/",
    r"/(^|/)manifest\.json$/",
]
REGISTRY_FILES = [r"/(^|/)server\.json$/"]


def package(registry_type: str) -> str:
    """A server.json package object of the given registryType (its arguments nest four levels)."""
    inside = member(5)
    return rf'\{{{inside}*"registryType"\s*:\s*"{registry_type}"{inside}*\}}'


def launcher(description: str, launchers: str, argument: str, datasource: str) -> dict[str, object]:
    return {
        "customType": "regex",
        "description": description,
        "managerFilePatterns": CLIENT_FILES,
        "matchStringsStrategy": "recursive",
        "matchStrings": [launch(launchers), LISTS, argument],
        "datasourceTemplate": datasource,
    }


def preset() -> dict[str, object]:
    return {
        "$schema": "https://docs.renovatebot.com/renovate-schema.json",
        "description": (
            "Bump the pinned launch versions of MCP servers (npx, uvx, docker and MCP registry server.json)"
            " in every client config mcp-lock discovers. Needs a Renovate that knows maxMajorIncrement"
            " (44.x does; 41.x rejects the preset)."
        ),
        "customManagers": [
            launcher("MCP servers launched with npx pkg@X.Y.Z", "npx", NPM, "npm"),
            launcher("MCP servers launched with uvx pkg==X.Y (or pkg@X.Y, --from pkg==X.Y)", "uvx|uv", PYPI, "pypi"),
            launcher("MCP servers launched with docker run image:tag[@sha256:digest]", "docker", IMAGE, "docker"),
            {
                "customType": "regex",
                "description": "MCP registry server.json: npm, pypi and nuget packages[].identifier and version",
                "managerFilePatterns": REGISTRY_FILES,
                "matchStringsStrategy": "recursive",
                "matchStrings": [
                    package("(?<datasource>npm|pypi|nuget)"),
                    rf'"identifier"\s*:\s*"(?<depName>[^"\\]+)"(?:{STRING}|[^"])*?"version"\s*:\s*"\d[^"\\]*"',
                    r'"version"\s*:\s*"(?<currentValue>\d[^"\\]*)"',
                ],
            },
            {
                "customType": "regex",
                "description": "MCP registry server.json: oci packages[].identifier image:tag[@sha256:digest]",
                "managerFilePatterns": REGISTRY_FILES,
                "matchStringsStrategy": "recursive",
                "matchStrings": [package("oci"), r'"identifier"\s*:\s*"[^"]*"', IMAGE],
                "datasourceTemplate": "docker",
            },
        ],
        "packageRules": REFERENCE_SERVERS,
    }


# The reference servers (the modelcontextprotocol/servers monorepo) went from 0.6.x to CalVer (2025.x): a
# "major increment" of about 2025, past Renovate's maxMajorIncrement of 500, so the most common old pin
# never got a bump. For their packages only, the check is off (0 disables it).
REFERENCE_SERVERS = [
    {
        "description": "Reference MCP servers on npm: 0.6.x to CalVer (2025.x) is one release, not 2025 majors",
        "matchDatasources": ["npm"],
        "matchPackageNames": ["@modelcontextprotocol/server-*"],
        "maxMajorIncrement": 0,
    },
    {
        "description": "Reference MCP servers on PyPI (mcp-server-time, -git, -fetch): 0.6.x to CalVer (2025.x)",
        "matchDatasources": ["pypi"],
        "matchPackageNames": ["mcp-server-*"],
        "maxMajorIncrement": 0,
    },
]


def render() -> str:
    return json.dumps(preset(), indent=2) + "\n"


if __name__ == "__main__":
    PRESET.write_text(render(), encoding="utf-8")
