"""Every writable tmpfs of the sandbox is sized, and all sandboxes booting at once stay within one run budget.

Before: /dev and /dev/shm were unsized (768 MiB written to each with `tmpfs-mib: 64`), and 4 servers filling
their /tmp and /run in one run added 3.7 GiB of host shared memory.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from fixture_repo import Repo
from test_policy import write_policy

from transports.test_sandbox import add_attacker, described

MIB = 1024 * 1024
# The host's shared memory is measured here and gigabytes are taken there: across pytest-xdist workers these tests
# run one after another, so that no other of them moves the figures (tests/parallel.py).
pytestmark = pytest.mark.usefixtures("one_at_a_time")


def shmem_kib() -> int:
    """The host's shared memory (tmpfs pages included) now, from /proc/meminfo."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1])
    raise AssertionError("no Shmem line in /proc/meminfo")


def test_every_writable_tmpfs_is_sized_and_dev_is_read_only(repo: Repo) -> None:
    add_attacker(repo, "filler", {"fill_all": 200 * MIB})
    write_policy(repo, "tmpfs-mib: 8\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    outcome = json.loads(described(repo, "filler", "fill_all"))
    assert outcome["/dev"] == {"written": 0, "error": "EROFS"}
    for folder, size in (("/tmp", 8), ("/run", 16), ("/dev/shm", 64)):
        assert outcome[folder]["error"] == "ENOSPC" and outcome[folder]["written"] <= size * MIB, outcome


def test_four_servers_filling_every_tmpfs_keep_host_shared_memory_under_the_run_budget(repo: Repo) -> None:
    # Each sandbox holds 64 (/tmp) + 16 (/run) + 64 (/dev/shm) = 144 MiB: in 200 MiB, one boots at a time.
    for index in range(4):
        add_attacker(repo, f"filler{index}", {"fill_all": 100 * MIB, "hold": 1.0})
    write_policy(repo, "tmpfs-mib: 64\ntmpfs-budget-mib: 200\n")
    baseline, peak, done = shmem_kib(), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], shmem_kib())
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = repo.run("lock")
    finally:
        done.set()
        sampler.join()
    assert result.exit_code == 0, result.output
    for index in range(4):
        assert json.loads(described(repo, f"filler{index}", "fill_all"))["/dev/shm"]["written"] == 64 * MIB
    grown_mib = (peak[0] - baseline) / 1024
    assert 100 < grown_mib < 200, grown_mib  # one sandbox's fill was seen, never two at once


def test_a_server_needing_more_than_the_whole_budget_is_not_started(repo: Repo) -> None:
    add_attacker(repo, "filler", {"fill_all": MIB})
    write_policy(repo, "tmpfs-mib: 512\ntmpfs-budget-mib: 256\n")
    result = repo.run("lock")
    assert result.exit_code == 1, result.output
    assert "(/tmp, /run and /dev/shm: 592 MiB) would not fit the run's tmpfs budget of 256 MiB" in result.output
    assert "raise `tmpfs-budget-mib`" in result.output
