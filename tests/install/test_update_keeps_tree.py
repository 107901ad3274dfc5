"""Issue 35, item 2 for `update`: a launch as pinned keeps the tree its lock records. A dependency publishing
a new in-range release does not move the tree under a plain `update` (no packument asked, no tarball of the
new release fetched: the recorded tree is installed, from the store); moving it is `update --fresh`'s job. A
changed launch (a bump) is resolved as it installs today."""

from __future__ import annotations

from pathlib import Path

from artifacts.npm_registry import Registry
from fixture_repo import Repo

from install.demo_npm import declare, lock_top_and_dep

TOP, DEP = "mcp-uk-top", "mcp-uk-dep"


def versions(repo: Repo) -> dict[str, str]:
    return {p["name"]: p["version"] for p in repo.lock_json()["servers"]["demo"]["launch"]["tree"]["packages"]}


def test_update_of_an_unchanged_launch_keeps_its_tree_and_only_update_fresh_moves_it(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP)
    pinned = repo.lock_path.read_text(encoding="utf-8")
    npm_registry.publish(DEP, "1.0.1", "dependency two: in range, published overnight", days_ago=30)
    npm_registry.served.clear()
    kept = repo.run("update", env=npm_env)
    assert kept.exit_code == 0, kept.output
    assert versions(repo) == {TOP: "1.0.0", DEP: "1.0.0"}, kept.output
    assert repo.lock_path.read_text(encoding="utf-8") == pinned
    assert DEP not in npm_registry.served, npm_registry.served  # its packument was never asked
    assert not [path for path in npm_registry.served if path.endswith(f"{DEP}-1.0.1.tgz")]
    assert "demo: unchanged" in kept.output, kept.output
    moved = repo.run("update", "--fresh", env=npm_env)
    assert moved.exit_code == 0, moved.output
    assert versions(repo) == {TOP: "1.0.0", DEP: "1.0.1"}, moved.output
    assert f"{DEP}: 1.0.0 → 1.0.1" in moved.output


def test_a_cold_update_installs_the_recorded_tree_not_today_s(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    """An empty store (a fresh runner, a new clone): the recorded tree is downloaded, never today's resolution."""
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP)
    npm_registry.publish(DEP, "1.0.1", "dependency two", days_ago=30)
    npm_registry.served.clear()
    cold = {**npm_env, "MCP_LOCK_STORE": str(tmp_path / "cold-store")}
    kept = repo.run("update", env=cold)
    assert kept.exit_code == 0, kept.output
    assert versions(repo) == {TOP: "1.0.0", DEP: "1.0.0"}
    assert not [path for path in npm_registry.served if path.endswith(f"{DEP}-1.0.1.tgz")], npm_registry.served


def test_a_bumped_launch_is_resolved_as_today(repo: Repo, npm_registry: Registry, npm_env: dict[str, str]) -> None:
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP)
    npm_registry.publish(DEP, "1.0.1", "dependency two", days_ago=30)
    npm_registry.publish(TOP, "1.1.0", "top two", dependencies={DEP: "^1.0.0"}, days_ago=30)
    declare(repo, npm_registry, f"{TOP}@1.1.0")
    bumped = repo.run("update", env=npm_env)
    assert bumped.exit_code == 0, bumped.output
    assert versions(repo) == {TOP: "1.1.0", DEP: "1.0.1"}, bumped.output
