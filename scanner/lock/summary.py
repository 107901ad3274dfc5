"""What one pin holds, in a line of prose (for `mcp-lock list`)."""

from __future__ import annotations

from scanner.lock.lockfile import ServerPin
from scanner.model.kinds import KIND_KEYS, counted


def pin_status(pin: ServerPin | None, lock_display: str) -> str:
    """`pinned in mcp-lock.json: 2 tools, 1 prompt`, or that the server is not pinned and how to pin it."""
    if pin is None:
        return f"not pinned in {lock_display}; run `mcp-lock lock`"
    counts = [counted(len(pin.pins(kind)), kind) for kind in KIND_KEYS if pin.pins(kind)]
    version = pin.server_info.get("version")
    at = f" (version {version})" if isinstance(version, str) and version else ""
    return f"pinned in {lock_display}{at}: {', '.join(counts) or 'no definitions'}"
