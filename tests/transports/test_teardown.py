"""Ending a boot leaves the event loop to the other boots: its cgroup's removal waits between passes, not on the
loop every server shares."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from test_hostile import tool

from scanner.run.boot import boot_one
from scanner.transports import cgroup
from transports.test_channel import raw_launch
from transports.test_sandbox_bounds import needs_pids


@needs_pids
@pytest.mark.parametrize("mode", ["on", "off"])
def test_removing_a_boots_cgroup_lets_the_other_boots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    # The cgroup is still busy for a few passes (its killed processes leaving), as after most boots.
    remove = cgroup._remove
    ticks = [0]
    seen: list[int] = []  # the other task's ticks at each attempt to remove the cgroup

    def busy_for_a_while(path: Path) -> bool:
        seen.append(ticks[0])
        return len(seen) > 5 and remove(path)

    monkeypatch.setattr(cgroup, "_remove", busy_for_a_while)
    launch = raw_launch(tmp_path, {"pages": [[tool("a")]]})

    async def run() -> None:
        async def other_boot() -> None:
            while True:
                ticks[0] += 1
                await anyio.sleep(0)

        async with anyio.create_task_group() as group:
            group.start_soon(other_boot)
            result = await boot_one("s", launch, tmp_path, timeout=30, sandbox=mode)
            group.cancel_scope.cancel()
        assert result.snapshot is not None, result.error

    anyio.run(run)
    assert len(seen) > 5
    assert seen[-1] > seen[0]  # the other boot ran between the passes, not after the last one
