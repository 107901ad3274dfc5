"""No repository git config runs: fsmonitor, filter drivers and the like are off for every git call, and an
embedded git directory in the scanned tree is refused rather than taken for the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner.vcs.safe_git import open_repository

from .gitrepo import GitRepo, cli, git

COMMANDS = [
    ("check", "--repo", ".", "--offline", "--base", "main"),
    ("log", "--repo", "."),
    ("semver", "--repo", ".", "--base", "v1", "--quiet"),
]


def marker_command(marker: Path) -> str:
    return f"touch {marker}; false"


@pytest.fixture
def pinned(tmp_path: Path) -> GitRepo:
    """A repository pinning one fixture server, tagged v1, with one more commit on top."""
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("a", "a")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin a")
    git(repo.top, "tag", "v1")
    repo.write("README.md", "more\n")
    repo.commit("More")
    return repo


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_the_repository_config_runs_nothing(
    pinned: GitRepo, tmp_path: Path, command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    git(pinned.top, "config", "core.fsmonitor", marker_command(marker))
    git(pinned.top, "config", "filter.evil.clean", marker_command(marker))
    git(pinned.top, "config", "filter.evil.process", marker_command(marker))
    pinned.write(".gitattributes", "* filter=evil\n")
    pinned.write("a/spec.json", (pinned.root / "a" / "spec.json").read_text(encoding="utf-8") + "\n")  # dirty
    monkeypatch.chdir(pinned.root)
    result = cli(*command)
    assert result.exit_code in (0, 1), result.output
    assert not marker.exists(), f"{command[0]} ran the repository's git config"


def embed_git_dir(folder: Path, marker: Path) -> None:
    """What a hostile pull request can commit: a bare repository's files, with its own history, in `folder`."""
    git(folder, "init", "-q", "--bare", "-b", "main", ".")
    git(folder, "config", "core.bare", "false")
    git(folder, "config", "core.worktree", str(folder))
    git(folder, "--git-dir=.", "--work-tree=.", "-c", "core.fsmonitor=false", "add", ".mcp.json", "mcp-lock.json")
    git(folder, "--git-dir=.", "--work-tree=.", "-c", "core.fsmonitor=false", "commit", "-q", "-m", "forged base")
    git(folder, "--git-dir=.", "tag", "v1")
    git(folder, "config", "core.fsmonitor", marker_command(marker))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_embedded_git_directory_is_refused_and_never_run(
    tmp_path: Path, command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "top", "srv")
    repo.add_in_dir("a", "a")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin a")
    marker = tmp_path / "ran"
    embed_git_dir(repo.root, marker)
    monkeypatch.chdir(repo.root)  # what action.yml runs for `working-directory: srv`
    result = cli(*command)
    assert result.exit_code == 2, result.output
    assert "is a git directory (HEAD, objects, refs) that is not a .git: refusing to use it" in result.output
    assert not marker.exists()


def test_every_git_process_sees_the_neutral_settings(pinned: GitRepo, tmp_path: Path) -> None:
    git(pinned.top, "config", "core.fsmonitor", "touch x")
    git(pinned.top, "config", "filter.lfs-like.smudge", "touch y")
    git(pinned.top, "config", "diff.pretty.textconv", "touch z")
    repo = open_repository(pinned.top)
    assert repo.git.config("--get", "core.fsmonitor") == "false"
    assert repo.git.config("--get", "core.hooksPath") == "/dev/null"
    assert repo.git.config("--get", "filter.lfs-like.smudge") == ""
    assert repo.git.config("--get", "diff.pretty.textconv") == ""
    assert repo.git.config("--get", "safe.bareRepository") == "explicit"
    assert repo.git.var("GIT_PAGER") == "cat"
