"""Shared fixtures for the lockfile tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run from a checkout without installing the package
    sys.path.insert(0, str(ROOT))

from lock_helpers import GET_TIME, declaration, snapshot, stdio_launch  # noqa: E402


@pytest.fixture
def time_lock():
    from scanner.lock.lockfile import Lockfile
    from scanner.lock.pin import pin_server

    pin, problems = pin_server([declaration()], stdio_launch(), snapshot(tools=[GET_TIME]))
    assert problems == []
    return Lockfile(servers={"time": pin})
