"""Fixtures for running action.yml through tests/actions_runner.py on a copy of examples/demo.

Import the `*_fixture` functions; the fixtures themselves are named without the suffix.

The emulated job is a self-hosted runner that keeps RUNNER_TEMP and an actions/cache store for the
whole session: the first run installs mcp-lock's dependencies from action/requirements.txt with
`--require-hashes` (from the package index, as on GitHub), every later run is a cache hit and only
builds mcp-lock itself from the copied checkout, as a warm run on GitHub does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from actions_runner import ActionRunner, Machine

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo"
BIN = Path(sys.executable).parent
ACTION_FILES = ("pyproject.toml", "README.md", "action.yml")

MakeRunner = Callable[..., ActionRunner]


@pytest.fixture(scope="session", name="action_dir")
def action_dir_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action as GitHub checks it out (a copy: pip builds in the source tree)."""
    target = tmp_path_factory.mktemp("action")
    for name in ACTION_FILES:
        shutil.copy2(ROOT / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "action", target / "action", ignore=ignore)
    shutil.copytree(ROOT / "scanner", target / "scanner", ignore=ignore)
    return target


@pytest.fixture(scope="session", name="runner_home")
def runner_home_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("runner")
    (home / "temp").mkdir()
    (home / "cache").mkdir()
    return home


@pytest.fixture(scope="session", name="pinned_demo")
def pinned_demo_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/demo with its mcp-lock.json, pinned once per session."""
    template = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(DEMO, template, ignore=shutil.ignore_patterns("mcp-lock.json", "__pycache__"))
    locked = subprocess.run(
        [BIN / "mcp-lock", "lock", "-q"], cwd=template, capture_output=True, text=True, timeout=300, env=server_path()
    )
    assert locked.returncode == 0, locked.stdout + locked.stderr
    return template


@pytest.fixture(name="demo")
def demo_fixture(pinned_demo: Path, tmp_path: Path) -> Path:
    """A fresh copy of the pinned demo as the checked-out workspace."""
    workspace = tmp_path / "workspace"
    shutil.copytree(pinned_demo, workspace)
    return workspace


def server_path() -> dict[str, str]:
    """The demo server runs `python server.py`: a `python` with the mcp SDK comes first on PATH, as
    a job provides it with a setup step before the check (docs/ci.md)."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


@pytest.fixture(name="make_runner")
def make_runner_fixture(action_dir: Path, runner_home: Path) -> MakeRunner:
    def make(workspace: Path, **machine: Any) -> ActionRunner:
        machine.setdefault("path_prefix", [str(BIN)])
        machine.setdefault("cache_store", runner_home / "cache")
        setup = Machine(workspace=workspace, temp=runner_home / "temp", **machine)
        return ActionRunner(action_dir, setup)

    return make
