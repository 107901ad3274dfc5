from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repo import http_server, repo  # noqa: F401  (fixtures shared by every test module)


@pytest.fixture(autouse=True)
def verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test keeps detector verdicts in a folder of its own, never the user's cache (verdict_cache.py): a
    test that changes a detector must not meet verdicts another test left."""
    folder = tmp_path_factory.mktemp("verdicts")
    monkeypatch.setenv("MCP_LOCK_CACHE_DIR", str(folder))
    yield folder
