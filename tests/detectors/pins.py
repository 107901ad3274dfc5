"""A pin of a server listing given tools, as `lock` pins what a real server lists: for the structural checks."""

from __future__ import annotations

from typing import Any

from scanner.lock.lockfile import ServerPin
from scanner.lock.pin import pin_server
from scanner.snapshot import Snapshot


def server(*tools: dict[str, Any], instructions: str | None = None) -> ServerPin:
    snapshot = Snapshot(protocol_version="2025-06-18", server_info={"name": "t", "version": "0"},
                        capabilities={"tools": {}}, instructions=instructions,
                        definitions={"tools": list(tools), "prompts": [], "resources": [], "resourceTemplates": []})
    pin, _ = pin_server([], {"transport": "stdio", "command": "t"}, snapshot)
    return pin
