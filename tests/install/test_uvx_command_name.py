"""`uvx PKG` runs the command named PKG: where the package has none of that name, the finding says which it has."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixture_repo import Repo
from loopback_pypi import SERVER_MODULE, Index, serve


def test_a_package_without_the_declared_command_names_the_commands_it_has(repo: Repo, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # hackernews-mcp-cli 0.3.0 on PyPI is such a package: its commands are `hn` and `hn-mcp`; the finding said
    # "command not found: uvx (is it installed and on PATH?)" while uvx was installed and had installed it.
    if shutil.which("uv") is None:
        pytest.fail("uv is not on PATH (the test extra installs it into the venv)")
    index = Index(tmp_path / "index")
    index.wheel("news-cli", "1.0.0", scripts={"news-mcp": SERVER_MODULE, "news": SERVER_MODULE})
    monkeypatch.setenv("MCP_LOCK_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    with serve(index):
        repo.add_entry("py", {"command": "uvx", "args": ["news-cli==1.0.0"], "env": {"UV_DEFAULT_INDEX": index.url}})
        result = repo.run("lock", "--format", "json")
    (failed,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "boot-failed"]
    assert result.exit_code != 0
    message = failed["message"]
    assert "no command `news-cli`" in message and "news-mcp" in message and "uvx --from" in message, message
    assert "command not found: uvx" not in message
