"""Synthetic pins for reporter tests: real findings from `diff.compare`, about a lock really written to disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanner.diff.compare import compare_server
from scanner.lock import writer
from scanner.lock.canonical import digest
from scanner.lock.lockfile import Lockfile, Pin, ServerPin, rebuild
from scanner.model.findings import Finding
from scanner.reporters.locate import Locator


def tool(name: str, description: str = "Search the notes.", **properties: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, **properties}, "required": ["q"]},
    }


def server(*tools: dict[str, Any]) -> ServerPin:
    pin = ServerPin(
        declarations=[{"file": ".mcp.json", "client": "claude-code", "name": "notes"}],
        launch={"transport": "stdio", "command": "notes-server", "args": [], "env": []},
        protocol_version="2025-06-18",
        server_info={"name": "notes", "version": "1.0.0"},
        capabilities={"tools": {}},
        instructions=None,
    )
    return rebuild(pin, tools={t["name"]: Pin(t, digest(t)) for t in tools})


def write_lock(path: Path, servers: dict[str, ServerPin]) -> Locator:
    writer.write(path, Lockfile(servers=servers))
    return Locator(path, path.name)


def drift(pinned: ServerPin, live: ServerPin, key: str = "notes") -> list[Finding]:
    return compare_server(key, pinned, live)
