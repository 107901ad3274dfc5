"""The nightly re-pin of a uvx launch is reviewable after a dependency publishes overnight (the uv side of
tests/vcs/test_repin_review.py): `check --base` resolves the launch as of the newest upload the record pins
(`uv --exclude-newer`, dated by the PEP 700 `upload-time` of the base's index), so a release uploaded between
the nightly `update --fresh` and the check leaves the honest record equal. A record pinning an older release
than the base's blocks. On a loopback PEP 691/700 index (tests/loopback_pypi.py)."""

from __future__ import annotations

import datetime
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_pypi import SERVER_MODULE, Index, serve

from .exfil import check_pull_request, pin_on_main, repinned_listing, rules
from .gitrepo import GitRepo

TOP, DEP = "rr-py-top", "rr-py-dep"


def _ago(days: float) -> str:
    moment = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _release(index: Index, name: str, version: str, days_ago: float, **wheel: object) -> None:
    """A wheel of `name` `version` uploaded `days_ago` (its file name is the one Index.wheel gives it)."""
    index.wheel(name, version, **wheel)  # type: ignore[arg-type]
    index.upload_times[f"{name.replace('-', '_')}-{version}-py3-none-any.whl"] = _ago(days_ago)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    served = Index(tmp_path / "index")
    _release(served, DEP, "1.0.0", 60)
    _release(served, TOP, "1.0.0", 60, scripts={TOP: SERVER_MODULE}, requires=(f"{DEP}>=1.0",))
    with serve(served):
        yield served


@pytest.fixture
def repo(tmp_path: Path, index: Index) -> tuple[GitRepo, dict[str, str]]:
    """`py` (top 1.0.0 → dep >=1.0) pinned on main with dep 1.0.0."""
    if shutil.which("uv") is None:
        pytest.fail("uv is not on PATH (the test extra installs it into the venv)")
    repo = GitRepo(tmp_path / "top")
    environ = {"MCP_LOCK_STORE": str(tmp_path / "store"), "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    repo.add_entry("py", {"command": "uvx", "args": [f"{TOP}==1.0.0"], "env": {"UV_DEFAULT_INDEX": index.url}})
    pin_on_main(repo, environ)
    return repo, environ


def _versions(repo: GitRepo) -> dict[str, str]:
    tree = json.loads(repo.lock_path.read_text(encoding="utf-8"))["servers"]["py"]["launch"]["tree"]
    return {p["name"]: p["version"] for p in tree["packages"]}


def test_an_honest_uv_re_pin_still_passes_after_a_dependency_uploads_overnight(
    repo: tuple[GitRepo, dict[str, str]], index: Index
) -> None:
    git_repo, environ = repo
    _release(index, DEP, "1.0.1", 30)
    nightly = git_repo.run("update", "--fresh", env=environ)
    assert nightly.exit_code == 0, nightly.output
    assert _versions(git_repo)[DEP] == "1.0.1", nightly.output
    _release(index, DEP, "1.0.2", 0)  # after the nightly run, before the check
    report = check_pull_request(git_repo, environ, "Re-pin to today's resolution (mcp-lock update --fresh)")
    listing = repinned_listing(report, "py")
    assert f"({DEP}@1.0.1, published" in listing["message"], listing
    assert f"{DEP}: 1.0.0 → 1.0.1" in listing["details"], listing


def test_a_uv_record_pinning_an_older_release_than_the_base_blocks(
    tmp_path: Path, index: Index
) -> None:
    """The base pins dep 1.0.1; 1.0.1 then stops resolving (its file is withdrawn from the index), and the pull
    request re-pins back to 1.0.0: what resolves today, and a downgrade. The old review passed it; now the
    release the base pins cannot be dated, so no cutoff is had and the record stays blocking for a person."""
    _release(index, DEP, "1.0.1", 30)
    git_repo = GitRepo(tmp_path / "down")
    environ = {"MCP_LOCK_STORE": str(tmp_path / "store"), "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    git_repo.add_entry("py", {"command": "uvx", "args": [f"{TOP}==1.0.0"], "env": {"UV_DEFAULT_INDEX": index.url}})
    pin_on_main(git_repo, environ)
    assert _versions(git_repo)[DEP] == "1.0.1"
    index.files[DEP] = [f for f in index.files[DEP] if index.versions[f] != "1.0.1"]
    nightly = git_repo.run("update", "--fresh", env=environ)
    assert nightly.exit_code == 0, nightly.output
    assert _versions(git_repo)[DEP] == "1.0.0", nightly.output
    report = check_pull_request(git_repo, environ, "Re-pin to today's resolution (mcp-lock update --fresh)")
    assert report["exit_code"] == 1, report["output"]
    (blocking,) = [f for f in report["findings"] if f["rule"] == "tree-changed-since-base"]
    said = [d for d in blocking["details"] if d.startswith("not confirmed as a re-pin:")]
    assert said and f"{DEP}@1.0.1" in said[0], blocking["details"]
    assert "tree-repinned" not in rules(report)
