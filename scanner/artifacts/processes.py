"""The command lines of a running server's process tree (Linux /proc), which name the install it runs from."""

from __future__ import annotations

import os

MAX_PROCESSES = 256  # a server's own tree; a fork bomb is cut off here, not walked
MAX_CMDLINE = 64 * 1024


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, breadth first, at most MAX_PROCESSES; [] where /proc is not there."""
    found: list[int] = []
    queue = [pid]
    while queue and len(found) < MAX_PROCESSES:
        current = queue.pop(0)
        found.append(current)
        queue += _children(current)
    return found


def _children(pid: int) -> list[int]:
    children: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return children
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as handle:
                children += [int(word) for word in handle.read().split()]
        except (OSError, ValueError):
            continue
    return children


def command_lines(pid: int) -> list[list[str]]:
    """The argv of `pid` and of each of its descendants that can still be read."""
    lines: list[list[str]] = []
    for process in descendants(pid):
        try:
            with open(f"/proc/{process}/cmdline", "rb") as handle:
                raw = handle.read(MAX_CMDLINE)
        except OSError:
            continue
        lines.append([word.decode("utf-8", "replace") for word in raw.split(b"\0") if word])
    return lines
