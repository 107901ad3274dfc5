"""Loopback listeners for the tests that check where secrets go (tests/vcs/exfil.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .exfil import HeaderRecorder, Listener


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def recorder() -> Iterator[HeaderRecorder]:
    server = HeaderRecorder()
    yield server
    server.shutdown()
    server.server_close()
