"""Git problems are one line and exit code 2: no work tree, an unknown ref, a shallow clone."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repo import Repo

from .gitrepo import GitRepo, cli, git


def one_line_error(output: str, *fragments: str) -> None:
    lines = [line for line in output.splitlines() if line.startswith("mcp-lock: error:")]
    assert len(lines) == 1, output
    assert "Traceback" not in output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def origin(tmp_path: Path) -> GitRepo:
    """main: pin a, then one more commit; feature: branched at the pin, two commits of its own."""
    repo = GitRepo(tmp_path / "origin")
    repo.add_in_dir("a", "a")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin a")
    repo.branch("feature")
    repo.write("a/package.json", "{}\n")
    repo.commit("Add a manifest")
    repo.write("a/notes.txt", "x\n")
    repo.commit("Notes")
    git(repo.top, "checkout", "-q", "main")
    repo.write("README.md", "main moves on\n")
    repo.commit("Main moves on")
    return repo


def clone(origin: GitRepo, dest: Path, *args: str) -> GitRepo:
    git(dest.parent, "clone", "-q", *args, f"file://{origin.top}", str(dest))
    repo = GitRepo.__new__(GitRepo)
    Repo.__init__(repo, dest)
    repo.top = dest
    return repo


@pytest.mark.parametrize("command", [("check", "--base", "main", "--offline"), ("log",)])
def test_outside_a_git_work_tree(repo: Repo, command: tuple[str, ...]) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    args = [*command[:1], "--repo", str(repo.root), *command[1:]]
    result = cli(*args)
    assert result.exit_code == 2
    one_line_error(result.output, "not inside a git work tree")


def test_an_unknown_ref(origin: GitRepo) -> None:
    result = origin.run("check", "--base", "no-such-branch", "--offline")
    assert result.exit_code == 2
    one_line_error(result.output, "unknown git ref 'no-such-branch'")
    assert "fetch-depth" not in result.output  # not shallow: no hint about it


def test_a_shallow_clone_without_the_base_commit(origin: GitRepo, tmp_path: Path) -> None:
    base = git(origin.top, "rev-parse", "main")
    shallow = clone(origin, tmp_path / "shallow", "--depth", "1", "--branch", "feature")
    result = shallow.run("check", "--base", base, "--offline")
    assert result.exit_code == 2
    one_line_error(result.output, "unknown git ref", "shallow", "fetch-depth: 0")


def test_a_shallow_clone_missing_the_merge_base(origin: GitRepo, tmp_path: Path) -> None:
    shallow = clone(origin, tmp_path / "shallow", "--depth", "1", "--no-single-branch", "--branch", "feature")
    result = shallow.run("check", "--base", "origin/main", "--offline")
    assert result.exit_code == 2
    one_line_error(result.output, "no merge base of origin/main and HEAD", "fetch-depth: 0")


def test_a_full_clone_finds_the_merge_base(origin: GitRepo, tmp_path: Path) -> None:
    full = clone(origin, tmp_path / "full", "--branch", "feature")
    result = full.run("check", "--base", "origin/main", "--offline")
    assert result.exit_code == 0, result.output
    assert "dependency-changed" in result.output and "a/package.json" in result.output


def test_unrelated_histories(origin: GitRepo) -> None:
    git(origin.top, "checkout", "-q", "--orphan", "island")
    origin.commit("Unrelated root")
    result = origin.run("check", "--base", "main", "--offline")
    assert result.exit_code == 2
    one_line_error(result.output, "share no history")


def test_log_of_an_unknown_server(origin: GitRepo) -> None:
    result = origin.log("nobody/add_note")
    assert result.exit_code == 2
    one_line_error(result.output, "no server named 'nobody'")
