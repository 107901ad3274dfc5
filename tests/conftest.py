import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry, serve
from fixture_repo import http_server, repo  # noqa: F401  (fixtures shared by every test module)
from hypothesis import HealthCheck, settings
from parallel import one_at_a_time, pytest_cmdline_main  # noqa: F401  (xdist by default; tests/parallel.py)

# Properties are checked by their examples, never by how fast a loaded machine runs them (bench/ holds the
# targets): no deadline and no speed health check, so a loaded machine (four workers on two cores) fails none.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture(autouse=True)
def verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test keeps detector verdicts in a folder of its own, never the user's cache (verdict_cache.py): a
    test that changes a detector must not meet verdicts another test left."""
    folder = tmp_path_factory.mktemp("verdicts")
    monkeypatch.setenv("MCP_LOCK_CACHE_DIR", str(folder))
    yield folder


@pytest.fixture
def npm_registry() -> Iterator[Registry]:
    """A loopback npm registry (tests/artifacts/npm_registry.py), shut down after the test."""
    registry = Registry()
    server = serve(registry)
    yield registry
    server.shutdown()
    server.server_close()


@pytest.fixture
def npm_env(tmp_path: Path) -> dict[str, str]:
    """An npm cache and an mcp-lock store of the test's own (npm must be installed)."""
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    (tmp_path / "npm-cache").mkdir()
    return {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store")}
