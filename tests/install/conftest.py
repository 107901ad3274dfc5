"""Fixtures of the install tests: npm's cache and mcp-lock's store in the test's folder, a loopback OSV API, and
a loopback listener standing in for the attacker."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from artifacts.osv_server import OSV
from artifacts.osv_server import serve as serve_osv
from vcs.exfil import Listener


@pytest.fixture
def npm_env(tmp_path: Path) -> dict[str, str]:
    """npm's cache and mcp-lock's store, both in the test's own folder."""
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    (tmp_path / "npm-cache").mkdir()
    return {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store")}


@pytest.fixture
def osv_api() -> Iterator[OSV]:
    osv = OSV()
    server = serve_osv(osv)
    yield osv
    server.shutdown()
    server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.shutdown()
    server.server_close()
