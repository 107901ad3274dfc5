"""Builders shared by the lockfile tests (imported by name: tests/lock is on sys.path)."""

from __future__ import annotations

from pathlib import Path

from scanner.snapshot import Snapshot
from scanner.sources.declarations import Declaration, LaunchTemplate, SourceLocation

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "lockfile-spec"

GET_TIME = {
    "name": "get_current_time",
    "description": "Get current time in a specific timezone",
    "inputSchema": {
        "type": "object",
        "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
        "required": ["timezone"],
    },
}


def declaration(name: str = "time", client: str = "claude-code", file: str = ".mcp.json", line: int = 3):
    return Declaration(name, client, SourceLocation(file, line), None, None)


def stdio_launch() -> dict[str, object]:
    return LaunchTemplate("stdio", "uvx", ("mcp-server-time",), env_names=("TZ",), env=(("TZ", "${env:TZ}"),)).spec()


def snapshot(tools=None, prompts=None, resources=None, templates=None, instructions=None) -> Snapshot:
    return Snapshot(
        protocol_version="2025-06-18",
        server_info={"name": "mcp-time", "version": "1.0.0"},
        capabilities={"tools": {"listChanged": False}},
        instructions=instructions,
        definitions={
            "tools": list(tools or []),
            "prompts": list(prompts or []),
            "resources": list(resources or []),
            "resourceTemplates": list(templates or []),
        },
    )
