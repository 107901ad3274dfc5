"""Plain `pytest` runs the suite on several workers when pytest-xdist is installed (the `test` extra brings it).

Most of the suite's time is spent waiting: on servers booting, npm and uv installing, loopback registries
answering. On the 2-core development machine four workers keep both cores busy through those waits. Without
the plugin (or with `-p no:xdist`, `-n 0`, `--pdb`) the suite runs in one process as before, and `-n N` or
`--dist MODE` on the command line choose for themselves.

Every test already keeps its state in its own `tmp_path` (HOME-like folders, caches, stores, loopback servers
on ephemeral ports). A module- or session-scoped fixture is built once per worker that runs one of its tests.
Tests that measure or load the whole host (its shared memory, gigabytes of RAM) take `one_at_a_time`, so that no
other such test on another worker moves their figures.

(xdist's own `--dist loadgroup` is not used: with pytest 9.2 its `xdist_group` marks no longer reach the
scheduler, since a test's id is no longer read from the attribute xdist rewrites.)
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

WORKERS = 4  # tests mostly wait on subprocesses and loopback I/O: twice the development machine's 2 cores


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Distribute by default: unless the command line chose (`-n`, `--dist`), or asked for a debugger."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is not None or config.option.dist != "no" or config.option.distload:
        return
    if config.getoption("usepdb", False) or config.getoption("collectonly", False):
        return
    config.option.numprocesses = WORKERS
    config.option.dist = "load"


@pytest.fixture
def one_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Hold the run's host-wide lock for the test: one such test at a time across all workers of this run."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' folders lie in the controller's, one per run
    with open(Path(root, "host-wide.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
