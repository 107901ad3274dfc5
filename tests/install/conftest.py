"""The npm tree tests' environment: npm's cache and mcp-lock's store in the test's own tmp_path, so that no other
test, pytest-xdist worker or run meets them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def npm_env(tmp_path: Path) -> dict[str, str]:
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    (tmp_path / "npm-cache").mkdir()
    return {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store")}
