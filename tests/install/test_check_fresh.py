"""Issue 35, item 6: `check --fresh` resolves what each pinned launch would install today and names every
package that would change (old → new), screening the new releases; an unpinned `npx -y pkg` included."""

from __future__ import annotations

from artifacts.npm_registry import Registry
from fixture_repo import Repo

from install.demo_npm import declare, lock_top_and_dep

TOP, DEP = "mcp-fr-top", "mcp-fr-dep"


def test_a_new_in_range_transitive_release_is_named_and_screened(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP)
    quiet = repo.run("check", "--fresh", env=npm_env)
    assert quiet.exit_code == 0 and "none would change" in quiet.output, quiet.output
    npm_registry.publish(DEP, "1.0.1", "dependency two: published a minute ago")
    pinned = repo.lock_path.read_text(encoding="utf-8")
    fresh = repo.run("check", "--fresh", env=npm_env)
    assert fresh.exit_code == 1, fresh.output
    assert "tree-would-change" in fresh.output and f"{DEP}: 1.0.0 → 1.0.1" in fresh.output, fresh.output
    assert "release-too-young" in fresh.output and f"{DEP}@1.0.1" in fresh.output  # the new release is screened
    assert f"/{DEP}/-/{DEP}-1.0.1.tgz" not in npm_registry.served  # resolved, never downloaded or run
    assert repo.lock_path.read_text(encoding="utf-8") == pinned
    refused = repo.run("update", "--fresh", env=npm_env)  # the same screen: too young to pin
    assert refused.exit_code == 1 and "not written" in refused.output, refused.output
    assert repo.lock_path.read_text(encoding="utf-8") == pinned
    (repo.root / "mcp-lock.yaml").write_text("min-release-age: 0\n", encoding="utf-8")
    update = repo.run("update", "--fresh", env=npm_env)
    assert update.exit_code == 0, update.output
    assert f"{DEP}: 1.0.0 → 1.0.1" in update.output  # exactly what it accepts
    assert repo.run("check", "--fresh", env=npm_env).exit_code == 0


def test_an_unpinned_npx_launch_is_resolved_as_today(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=30)
    declare(repo, npm_registry, TOP)
    assert repo.run("lock", env=npm_env).exit_code == 0
    npm_registry.publish(TOP, "1.1.0", "top two", days_ago=30)
    fresh = repo.run("check", "--fresh", env=npm_env)
    assert fresh.exit_code == 1 and f"{TOP}: 1.0.0 → 1.1.0" in fresh.output, fresh.output
