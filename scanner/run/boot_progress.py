"""The progress lines of a run's boots: one per server as it answers, and who is still awaited."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import anyio

from scanner.model.kinds import counted
from scanner.snapshot import Snapshot
from scanner.sources.declarations import Server


class BootResult(Protocol):
    """What a progress line reads of `scanner.run.boot.BootResult` (named here, not imported: no cycle)."""

    key: str
    snapshot: Snapshot | None
    error: str | None
    seconds: float

PROGRESS_INTERVAL = 5.0
Progress = Callable[[str], None]


async def report_waiting(
    servers: Sequence[Server], results: Mapping[str, BootResult], started: float, progress: Progress
) -> None:
    while True:
        await anyio.sleep(PROGRESS_INTERVAL)
        waiting = [s.key for s in servers if s.key not in results]
        if not waiting:
            return
        shown = ", ".join(waiting[:5]) + (f" and {len(waiting) - 5} more" if len(waiting) > 5 else "")
        progress(f"still waiting for {shown} ({time.monotonic() - started:.0f}s)")


def done_line(result: BootResult) -> str:
    if result.snapshot is None:
        return f"✗ {result.key}: {result.error} ({result.seconds:.1f}s)"
    counts = ", ".join(counted(len(v), k) for k, v in result.snapshot.definitions.items() if v) or "nothing listed"
    return f"✓ {result.key}: {counts} ({result.seconds:.1f}s)"
