"""End every process a stdio server left behind, including ones that left its process group.

Killing the server's process group misses children that started their own session (daemons, `setsid`)
or outlived a server that already exited. Each server started with `sandbox: off` gets a unique
marker in its environment, which descendants inherit, and after the session every process carrying it is
killed. (In the sandbox, the server's PID namespace ends them all; see sandbox.py.)
"""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

# Named as systemd names its per-unit id (32 hex digits too): no mcp-lock variable tells a server it is scanned.
MARKER = "INVOCATION_ID"
PROC = Path("/proc")


def new_marker() -> str:
    return uuid.uuid4().hex


def kill_marked(marker: str) -> int:
    """SIGKILL every process whose environment carries `marker`; returns how many. No-op without /proc."""
    needle = f"{MARKER}={marker}".encode() + b"\0"
    killed = 0
    if not PROC.is_dir():
        return 0
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes():
                continue
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
        except (OSError, ValueError):
            continue  # gone already, or not ours to read
    return killed
