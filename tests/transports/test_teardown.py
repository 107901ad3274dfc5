"""A boot's own setup and teardown leave the event loop to the other boots: making and removing its cgroups and
removing its scratch folder happen in worker threads (kernel work of milliseconds each), not on the loop every
server shares."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from test_hostile import tool

from scanner.run.boot import boot_one
from scanner.transports import cgroup, stdio
from transports.test_channel import raw_launch
from transports.test_sandbox_bounds import needs_pids


def boot_beside_another(tmp_path: Path, mode: str, ticks: list[int]) -> None:
    """Boot the raw fixture server while another task counts its turns in `ticks[0]` on the same loop."""
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


def blocking_first(original: Callable[..., Any], ticks: list[int], seen: list[tuple[int, int]]) -> Callable[..., Any]:
    """`original` after 50 ms of a blocking call; `seen` gets the other task's turns before and after it."""

    def slow(*args: Any, **kwargs: Any) -> Any:
        before = ticks[0]
        time.sleep(0.05)
        seen.append((before, ticks[0]))
        return original(*args, **kwargs)

    return slow


@needs_pids
@pytest.mark.parametrize("mode", ["on", "off"])
def test_removing_a_boots_cgroup_lets_the_other_boots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    # The cgroup is still busy for a few passes (its killed processes leaving), as after most boots.
    remove = cgroup._remove
    ticks = [0]
    seen: list[int] = []  # the other task's turns at each attempt to remove the cgroup

    def busy_for_a_while(path: Path) -> bool:
        # Busy until the other task has had a turn (on 2 loaded cores the worker thread can make its first passes
        # before the loop's thread is scheduled at all); removed on the loop, no turn ever comes, close() gives up
        # at its deadline and the assertion below fails.
        seen.append(ticks[0])
        return len(seen) > 5 and ticks[0] > seen[0] and remove(path)

    monkeypatch.setattr(cgroup, "_remove", busy_for_a_while)
    boot_beside_another(tmp_path, mode, ticks)
    assert len(seen) > 5
    assert seen[-1] > seen[0]  # the other boot ran between the passes, not only after the last one


@pytest.mark.parametrize("mode", ["on", "off"])
def test_making_a_boots_cgroup_lets_the_other_boots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    ticks = [0]
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(cgroup, "_make", blocking_first(cgroup._make, ticks, seen))
    boot_beside_another(tmp_path, mode, ticks)
    assert seen and all(after > before for before, after in seen)


def test_removing_a_boots_scratch_folder_lets_the_other_boots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scratch folder's own class made slow (50 ms of blocking removal), so the test does not depend on how
    # TemporaryDirectory removes a tree (an earlier version patched shutil.rmtree and, in the whole suite on a
    # fresh clone, never saw the call). Only an unsandboxed server has one (test_scratch_folder).
    ticks = [0]
    seen: list[tuple[int, int]] = []

    class SlowToRemove(tempfile.TemporaryDirectory):  # type: ignore[type-arg]
        def cleanup(self) -> None:
            blocking_first(super().cleanup, ticks, seen)()

    monkeypatch.setattr(stdio.tempfile, "TemporaryDirectory", SlowToRemove)
    boot_beside_another(tmp_path, "off", ticks)
    assert len(seen) == 1  # this boot's one scratch folder (the second listing is off here)
    assert seen[0][1] > seen[0][0]
