"""Fixtures of the install tests: npm's cache and mcp-lock's store in the test's folder; the loopback OSV API
(tests/artifacts) and the listener standing in for the attacker (tests/vcs)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from artifacts.conftest import osv_api  # noqa: F401  (the loopback OSV API and listener, shared)
from vcs.conftest import listener  # noqa: F401


@pytest.fixture
def npm_env(tmp_path: Path) -> dict[str, str]:
    """npm's cache and mcp-lock's store, both in the test's own folder."""
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    (tmp_path / "npm-cache").mkdir()
    return {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store")}
