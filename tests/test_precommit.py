"""The pre-commit hook manifest: valid, its `files` pattern covers discovery, and the hook gates a commit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fixture_repo import Repo

from scanner.sources import continuedev
from scanner.sources.discover import FIXED, WALKED, candidates

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}


def selected(path: str) -> bool:
    # pre-commit applies `files` with re.search to the repo-relative POSIX path.
    return re.search(hooks()["mcp-lock"]["files"], path) is not None


def test_manifest_validates() -> None:
    process = subprocess.run(
        [*PRE_COMMIT, "validate-manifest", str(MANIFEST)], capture_output=True, text=True, timeout=60
    )
    assert process.returncode == 0, process.stdout + process.stderr


def test_manifest_settings() -> None:
    offline, live = hooks()["mcp-lock"], hooks()["mcp-lock-live"]
    for hook in (offline, live):
        assert hook["entry"] == "mcp-lock"
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        assert hook["require_serial"] is True
        assert hook["minimum_pre_commit_version"] == "3.2.0"
        assert hook["files"] == offline["files"]
    assert offline["args"] == ["check", "--offline"]
    assert live["args"] == ["check"]
    assert live["stages"] == ["manual"]


def test_files_pattern_covers_every_discovered_path() -> None:
    paths = [
        "mcp-lock.json",
        "mcp-lock.yaml",
        *FIXED,
        *(f"{continuedev.FOLDER}/servers{suffix}" for suffix in continuedev.SUFFIXES),
        *WALKED,
        *(f"packages/deep/{name}" for name in WALKED),
    ]
    assert [p for p in paths if not selected(p)] == []


@pytest.mark.parametrize(
    "path",
    [
        "README.md",
        "src/app.py",
        ".vscode/launch.json",
        "docs/mcp.json",  # only .mcp.json and the clients' folders are read
        "x.mcp.json",
        ".continue/config.yaml",
        ".continue/mcpServers/nested/x.yaml",
        "mcp-lock.json.orig",
        "package.json",
    ],
)
def test_files_pattern_leaves_other_files_alone(path: str) -> None:
    assert not selected(path)


def test_files_pattern_matches_what_discovery_reads(tmp_path: Path) -> None:
    """Every file discovery picks up in a repo holding one of each is selected by the hook."""
    for rel in [*FIXED, f"{continuedev.FOLDER}/a.yaml", "server.json", "pkg/manifest.json", "gemini-extension.json"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}", encoding="utf-8")
    found = [rel for rel, _ in candidates(tmp_path)]
    assert len(found) == len(FIXED) + 4
    assert [rel for rel in found if not selected(rel)] == []


# --- end to end: `pre-commit try-repo` in a throwaway git repository ----------------------


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A committed copy of what `pip install .` needs (the working tree may hold uncommitted work,
    which try-repo would leave out), and one PRE_COMMIT_HOME shared by the cases, so the hook
    environment is built once."""
    base = tmp_path_factory.mktemp("hook")
    copy = base / "mcp-lock"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "scanner", copy / "scanner", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "hook repo")
    yield copy, base / "pre-commit-home"


def try_repo(hook: tuple[Path, Path], repo: Repo) -> subprocess.CompletedProcess[str]:
    copy, home = hook
    git(repo.root, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [*PRE_COMMIT, "try-repo", str(copy), "mcp-lock", "--all-files", "--verbose"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,  # catches a hang: building the hook's environment took more than 600 s at load 17-36
    )


def pinned_git_repo(repo: Repo) -> None:
    repo.add_stdio("notes")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    git(repo.root, "init", "-q")


@pytest.mark.network  # builds the hook's virtualenv from PyPI, as pre-commit does for users
@pytest.mark.slow
def test_hook_passes_on_a_pinned_unchanged_repo(hook_repo: tuple[Path, Path], repo: Repo) -> None:
    pinned_git_repo(repo)
    process = try_repo(hook_repo, repo)
    output = process.stdout + process.stderr
    assert process.returncode == 0, output
    assert "Passed" in output
    assert "ok: every declared server matches the lock" in output


@pytest.mark.network
@pytest.mark.slow
def test_hook_fails_on_a_version_bump_without_repin(hook_repo: tuple[Path, Path], repo: Repo) -> None:
    pinned_git_repo(repo)
    entry = repo.servers["notes"]
    repo.add_entry("notes", {**entry, "args": [*entry["args"], "--version=1.0.17"]})
    process = try_repo(hook_repo, repo)
    output = process.stdout + process.stderr
    assert process.returncode == 1, output
    assert "Failed" in output
    assert "notes: launch changed since it was pinned (args)" in output
