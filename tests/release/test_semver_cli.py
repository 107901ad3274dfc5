"""`mcp-lock semver` end to end: a tagged release pinned in git, a real SDK server that drifts, the gate's verdict."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_repo import FIXTURES, base_spec
from vcs.gitrepo import GitRepo, git

RAW_SERVER = FIXTURES / "servers" / "raw_server.py"


@pytest.fixture
def released(tmp_path: Path) -> GitRepo:
    """Server `notes` (version 1.0.0, spec in notes/) pinned and tagged v1.0.0."""
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("Release 1.0.0")
    git(repo.top, "tag", "v1.0.0")
    return repo


def release(repo: GitRepo, version: str, change: Any = None, folder: str = "notes") -> dict[str, Any]:
    spec = json.loads((repo.root / folder / "spec.json").read_text(encoding="utf-8"))
    spec["version"] = version
    if change is not None:
        change(spec)
    repo.write(f"{folder}/spec.json", json.dumps(spec))
    repo.commit(f"Release {version}")
    return spec


def semver(repo: GitRepo, *args: str) -> dict[str, Any]:
    out = repo.top.parent / "semver.json"
    result = repo.run("semver", *args, "--json", str(out))
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"findings": []}
    data["exit_code"], data["output"] = result.exit_code, result.output
    return data


def by_rule(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["rule"] == rule]


def remove_list_notes(spec: dict[str, Any]) -> None:
    spec["tools"] = [t for t in spec["tools"] if t["name"] != "list_notes"]


def add_optional_tag(spec: dict[str, Any]) -> None:
    spec["tools"][0]["inputSchema"]["properties"]["tag"] = {"type": "string"}


def test_a_removed_tool_released_as_a_patch_fails_and_says_major(released: GitRepo) -> None:
    release(released, "1.0.1", remove_list_notes)
    report = semver(released)
    assert report["exit_code"] == 1, report["output"]
    [finding] = by_rule(report, "version-bump-too-small")
    assert finding["server"] == "notes" and finding["severity"] == "high"
    assert "1.0.0 → 1.0.1 is a patch bump" in finding["message"]
    assert "require a major bump" in finding["message"] and "v1.0.0" in finding["message"]
    assert "needs major: tool `list_notes` was removed [definition-removed]" in finding["details"]


def test_the_same_removal_released_as_a_major_passes(released: GitRepo) -> None:
    release(released, "2.0.0", remove_list_notes)
    report = semver(released)
    assert report["exit_code"] == 0, report["output"]
    assert report["findings"] == []
    assert "notes: 1.0.0 → 2.0.0: a major bump; required: major (1 change)" in report["output"]


def test_an_added_optional_parameter_released_as_a_patch_needs_minor(released: GitRepo) -> None:
    release(released, "1.0.1", add_optional_tag)
    report = semver(released)
    assert report["exit_code"] == 1, report["output"]
    [finding] = by_rule(report, "version-bump-too-small")
    assert finding["severity"] == "medium" and "require a minor bump" in finding["message"]
    assert any("/properties/tag" in d and "[property-added-optional]" in d for d in finding["details"])
    release(released, "1.1.0")
    assert semver(released)["exit_code"] == 0


def test_a_cosmetic_edit_is_a_patch_and_a_new_sentence_a_minor(released: GitRepo) -> None:
    def typo(spec: dict[str, Any]) -> None:
        spec["tools"][1]["description"] = "list every note."

    release(released, "1.0.1", typo)
    assert semver(released)["exit_code"] == 0

    def sentence(spec: dict[str, Any]) -> None:
        spec["instructions"] += " Always list the notes first."

    release(released, "1.0.2", sentence)
    report = semver(released)
    assert report["exit_code"] == 1
    [finding] = by_rule(report, "version-bump-too-small")
    assert any("the server's instructions" in d and "[text-sentence-added]" in d for d in finding["details"])


def test_below_one_a_minor_bump_carries_a_break_and_a_patch_bump_does_not(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    spec = base_spec()
    spec["version"] = "0.3.1"
    repo.add_in_dir("notes", "notes", spec)
    assert repo.run("lock").exit_code == 0
    repo.commit("Release 0.3.1")
    git(repo.top, "tag", "v0.3.1")
    release(repo, "0.3.2", remove_list_notes)
    report = semver(repo)
    assert report["exit_code"] == 1
    [finding] = by_rule(report, "version-bump-too-small")
    assert "is a minor bump (below 1.0.0: Cargo's rule)" in finding["message"]
    release(repo, "0.4.0")
    assert semver(repo)["exit_code"] == 0
    # An addition fits in 0.y.(z+1): it counts as minor.
    git(repo.top, "tag", "v0.4.0")
    release(repo, "0.4.1", add_optional_tag)
    assert semver(repo)["exit_code"] == 0


def test_no_tag_is_a_usage_error(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin")
    result = repo.run("semver")
    assert result.exit_code == 2
    assert "no tag with a version in its name" in result.output and "--base REF" in result.output


def test_base_names_any_ref(released: GitRepo) -> None:
    first = git(released.top, "rev-parse", "HEAD")
    release(released, "1.0.1", remove_list_notes)
    assert released.run("update").exit_code == 0
    released.commit("Re-pin 1.0.1")
    git(released.top, "tag", "v1.0.1")  # HEAD's own tag: nothing changed since it
    assert semver(released, "--base", "v1.0.1")["exit_code"] == 0
    assert semver(released, "--base", first)["exit_code"] == 1
    assert semver(released, "--base", "no-such-ref")["exit_code"] == 2


def test_a_version_that_is_not_semver_is_a_finding(released: GitRepo) -> None:
    release(released, "v1.1", add_optional_tag)
    report = semver(released)
    assert report["exit_code"] == 1, report["output"]
    [finding] = by_rule(report, "version-not-semver")
    assert "v1.1" in finding["message"] and "live is not a semantic version" in finding["message"]
    assert "require a minor bump" in finding["message"]
    assert not by_rule(report, "version-bump-too-small")


def test_the_manifest_version_must_match_what_the_server_reports(released: GitRepo) -> None:
    released.write("notes/package.json", json.dumps({"name": "notes", "version": "1.0.0"}, indent=2))
    release(released, "1.1.0", add_optional_tag)
    report = semver(released)
    assert report["exit_code"] == 1, report["output"]
    [finding] = by_rule(report, "version-mismatch")
    assert "reports version 1.1.0, but notes/package.json version is 1.0.0" in finding["message"]
    assert finding["location"] == {"file": "notes/package.json", "line": 3}
    released.write("notes/package.json", json.dumps({"name": "notes", "version": "1.1.0"}))
    released.write("notes/pyproject.toml", '[tool.poetry]\nname = "notes"\nversion = "1.1.0"\n')
    assert semver(released)["exit_code"] == 0


def test_formats_and_fail_on_apply(released: GitRepo) -> None:
    release(released, "1.0.1", add_optional_tag)  # needs minor: a medium finding
    assert released.run("semver", "--fail-on", "high").exit_code == 0
    out = released.top.parent / "semver.sarif"
    assert released.run("semver", "--format", "sarif", "--output", str(out)).exit_code == 1
    [result] = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["results"]
    # A medium finding of a rule whose default is high: filed under the rule's medium variant.
    assert result["ruleId"] == "version-bump-too-small/medium" and result["level"] == "warning"
    assert result["properties"]["rule"] == "version-bump-too-small"
    github = released.run("semver", "--format", "github")
    assert "version-bump-too-small" in github.output


def test_named_servers_only(released: GitRepo) -> None:
    spec = copy.deepcopy(base_spec())
    released.add_in_dir("other", "other", spec)
    released.commit("Declare other")
    release(released, "1.0.1", remove_list_notes)
    report = semver(released, "notes")
    assert report["exit_code"] == 1
    assert released.run("semver", "missing").exit_code == 2


def test_a_missing_server_version_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    behaviour = repo.root / "raw.json"
    tools = [{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}]
    behaviour.write_text(json.dumps({"serverInfo": {"name": "raw"}, "pages": [tools]}), encoding="utf-8")
    repo.add_entry("raw", {"command": sys.executable, "args": [str(RAW_SERVER), "raw.json"]})
    assert repo.run("lock").exit_code == 0
    repo.commit("Release")
    git(repo.top, "tag", "v1.0.0")
    report = semver(repo, "--base", "v1.0.0")  # HEAD's own tag, named: compared with itself
    assert report["exit_code"] == 1, report["output"]
    [finding] = by_rule(report, "version-not-semver")
    assert "(none) → (none)" in finding["message"]
    assert "at v1.0.0 and live is not a semantic version" in finding["message"]
