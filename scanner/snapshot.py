"""What one server said when booted: the raw JSON it sent, nothing re-serialised."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scanner.model.kinds import KIND_KEYS


@dataclass
class Snapshot:
    """The raw answers of one server: handshake fields and every listed definition.

    Definitions are the JSON objects exactly as received (unknown fields kept), in the
    order the server listed them.
    """

    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    instructions: str | None
    definitions: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {key: [] for key in KIND_KEYS}
    )
    notes: list[str] = field(default_factory=list)  # oddities seen while listing (e.g. page limit hit)
    artifact: dict[str, Any] | None = None  # what the launch ran (scanner.artifacts.record); None if unknown
    tree: dict[str, Any] | None = None  # the dependency tree installed for it (scanner.install.packages)
    # What `prompts/get` returned for each listed prompt that needs no argument, by prompt name, as received.
    prompt_bodies: dict[str, dict[str, Any]] = field(default_factory=dict)
