"""Every package of a launch's tree that changes is screened, wherever it sits: behind an unchanged top-level
package, a pull request that re-pins the tree to a dependency release published an hour ago, or one that runs a
postinstall script, fails `check --base` naming the dependency and the package that pulls it in; a transitive
MAL- advisory is critical and names its parent. The same screens are one function of (old tree, new tree), which
`check --fresh` calls. On a loopback npm registry and a loopback OSV API."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from vcs.gitrepo import GitRepo

from artifacts.npm_registry import Registry, integrity
from artifacts.osv_server import OSV, advisory
from scanner.artifacts.tree_paths import tree_paths
from scanner.install.packages import tree_record
from scanner.lock.document import render
from scanner.lock.reader import parse
from scanner.run.release_check import screen_tree_change
from scanner.run.workspace import open_workspace

TOP, MID, DEP = "artifact-probe", "probe-middle", "probe-leaf"
# npm installs a dependency under its parent's folder when the top of node_modules holds another version:
# the install path alone says which package pulls it in (lockfile format 3 records no edges).
LEAF_PATH = f"node_modules/{MID}/node_modules/{DEP}"


def npm_tree(registry: Registry, leaf: str) -> dict[str, Any]:
    def record(path: str, name: str, version: str) -> dict[str, Any]:
        found = {"path": path, "name": name, "version": version}
        data = registry.packages[name][version]
        return {**found, "integrity": integrity(data)}

    return tree_record("npm", [
        record(f"node_modules/{TOP}", TOP, "1.0.0"),
        record(f"node_modules/{MID}", MID, "2.0.0"),
        record(f"node_modules/{DEP}", DEP, "9.0.0"),  # another version at the top: not what MID requires
        record(LEAF_PATH, DEP, leaf),
    ])


def pin_tree(repo: GitRepo, registry: Registry, leaf: str) -> None:
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    tree = npm_tree(registry, leaf)
    top = next(p for p in tree["packages"] if p["name"] == TOP)
    lock.servers["probe"].artifact = {"type": "npm", "name": TOP, "version": "1.0.0", "integrity": top["integrity"]}
    lock.servers["probe"].tree = tree
    repo.lock_path.write_text(render(lock), encoding="utf-8")


@pytest.fixture
def repin(tmp_path: Path, npm_registry: Registry) -> GitRepo:
    """Server `probe` pins TOP 1.0.0 whose MID 2.0.0 pulls in DEP 1.0.0 (all 60 days old) on main; the branch
    `feature` is checked out."""
    npm_registry.publish(TOP, "1.0.0", "top", days_ago=60)
    npm_registry.publish(MID, "2.0.0", "middle", days_ago=60)
    npm_registry.publish(DEP, "9.0.0", "leaf nine", days_ago=60)
    npm_registry.publish(DEP, "1.0.0", "leaf one", days_ago=60)
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("probe", "probe")
    assert repo.run("lock").exit_code == 0
    pin_tree(repo, npm_registry, "1.0.0")
    repo.commit("Pin probe with its tree")
    repo.branch("feature")
    return repo


def check(repo: GitRepo, registry: Registry, tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "report.json"
    done = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out), *extra,
                    env={"npm_config_registry": registry.url})
    return done.exit_code, json.loads(out.read_text())["findings"]


def named(finding: dict[str, Any], rule: str) -> None:
    assert finding["rule"] == rule and finding["subject"] == f"{DEP}@1.0.1", finding
    assert f"npm {DEP}@1.0.1 (pulled in by {MID}@2.0.0" in finding["message"]
    assert f"in the tree: {MID}@2.0.0 → {DEP}@1.0.1" in finding["details"]


def test_a_dependency_released_an_hour_ago_fails_naming_it_and_its_parent(
    repin: GitRepo, npm_registry: Registry, tmp_path: Path
) -> None:
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=1 / 24)
    pin_tree(repin, npm_registry, "1.0.1")
    repin.commit("Re-pin probe: the leaf moved")
    code, found = check(repin, npm_registry, tmp_path)
    (young,) = [f for f in found if f["rule"] == "release-too-young"]
    assert code == 1 and young["severity"] == "high" and young["category"] == "supply-chain"
    named(young, "release-too-young")
    step = next(d for d in young["details"] if d.startswith("next step"))
    assert "keep the tree pinned before" in step and f"{DEP}@1.0.0" in step
    assert f"a version of {MID}@2.0.0 that does not pull it in" in step and f"tool: {DEP}@1.0.1" in step


def test_a_dependency_moving_to_a_release_with_a_postinstall_fails_naming_its_parent(
    repin: GitRepo, npm_registry: Registry, tmp_path: Path
) -> None:
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=30, scripts={"postinstall": "node steal.js"})
    pin_tree(repin, npm_registry, "1.0.1")
    repin.commit("Re-pin probe: the leaf moved")
    code, found = check(repin, npm_registry, tmp_path)
    (added,) = [f for f in found if f["rule"] == "install-script-added"]
    assert code == 1
    named(added, "install-script-added")
    assert f"which {DEP}@1.0.0 did not" in added["message"]
    assert not [f for f in found if f["rule"] == "release-too-young"]


def test_a_transitive_malicious_release_is_critical_naming_its_parent(
    repin: GitRepo, npm_registry: Registry, osv_api: OSV, tmp_path: Path
) -> None:
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=30)
    osv_api.advisories.append(advisory("MAL-2026-4242", "npm", DEP, ["1.0.1"], summary="Malicious code in leaf"))
    pin_tree(repin, npm_registry, "1.0.1")
    repin.commit("Re-pin probe: the leaf moved")
    code, found = check(repin, npm_registry, tmp_path, "--advisories", osv_api.url)
    (malicious,) = [f for f in found if f["rule"] == "known-advisory"]
    assert code == 1 and malicious["severity"] == "critical"
    assert f"npm {DEP}@1.0.1 (pulled in by {MID}@2.0.0" in malicious["message"]
    assert f"in the tree: {MID}@2.0.0 → {DEP}@1.0.1" in malicious["details"]
    step = next(d for d in malicious["details"] if d.startswith("next step"))
    assert f"or a version of {MID}@2.0.0 that does not pull it in" in step


def test_the_screen_of_two_trees_is_one_function(
    tmp_path: Path, npm_registry: Registry, osv_api: OSV
) -> None:
    """What `check --fresh` calls with the pinned tree and the fresh resolution."""
    for name, version in ((TOP, "1.0.0"), (MID, "2.0.0"), (DEP, "9.0.0"), (DEP, "1.0.0")):
        npm_registry.publish(name, version, f"{name} {version}", days_ago=60)
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=1 / 24, hasInstallScript=True)
    osv_api.advisories.append(advisory("MAL-2026-1", "npm", DEP, ["1.0.1"]))
    (tmp_path / "repo").mkdir()
    workspace = open_workspace(tmp_path / "repo", None, {"npm_config_registry": npm_registry.url})
    old, new = npm_tree(npm_registry, "1.0.0"), npm_tree(npm_registry, "1.0.1")
    found = screen_tree_change(workspace, "probe", old, new, TOP, advisories=osv_api.url)
    assert sorted((f.rule.id, f.subject) for f in found) == [
        ("install-script-added", f"{DEP}@1.0.1"), ("known-advisory", "MAL-2026-1"),
        ("release-too-young", f"{DEP}@1.0.1"),
    ]
    assert all(f"pulled in by {MID}@2.0.0" in f.message for f in found)
    assert next(f for f in found if f.rule.id == "known-advisory").effective_severity == "critical"
    # A first pin is screened for advisories, not for its age or its install scripts.
    first = screen_tree_change(workspace, "probe", None, new, TOP, advisories=osv_api.url)
    assert [f.rule.id for f in first] == ["known-advisory"]
    # The same tree again: nothing new, nothing asked.
    asked = len(npm_registry.served)
    assert screen_tree_change(workspace, "probe", new, new, TOP, advisories=osv_api.url) == []
    assert len(npm_registry.served) == asked


def test_a_license_that_changes_between_versions_is_a_note(
    tmp_path: Path, npm_registry: Registry
) -> None:
    for name, version in ((TOP, "1.0.0"), (MID, "2.0.0"), (DEP, "9.0.0")):
        npm_registry.publish(name, version, f"{name} {version}", days_ago=60)
    npm_registry.publish(DEP, "1.0.0", "leaf one", days_ago=60, license="MIT")
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=30, license="BUSL-1.1")
    (tmp_path / "repo").mkdir()
    workspace = open_workspace(tmp_path / "repo", None, {"npm_config_registry": npm_registry.url})
    found = screen_tree_change(workspace, "probe", npm_tree(npm_registry, "1.0.0"), npm_tree(npm_registry, "1.0.1"),
                               TOP, now=datetime.datetime.now(datetime.UTC))
    (note,) = found
    assert note.rule.id == "license-changed" and not note.blocking and note.effective_severity == "info"
    assert "'BUSL-1.1'" in note.message and f"{DEP}@1.0.0 was licensed 'MIT'" in note.message


def test_the_path_comes_from_recorded_edges_when_the_tree_has_them() -> None:
    """Hoisted packages: only the edges (each record's `dependencies`) say who pulls them in; without edges the
    chain says it is not known rather than guessing."""
    records = [
        {"path": "node_modules/top", "name": "top", "version": "1.0.0", "dependencies": {"a": "^1"}},
        {"path": "node_modules/a", "name": "a", "version": "1.2.0", "dependencies": {"b": "^2"}},
        {"path": "node_modules/b", "name": "b", "version": "2.0.0", "dependencies": {}},
        {"path": "node_modules/a/node_modules/c", "name": "c", "version": "3.0.0"},
    ]
    paths = tree_paths({"manager": "npm", "packages": records}, "top")
    assert paths["node_modules/b"].shown("b@2.0.0") == "top@1.0.0 → a@1.2.0 → b@2.0.0"
    assert paths["node_modules/top"].pulled_in_by("top@1.0.0") is None
    assert paths["node_modules/a/node_modules/c"].parent() == "a@1.2.0"  # not reached by an edge: its folder
    bare = [{k: v for k, v in r.items() if k != "dependencies"} for r in records]
    unknown = tree_paths({"manager": "npm", "packages": bare}, "top")["node_modules/b"]
    assert not unknown.known and "records no dependency edges" in (unknown.pulled_in_by("b@2.0.0") or "")


def test_an_ignore_entry_at_the_base_accepts_the_dependency_version_it_names_and_no_other(
    tmp_path: Path, npm_registry: Registry
) -> None:
    from scanner.lock.canonical import digest

    for name, version in ((TOP, "1.0.0"), (MID, "2.0.0"), (DEP, "9.0.0"), (DEP, "1.0.0")):
        npm_registry.publish(name, version, f"{name} {version}", days_ago=60)
    npm_registry.publish(DEP, "1.0.1", "leaf two", days_ago=1 / 24)
    npm_registry.publish(DEP, "1.0.2", "leaf three", days_ago=1 / 24)
    accepted = digest({"rule": "release-too-young", "package": ["npm", DEP, "1.0.1"]})
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("probe", "probe")
    repo.write("mcp-lock.yaml", (f"ignore:\n  - rule: release-too-young\n    server: probe\n    tool: {DEP}@1.0.1\n"
                                 f"    digest: {accepted}\n    reason: reviewed the leaf's 1.0.1 diff\n"))
    assert repo.run("lock").exit_code == 0
    pin_tree(repo, npm_registry, "1.0.0")
    repo.commit("Pin probe with its tree, and accept leaf 1.0.1")
    repo.branch("feature")
    pin_tree(repo, npm_registry, "1.0.1")
    repo.commit("Re-pin: leaf 1.0.1")
    code, found = check(repo, npm_registry, tmp_path)
    (young,) = [f for f in found if f["rule"] == "release-too-young"]
    assert young["suppression"] == "reviewed the leaf's 1.0.1 diff"
    # What still blocks is the tree itself: a re-pin under an unchanged launch is unreviewed until merged
    # (tree-changed-since-base, scanner/vcs/tree_review.py), not the accepted age.
    blocking = {f["rule"] for f in found if f.get("blocking") and not f.get("suppression")}
    assert code == 1 and blocking == {"tree-changed-since-base"}, found
    pin_tree(repo, npm_registry, "1.0.2")
    repo.commit("Re-pin: leaf 1.0.2")
    code, found = check(repo, npm_registry, tmp_path)
    (young,) = [f for f in found if f["rule"] == "release-too-young"]
    assert code == 1 and young["subject"] == f"{DEP}@1.0.2" and not young.get("suppression")
