"""An unpinned `npx -y` launch of a package from a loopback npm registry: what ran is pinned, and a new
release with the same tool surface and different code fails `check`, naming the artifact change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_repo import Repo

from artifacts.npm_registry import Registry

PACKAGE = "mcp-demo-artifact"


@pytest.fixture
def npx_env(tmp_path: Path) -> dict[str, str]:
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    cache = tmp_path / "npm-cache"
    cache.mkdir()
    return {"npm_config_cache": str(cache), "MCP_LOCK_STORE": str(tmp_path / "store")}


def declare(repo: Repo, registry: Registry) -> None:
    repo.add_entry("demo", {"command": "npx", "args": ["-y", PACKAGE], "env": {"npm_config_registry": registry.url}})


def test_a_new_release_behind_the_same_launch_never_boots_until_update_fresh_pins_it(
    repo: Repo, npm_registry: Registry, npx_env
) -> None:
    first = npm_registry.publish(PACKAGE, "1.0.0", "release one")
    declare(repo, npm_registry)
    lock = repo.run("lock", env=npx_env)
    assert lock.exit_code == 0, lock.output
    pinned = repo.lock_json()
    assert pinned["lockfileVersion"] == 4  # the tree is recorded too, whole
    assert pinned["servers"]["demo"]["launch"]["artifact"] == {
        "type": "npm", "name": PACKAGE, "version": "1.0.0", "integrity": first
    }
    assert repo.run("check", env=npx_env).exit_code == 0

    # A month old: `update --fresh` screens what it would pin, and refuses a release younger than the policy's age.
    second = npm_registry.publish(PACKAGE, "1.0.1", "release two: same tools, other code", days_ago=30)
    assert second != first
    # `check` boots the release the lock records, not what resolves today (that is `check --fresh`'s question).
    check = repo.run("check", env=npx_env)
    assert check.exit_code == 0, check.output
    assert f"{PACKAGE}/-/{PACKAGE}-1.0.1.tgz" not in npm_registry.served

    # A plain `update` keeps the recorded tree of a launch as pinned; moving it is `update --fresh`'s job.
    kept = repo.run("update", "demo", env=npx_env)
    assert kept.exit_code == 0, kept.output
    assert repo.lock_json()["servers"]["demo"]["launch"]["artifact"]["integrity"] == first
    update = repo.run("update", "--fresh", "demo", env=npx_env)
    assert update.exit_code == 0, update.output
    assert repo.lock_json()["servers"]["demo"]["launch"]["artifact"]["integrity"] == second
    assert repo.run("check", env=npx_env).exit_code == 0


def test_a_version_bump_report_names_the_artifact_each_side_ran(
    repo: Repo, npm_registry: Registry, npx_env, tmp_path: Path
) -> None:
    old = npm_registry.publish(PACKAGE, "1.0.0", "release one")
    new = npm_registry.publish(PACKAGE, "1.1.0", "release two")
    env = {"npm_config_registry": npm_registry.url}
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{PACKAGE}@1.0.0"], "env": env})
    assert repo.run("lock", env=npx_env).exit_code == 0
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{PACKAGE}@1.1.0"], "env": env})  # the bot's bump
    summary = tmp_path / "summary.md"
    check = repo.run("check", "--format", "markdown", "--output", str(summary), env=npx_env)
    assert check.exit_code == 1, check.output
    text = summary.read_text(encoding="utf-8")
    assert "launch-changed" in text and "artifact-bumped" in text  # what the PR comment shows
    assert f"{PACKAGE}@1.1.0" in text and f"{PACKAGE}@1.0.0" in text
    assert old in text and new in text
