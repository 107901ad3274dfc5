"""The nightly re-pin pull request is reviewable (issue 35 items 3 and 6): behind an unchanged launch, a tree
record that is exactly what the launch resolves to now (what `mcp-lock update --fresh` writes) passes
`check --base`, listed package by package (`tree-repinned`), booted in the sandbox without the secret until
merged. A record that is not what the launch resolves to (a dependency swapped for an npm alias posing as it,
with a valid digest) still blocks as `tree-changed-since-base`, and the secret reaches neither. On a loopback
npm registry; the copied record of another server is tests/vcs/test_tree_review.py's attack, which still blocks."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry, integrity

from scanner.install.packages import tree_record
from scanner.lock.document import render
from scanner.lock.reader import parse

from .exfil import Listener, canary, check_pull_request, pin_on_main, reporting, rules
from .gitrepo import GitRepo

TOP, DEP, EVIL = "mcp-rr-top", "mcp-rr-dep", "mcp-rr-evil"


@pytest.fixture
def repinned(tmp_path: Path, listener: Listener, npm_registry: Registry) -> tuple[GitRepo, dict[str, str], str]:
    """`demo` (top 1.0.0 → dep ^1.0.0, given the secret) pinned on main; dep then publishes 1.0.1 (30 days
    ago: the screens pass it), and the branch holds what the nightly job's `update --fresh` writes."""
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    npm_registry.publish(DEP, "1.0.0", "dep one", days_ago=60)
    npm_registry.publish(EVIL, "1.0.0", "evil", days_ago=60)
    npm_registry.publish(TOP, "1.0.0", reporting(listener, "top"), dependencies={DEP: "^1.0.0"}, days_ago=60)
    (tmp_path / "npm-cache").mkdir()
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store"),
               "SOME_SECRET": secret}
    env = {"npm_config_registry": npm_registry.url, "T": "${SOME_SECRET}"}
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{TOP}@1.0.0"], "env": env})
    pin_on_main(repo, environ)
    assert f"ran top {secret}" in listener.text()  # the reviewed launch got its secret
    npm_registry.publish(DEP, "1.0.1", "dep two", days_ago=30)
    listener.received.clear()
    # Even where the secret is set, `update --fresh` boots today's tree without it: nobody reviewed that tree.
    nightly = repo.run("update", "--fresh", env=environ)
    assert nightly.exit_code == 0, nightly.output
    assert f"{DEP}: 1.0.0 → 1.0.1" in nightly.output, nightly.output
    assert "ran top" in listener.text() and secret not in listener.text(), listener.text()
    listener.received.clear()
    return repo, environ, secret


def test_an_honest_re_pin_passes_check_base_with_its_listing(
    repinned: tuple[GitRepo, dict[str, str], str], listener: Listener
) -> None:
    repo, environ, secret = repinned
    report = check_pull_request(repo, environ, "Re-pin to today's resolution (mcp-lock update --fresh)")
    assert report["exit_code"] == 0, report["output"]
    assert "tree-changed-since-base" not in rules(report), report["output"]
    (listing,) = [f for f in report["findings"] if f["rule"] == "tree-repinned"]
    assert listing["server"] == "demo" and not listing["blocking"], listing
    assert "0 added, 0 removed, 1 changed" in listing["message"], listing
    assert f"{DEP}: 1.0.0 → 1.0.1" in listing["details"], listing
    assert "secrets-withheld" in rules(report, "demo")  # booted as a bump is, until merged
    assert "ran top" in listener.text() and secret not in listener.text(), listener.text()


def test_a_re_pin_with_an_alias_posing_as_the_dependency_still_blocks(
    repinned: tuple[GitRepo, dict[str, str], str], listener: Listener, npm_registry: Registry
) -> None:
    repo, environ, secret = repinned
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    tree = lock.servers["demo"].tree
    assert tree is not None
    evil = integrity(npm_registry.packages[EVIL]["1.0.0"])
    posing = [{**p, "name": EVIL, "version": "1.0.0", "integrity": evil} if p.get("name") == DEP else p
              for p in tree["packages"]]
    lock.servers["demo"] = dataclasses.replace(lock.servers["demo"], tree=tree_record("npm", posing))
    repo.lock_path.write_text(render(lock), encoding="utf-8")
    report = check_pull_request(repo, environ, "Re-pin demo")
    assert report["exit_code"] == 1, report["output"]
    (blocking,) = [f for f in report["findings"] if f["rule"] == "tree-changed-since-base"]
    assert blocking["server"] == "demo" and blocking["blocking"], blocking
    assert any(d.startswith("not a re-pin: the launch resolves to another tree today") for d in blocking["details"])
    assert "tree-repinned" not in rules(report)
    assert secret not in listener.text(), listener.text()
