"""Issue 35, item 8: `update` lists the tree change it accepts (a version bump's included), and refuses a
release whose bytes changed under the same version until an `ignore:` entry bound to that package, version and
content acknowledges it."""

from __future__ import annotations

import re

from artifacts.npm_registry import Registry
from fixture_repo import Repo

from install.demo_npm import declare, lock_top_and_dep

TOP, DEP, BUILDER = "mcp-up-top", "mcp-up-dep", "mcp-up-builder"


def test_a_bump_lists_its_tree_change_new_install_scripts_first(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP, "1.0.0")
    npm_registry.publish(DEP, "1.1.0", "dependency two", days_ago=30)
    scripts = {"postinstall": "echo built > built.txt"}
    npm_registry.publish(BUILDER, "1.0.0", "builder", scripts=scripts, hasInstallScript=True, days_ago=30)
    npm_registry.publish(TOP, "2.0.0", "top two", dependencies={DEP: "1.1.0", BUILDER: "1.0.0"}, days_ago=30)
    declare(repo, npm_registry, f"{TOP}@2.0.0")
    update = repo.run("update", "demo", env=npm_env)
    assert update.exit_code == 0, update.output
    lines = [line.strip() for line in update.output.splitlines()]
    summary = "accepted demo: dependency tree: 1 added, 0 removed, 2 changed, 1 new install script (2 → 3 packages)"
    start = lines.index(summary)
    assert lines[start + 1 : start + 5] == [
        f"new install script: {BUILDER}@1.0.0 (added)",
        f"added {BUILDER}@1.0.0",
        f"{DEP}: 1.0.0 → 1.1.0",
        f"{TOP}: 1.0.0 → 2.0.0",
    ], update.output


def test_update_refuses_other_bytes_under_the_same_version_until_acknowledged(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    lock_top_and_dep(repo, npm_registry, npm_env, TOP, DEP, "1.0.0")
    pinned = repo.lock_path.read_text(encoding="utf-8")
    npm_registry.publish(DEP, "1.0.0", "dependency one, re-published with other code", days_ago=30)
    # A plain `update` keeps the recorded tree (installed from the store): the re-publish is met by --fresh.
    refused = repo.run("update", "--fresh", "demo", env=npm_env)
    assert refused.exit_code != 0, refused.output
    assert "not written" in refused.output and f"{DEP}@1.0.0" in refused.output, refused.output
    assert repo.lock_path.read_text(encoding="utf-8") == pinned  # nothing accepted
    digest = re.search(r"digest: (sha256:[0-9a-f]{64})", refused.output)
    assert digest is not None and "rule: package-content-changed" in refused.output, refused.output
    (repo.root / "mcp-lock.yaml").write_text(
        "ignore:\n  - rule: package-content-changed\n    server: demo\n"
        f"    tool: \"{DEP}@1.0.0\"\n    digest: {digest[1]}\n    reason: reviewed the mirror's rebuild\n",
        encoding="utf-8",
    )
    accepted = repo.run("update", "--fresh", "demo", env=npm_env)
    assert accepted.exit_code == 0, accepted.output
    assert repo.lock_path.read_text(encoding="utf-8") != pinned
    assert "same version, other content" in accepted.output
