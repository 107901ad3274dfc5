"""The nightly re-pin pull request is reviewable (issue 35 items 3 and 6): behind an unchanged launch, a tree
record that is exactly what the launch resolved to when the record was made (what `mcp-lock update --fresh`
writes) passes `check --base`, listed package by package (`tree-repinned`), booted in the sandbox without the
secret until merged, even where a dependency published an in-range release between the nightly run and the
check (the review resolves as of the newest release the record pins, dated by the base's registry). A record
that is not what the launch resolved to (a dependency swapped for an npm alias posing as it, with a valid
digest), or that pins releases older than those it replaces (a downgrade, even one that is what resolves
today), still blocks as `tree-changed-since-base`, and the secret reaches none. On a loopback npm registry;
the copied record of another server is tests/vcs/test_tree_review.py's attack, which still blocks; the uv side
is tests/vcs/test_repin_review_uv.py."""

from __future__ import annotations

import dataclasses
import datetime
import shutil
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry, integrity

from scanner.install.packages import tree_record
from scanner.lock.document import render
from scanner.lock.reader import parse

from .exfil import Listener, canary, check_pull_request, pin_on_main, repinned_listing, reporting, rules
from .gitrepo import GitRepo

TOP, DEP, EVIL = "mcp-rr-top", "mcp-rr-dep", "mcp-rr-evil"


def _pinned_on_main(
    tmp_path: Path, listener: Listener, npm_registry: Registry
) -> tuple[GitRepo, dict[str, str], str]:
    """`demo` (top 1.0.0 → dep ^1.0.0, given the secret) pinned on main as the registry stands."""
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
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
    listener.received.clear()
    return repo, environ, secret


@pytest.fixture
def repinned(tmp_path: Path, listener: Listener, npm_registry: Registry) -> tuple[GitRepo, dict[str, str], str]:
    """`demo` pinned on main with dep 1.0.0; dep then publishes 1.0.1 (30 days ago: the screens pass it), and
    the branch holds what the nightly job's `update --fresh` writes."""
    npm_registry.publish(DEP, "1.0.0", "dep one", days_ago=60)
    repo, environ, secret = _pinned_on_main(tmp_path, listener, npm_registry)
    npm_registry.publish(DEP, "1.0.1", "dep two", days_ago=30)
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
    assert any(d.startswith("not a re-pin: the launch resolves to another tree as of") for d in blocking["details"])
    assert "tree-repinned" not in rules(report)
    assert secret not in listener.text(), listener.text()


def test_an_honest_re_pin_still_passes_after_a_dependency_publishes_overnight(
    repinned: tuple[GitRepo, dict[str, str], str], listener: Listener, npm_registry: Registry
) -> None:
    """The flaw: the review resolved today, so dep 1.0.2 published after the nightly run (in range, and npm's
    `latest`) made the honest record of 1.0.1 differ, and the re-pin pull request was red."""
    repo, environ, secret = repinned
    npm_registry.publish(DEP, "1.0.2", "dep three")  # after the nightly run, before the check
    report = check_pull_request(repo, environ, "Re-pin to today's resolution (mcp-lock update --fresh)")
    listing = repinned_listing(report, "demo")
    assert f"as of {_after(npm_registry.published[DEP]['1.0.1'])}" in listing["message"], listing
    assert f"({DEP}@1.0.1, published" in listing["message"], listing
    assert f"{DEP}: 1.0.0 → 1.0.1" in listing["details"], listing
    assert "ran top" in listener.text() and secret not in listener.text(), listener.text()


@pytest.fixture
def downgraded(tmp_path: Path, listener: Listener, npm_registry: Registry) -> tuple[GitRepo, dict[str, str], str]:
    """`demo` pinned on main with dep 1.0.1 (npm's `latest`); then dep's `latest` dist-tag is moved back to 1.0.0
    (a tag is not dated: no release is published), and the branch holds what `update --fresh` writes: 1.0.0."""
    npm_registry.publish(DEP, "1.0.0", "dep one", days_ago=60)
    npm_registry.publish(DEP, "1.0.1", "dep two", days_ago=30)
    repo, environ, secret = _pinned_on_main(tmp_path, listener, npm_registry)
    npm_registry.latest[DEP] = "1.0.0"
    nightly = repo.run("update", "--fresh", env=environ)
    assert nightly.exit_code == 0, nightly.output
    assert f"{DEP}: 1.0.1 → 1.0.0" in nightly.output, nightly.output
    listener.received.clear()
    return repo, environ, secret


def test_a_downgrade_posing_as_a_re_pin_blocks_even_where_it_is_what_resolves_today(
    downgraded: tuple[GitRepo, dict[str, str], str], listener: Listener
) -> None:
    """Resolving today agreed with the record (the tag points at 1.0.0 now), so the old review passed it: a
    pull request could move a reviewed launch back to a release the base had moved past."""
    repo, environ, secret = downgraded
    report = check_pull_request(repo, environ, "Re-pin to today's resolution (mcp-lock update --fresh)")
    assert report["exit_code"] == 1, report["output"]
    (blocking,) = [f for f in report["findings"] if f["rule"] == "tree-changed-since-base"]
    assert blocking["server"] == "demo" and blocking["blocking"], blocking
    said = [d for d in blocking["details"] if d.startswith("not confirmed as a re-pin: a downgrade")]
    assert said and f"{DEP}@1.0.0" in said[0] and f"older than {DEP}@1.0.1" in said[0], blocking["details"]
    assert "tree-repinned" not in rules(report)
    assert secret not in listener.text(), listener.text()


def _after(published: str) -> str:
    """The millisecond after a registry's publish time, as the review shows its cutoff."""
    moment = datetime.datetime.fromisoformat(published.replace("Z", "+00:00")) + datetime.timedelta(milliseconds=1)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
