"""Issue 37, item 1 on the freshness path: every package that `check --fresh` or `update --fresh` would bring
is screened wherever it sits in the tree. Behind an unchanged `npx -y top@1.0.0`, whose `mid` pulls in three
leaves: one released an hour ago, one that newly runs a postinstall script, one malicious (a MAL- advisory on
the loopback OSV API). `check --fresh` fails naming each leaf and the package that pulls it in; `update --fresh`
screens the same packages and does not write the lock while they fail. On a loopback npm registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from artifacts.npm_registry import Registry
from artifacts.osv_server import OSV, advisory
from fixture_repo import Repo

TOP, MID = "mcp-fs-top", "mcp-fs-mid"
YOUNG, SCRIPTED, EVIL = "mcp-fs-young", "mcp-fs-scripted", "mcp-fs-evil"
LEAVES = (YOUNG, SCRIPTED, EVIL)


@pytest.fixture
def pinned(repo: Repo, npm_registry: Registry, npm_env: dict[str, str]) -> dict[str, str]:
    """`demo` pins top 1.0.0 → mid 2.0.0 → the three leaves at 1.0.0 (all 60 days old); each leaf then
    publishes an in-range 1.0.1."""
    for leaf in LEAVES:
        npm_registry.publish(leaf, "1.0.0", f"{leaf} one", days_ago=60)
    npm_registry.publish(MID, "2.0.0", "middle", dependencies={leaf: "^1.0.0" for leaf in LEAVES}, days_ago=60)
    npm_registry.publish(TOP, "1.0.0", "top", dependencies={MID: "^2.0.0"}, days_ago=60)
    env = npm_env
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{TOP}@1.0.0"],
                            "env": {"npm_config_registry": npm_registry.url}})
    locked = repo.run("lock", env=env)
    assert locked.exit_code == 0, locked.output
    npm_registry.publish(YOUNG, "1.0.1", "young: published an hour ago", days_ago=1 / 24)
    npm_registry.publish(SCRIPTED, "1.0.1", "scripted", days_ago=30, scripts={"postinstall": "echo ran"},
                         hasInstallScript=True)
    npm_registry.publish(EVIL, "1.0.1", "evil", days_ago=30)
    return env


def named(finding: dict[str, Any], leaf: str) -> None:
    assert f"npm {leaf}@1.0.1 (pulled in by {MID}@2.0.0" in finding["message"], finding
    assert any(d == f"in the tree: {TOP}@1.0.0 → {MID}@2.0.0 → {leaf}@1.0.1" for d in finding["details"]), finding


def test_check_fresh_screens_every_transitive_release_naming_its_parent(
    repo: Repo, npm_registry: Registry, osv_api: OSV, pinned: dict[str, str], tmp_path: Path
) -> None:
    osv_api.advisories.append(advisory("MAL-2026-7777", "npm", EVIL, ["1.0.1"], summary="Malicious code"))
    out = tmp_path / "fresh.json"
    fresh = repo.run("check", "--fresh", "--advisories", osv_api.url, "--format", "json", "--output", str(out),
                     env=pinned)
    assert fresh.exit_code == 1, fresh.output
    found = json.loads(out.read_text(encoding="utf-8"))["findings"]
    by_rule = {(f["rule"], f["subject"]): f for f in found}
    young = by_rule["release-too-young", f"{YOUNG}@1.0.1"]
    named(young, YOUNG)
    script = by_rule["install-script-added", f"{SCRIPTED}@1.0.1"]
    named(script, SCRIPTED)
    malicious = by_rule["known-advisory", "MAL-2026-7777"]
    assert malicious["severity"] == "critical"
    named(malicious, EVIL)
    assert not [f for f in found if f["rule"] == "release-too-young" and f["subject"] != f"{YOUNG}@1.0.1"]
    assert "tree-would-change" in {f["rule"] for f in found}


def test_update_fresh_screens_what_it_would_pin_and_writes_nothing_while_it_fails(
    repo: Repo, npm_registry: Registry, osv_api: OSV, pinned: dict[str, str]
) -> None:
    osv_api.advisories.append(advisory("MAL-2026-7777", "npm", EVIL, ["1.0.1"], summary="Malicious code"))
    before = repo.lock_path.read_text(encoding="utf-8")
    # The OSV source as the CI sets it for every command ($MCP_LOCK_ADVISORIES, or `update --advisories`).
    update = repo.run("update", "--fresh", env={**pinned, "MCP_LOCK_ADVISORIES": osv_api.url})
    assert update.exit_code == 1, update.output
    assert repo.lock_path.read_text(encoding="utf-8") == before, update.output
    assert "not written" in update.output and "release screens" in update.output, update.output
    for leaf in LEAVES:
        assert f"{leaf}@1.0.1 (pulled in by {MID}@2.0.0" in update.output, update.output
    assert "release-too-young" in update.output and "install-script-added" in update.output
    assert "MAL-2026-7777" in update.output
