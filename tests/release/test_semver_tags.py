"""Which release `semver` compares with: release tags chosen by version (not ancestry), in a repository that tags
several packages, the first release after adoption, and HEAD's own tag."""

from __future__ import annotations

from pathlib import Path

import pytest
from vcs.gitrepo import GitRepo, git

from release.test_semver_cli import add_optional_tag, release, remove_list_notes, semver
from scanner.release.tags import parse_tag


def test_tag_names_are_read_as_prefix_and_version() -> None:
    cases = {
        "v1.2.3": ("", (1, 2, 3), False),
        "2025.4.24": ("", (2025, 4, 24), False),
        "mcp-server-git/v0.6.2": ("mcp-server-git/", (0, 6, 2), False),
        "@modelcontextprotocol/server-time@2025.8.4": ("@modelcontextprotocol/server-time@", (2025, 8, 4), False),
        "release-1.2.0-rc.1": ("release-", (1, 2, 0), True),
    }
    for name, (prefix, numbers, pre) in cases.items():
        tag = parse_tag(name, "0" * 40)
        assert tag is not None, name
        assert (tag.prefix, tag.numbers, tag.prerelease) == (prefix, numbers, pre), name
    for name in ("latest", "docs-2024-x", "nightly", "v1.2.3.4.5"):
        assert parse_tag(name, "0" * 40) is None, name


def test_versions_sort_as_numbers_and_a_release_after_its_candidates() -> None:
    names = ["v1.10.0", "v1.9.0", "v1.10.0-rc.1", "v1.2.0"]
    tags = sorted((parse_tag(n, "0" * 40) for n in names), key=lambda t: t.order)  # type: ignore[union-attr]
    assert [t.name for t in tags] == ["v1.2.0", "v1.9.0", "v1.10.0-rc.1", "v1.10.0"]


@pytest.fixture
def monorepo(tmp_path: Path) -> GitRepo:
    """`notes` released as notes/v1.0.0 on main and as notes/v1.1.0 on a release branch never merged back;
    another package's tag other/v9.0.0 is the newest tag reachable from main."""
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("notes 1.0.0")
    git(repo.top, "tag", "notes/v1.0.0")
    repo.branch("release-1.1")
    release(repo, "1.1.0", add_optional_tag)
    assert repo.run("update").exit_code == 0
    repo.commit("Pin notes 1.1.0")
    git(repo.top, "tag", "-a", "-m", "notes 1.1.0", "notes/v1.1.0")
    git(repo.top, "checkout", "-q", "main")
    repo.write("README.md", "other package\n")
    repo.commit("other 9.0.0")
    git(repo.top, "tag", "other/v9.0.0")
    return repo


def test_a_tag_pattern_chooses_the_highest_version_not_the_nearest_ancestor(monorepo: GitRepo) -> None:
    # On main, the notes server is at 1.1.1 with the optional parameter 1.1.0 added: a patch over notes/v1.1.0,
    # which is not an ancestor of main (`git describe` would pick other/v9.0.0, then notes/v1.0.0).
    release(monorepo, "1.1.1", add_optional_tag)
    report = semver(monorepo, "--tag-pattern", "notes/*")
    assert report["exit_code"] == 0, report["output"]
    assert "compared with notes/v1.1.0" in report["output"]
    assert "notes: 1.1.0 → 1.1.1: a patch bump; required: none (no surface change)" in report["output"]
    # Against the same base, removing a tool in a patch fails.
    release(monorepo, "1.1.2", lambda spec: (add_optional_tag(spec), remove_list_notes(spec)))
    report = semver(monorepo, "--tag-pattern", "notes/*")
    assert report["exit_code"] == 1, report["output"]
    assert "since notes/v1.1.0 require a major bump" in report["findings"][0]["message"]


def test_tags_of_several_packages_without_a_pattern_are_ambiguous(monorepo: GitRepo) -> None:
    result = monorepo.run("semver")
    assert result.exit_code == 2, result.output
    assert "tags are of several packages" in result.output
    assert "'notes/*'" in result.output and "'other/*'" in result.output
    nothing = monorepo.run("semver", "--tag-pattern", "mcp-server-git/*")
    assert nothing.exit_code == 2 and "no tag matching 'mcp-server-git/*'" in nothing.output
    both = monorepo.run("semver", "--tag-pattern", "notes/*", "--base", "notes/v1.0.0")
    assert both.exit_code == 2 and "not both" in both.output


def test_the_first_release_after_adoption_passes_with_a_note(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    repo.commit("notes 1.0.0, before mcp-lock")
    git(repo.top, "tag", "v1.0.0")
    release(repo, "1.1.0", remove_list_notes)
    assert repo.run("lock").exit_code == 0
    repo.commit("Adopt mcp-lock")
    report = semver(repo)
    assert report["exit_code"] == 0, report["output"]
    assert "mcp-lock.json does not exist at v1.0.0" in report["output"]
    assert "first release since mcp-lock was adopted" in report["output"]
    # The release after it is compared with its lock.
    git(repo.top, "tag", "v1.1.0")
    release(repo, "1.1.1", add_optional_tag)
    report = semver(repo)
    assert report["exit_code"] == 1 and "compared with v1.1.0" in report["output"]


def test_head_carrying_the_newest_tag_is_compared_with_the_release_before(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("notes 1.0.0")
    first = semver(repo)  # nothing tagged yet
    assert first["exit_code"] == 2 and "no tag with a version" in first["output"]
    git(repo.top, "tag", "v1.0.0")
    only = semver(repo)  # HEAD carries the only tag: a first release
    assert only["exit_code"] == 0 and "no earlier release is tagged" in only["output"]
    release(repo, "1.0.1", remove_list_notes)
    assert repo.run("update").exit_code == 0
    repo.commit("Pin 1.0.1")
    git(repo.top, "tag", "v1.0.1")  # a tag push: the gate runs on the tagged commit
    report = semver(repo)
    assert report["exit_code"] == 1, report["output"]
    assert "HEAD is tagged v1.0.1 (the release being cut)" in report["output"]
    assert "compared with v1.0.0" in report["output"]
    itself = semver(repo, "--base", "v1.0.1")
    assert itself["exit_code"] == 0
    assert "is HEAD itself: nothing can have changed since it" in itself["output"]
