"""A uv package's license is recorded in the lock's tree record as its index states it (the JSON API's
`license_expression`, else a short `license`, else the license classifier), read by mcp-lock and never by
running package code; `mcp-lock bom` lists it, and a license that changes between versions is the
`license-changed` note, for PyPI as for npm. On the loopback PyPI index (tests/loopback_pypi.py) with real uvx
launches of a wheel-only stdio server."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from loopback_pypi import SERVER_MODULE, Index, serve
from vcs.gitrepo import GitRepo

from scanner.cli.main import main

PACKAGE = "demo-server"


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    if shutil.which("uv") is None:
        pytest.fail("uv is not on PATH (the test extra installs it into the venv)")
    served = Index(tmp_path / "index")
    served.wheel(PACKAGE, "1.0.0", scripts={PACKAGE: SERVER_MODULE}, license="MIT")
    served.wheel(PACKAGE, "1.0.1", scripts={PACKAGE: SERVER_MODULE}, license="GPL-3.0-only")
    served.wheel(PACKAGE, "1.0.2", scripts={PACKAGE: SERVER_MODULE},
                 classifiers=("Programming Language :: Python", "License :: OSI Approved :: BSD License"))
    with serve(served):
        yield served


def env(tmp_path: Path) -> dict[str, str]:
    return {"MCP_LOCK_STORE": str(tmp_path / "store"), "UV_CACHE_DIR": str(tmp_path / "uv-cache")}


def declare(repo: GitRepo, index: Index, version: str) -> None:
    repo.add_entry("py", {"command": "uvx", "args": [f"{PACKAGE}=={version}"], "env": {"UV_DEFAULT_INDEX": index.url}})


def record(repo: GitRepo) -> dict[str, Any]:
    tree = repo.lock_json()["servers"]["py"]["launch"]["tree"]
    (found,) = [p for p in tree["packages"] if p["name"] == PACKAGE]
    return found


@pytest.fixture
def locked(tmp_path: Path, index: Index) -> GitRepo:
    repo = GitRepo(tmp_path / "top")
    declare(repo, index, "1.0.0")
    done = repo.run("lock", env=env(tmp_path))
    assert done.exit_code == 0, done.output
    repo.commit("Pin py")
    return repo


def test_lock_records_the_license_the_index_states_and_bom_lists_it(locked: GitRepo, index: Index) -> None:
    assert record(locked)["license"] == "MIT"
    assert f"/pypi/{PACKAGE}/1.0.0/json" in index.served
    result = CliRunner().invoke(main, ["bom", "--repo", str(locked.root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    parts = {c["name"]: c for server in json.loads(result.output)["components"] for c in server.get("components", [])}
    assert parts[PACKAGE]["licenses"] == [{"expression": "MIT"}]


def test_a_license_change_between_versions_is_recorded_and_a_note(
    locked: GitRepo, index: Index, tmp_path: Path
) -> None:
    locked.branch("bump")
    declare(locked, index, "1.0.1")
    updated = locked.run("update", env=env(tmp_path))
    assert updated.exit_code == 0, updated.output
    assert record(locked)["license"] == "GPL-3.0-only"
    locked.commit("Bump py")
    out = tmp_path / "report.json"
    locked.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
               env={"UV_DEFAULT_INDEX": index.url})
    (note,) = [f for f in json.loads(out.read_text(encoding="utf-8"))["findings"] if f["rule"] == "license-changed"]
    assert note["severity"] == "info" and note["subject"] == f"{PACKAGE}@1.0.1"
    assert "'GPL-3.0-only'" in note["message"] and f"{PACKAGE}@1.0.0 was licensed 'MIT'" in note["message"]


def test_an_unchanged_package_keeps_its_record_and_a_classifier_states_a_license(
    locked: GitRepo, index: Index, tmp_path: Path
) -> None:
    before = len(index.served)
    assert locked.run("update", env=env(tmp_path)).exit_code == 0
    assert not [p for p in index.served[before:] if p.startswith("/pypi/")]  # kept, not asked again
    assert record(locked)["license"] == "MIT"
    declare(locked, index, "1.0.2")
    assert locked.run("update", env=env(tmp_path)).exit_code == 0
    assert record(locked)["license"] == "BSD License"


def test_without_a_json_api_the_installed_metadata_states_the_license(index: Index, tmp_path: Path) -> None:
    """An index with no JSON API (a plain PEP 503/691 mirror): the license is read from the installed wheel's
    METADATA in the verified store entry, by mcp-lock, never by running the package."""
    index.json_api_on = False
    repo = GitRepo(tmp_path / "top")
    declare(repo, index, "1.0.2")
    assert repo.run("lock", env=env(tmp_path)).exit_code == 0
    assert record(repo)["license"] == "BSD License"  # its Classifier line: the wheel states no expression
    assert f"/pypi/{PACKAGE}/1.0.2/json" in index.served  # asked, and answered 404
