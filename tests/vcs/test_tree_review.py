"""Issue 35, item 3: the tree is part of the review. Under `check --base`, a launch whose recorded tree
(`launch.tree`) differs from the merge base's record for it is unreviewed: it boots without the runner's
secrets, and the difference is a blocking finding. The attacks: another server's record copied into a reviewed
launch (its digest is valid, and the store holds its entry: an npm alias posing as the real package), and a
record dropped while another server keeps its own. The control: a pull request that leaves the lock alone keeps
the secret."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry

from scanner.lock.document import render
from scanner.lock.reader import parse

from .exfil import Listener, canary, check_pull_request, pin_on_main, reporting, rules
from .gitrepo import GitRepo

REAL, EVIL, WRAPPER = "mcp-tr-real", "mcp-tr-evil", "mcp-tr-wrapper"


@pytest.fixture
def pinned(tmp_path: Path, listener: Listener, npm_registry: Registry) -> tuple[GitRepo, dict[str, str], str]:
    """Two servers pinned on main: `real` (given the secret) and `wrapper`, whose tree holds an npm alias that
    installs the evil package under the real one's name."""
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    npm_registry.publish(REAL, "1.0.0", reporting(listener, "real"), days_ago=30)
    npm_registry.publish(EVIL, "1.0.0", reporting(listener, "evil"), days_ago=30)
    npm_registry.publish(WRAPPER, "1.0.0", "wrapper", dependencies={REAL: f"npm:{EVIL}@1.0.0"}, days_ago=30)
    (tmp_path / "npm-cache").mkdir()
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {
        "SOME_SECRET": secret,
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "MCP_LOCK_STORE": str(tmp_path / "store"),
    }
    registry = {"npm_config_registry": npm_registry.url}
    secret_env = {**registry, "T": "${SOME_SECRET}"}
    repo.add_entry("real", {"command": "npx", "args": ["-y", f"{REAL}@1.0.0"], "env": secret_env})
    repo.add_entry("wrapper", {"command": "npx", "args": ["-y", f"{WRAPPER}@1.0.0"], "env": registry})
    pin_on_main(repo, environ)
    assert f"ran real {secret}" in listener.text()  # the reviewed launch got its secret
    listener.received.clear()
    return repo, environ, secret


def _edit_tree(repo: GitRepo, key: str, tree: dict | None) -> None:
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    lock.servers[key] = dataclasses.replace(lock.servers[key], tree=tree)
    repo.lock_path.write_text(render(lock), encoding="utf-8")


def test_a_tree_record_copied_from_another_server_is_withheld_and_blocks(
    pinned: tuple[GitRepo, dict[str, str], str], listener: Listener
) -> None:
    repo, environ, secret = pinned
    copied = parse(repo.lock_path.read_text(encoding="utf-8")).servers["wrapper"].tree
    assert copied is not None and any(p.get("name") == EVIL for p in copied["packages"])
    _edit_tree(repo, "real", copied)
    report = check_pull_request(repo, environ, "Record another tree for real")
    assert secret not in listener.text(), report["output"]
    assert report["exit_code"] == 1, report["output"]
    found = [f for f in report["findings"] if f["rule"] == "tree-changed-since-base" and f["server"] == "real"]
    assert len(found) == 1, report["output"]
    assert f"{REAL}: {REAL}@1.0.0 → {EVIL}@1.0.0 (another package)" in found[0]["details"], found[0]
    assert f"added {WRAPPER}@1.0.0" in found[0]["details"] and "1 added, 0 removed, 1 changed" in found[0]["message"]
    assert "secrets-withheld" in rules(report, "real")


def test_a_dropped_tree_record_is_withheld_and_blocks(
    pinned: tuple[GitRepo, dict[str, str], str], listener: Listener
) -> None:
    repo, environ, secret = pinned
    _edit_tree(repo, "real", None)
    report = check_pull_request(repo, environ, "Drop real's tree")
    assert secret not in listener.text(), report["output"]
    assert report["exit_code"] == 1, report["output"]
    found = [f for f in report["findings"] if f["rule"] == "tree-changed-since-base" and f["server"] == "real"]
    assert len(found) == 1 and "dropped" in found[0]["message"], report["output"]
    assert "secrets-withheld" in rules(report, "real")


def test_an_untouched_tree_keeps_its_secret(pinned: tuple[GitRepo, dict[str, str], str], listener: Listener) -> None:
    repo, environ, secret = pinned
    repo.write("README.md", "docs only\n")
    report = check_pull_request(repo, environ, "Docs")
    assert f"ran real {secret}" in listener.text(), report["output"]
    assert "tree-changed-since-base" not in rules(report) and report["exit_code"] == 0, report["output"]


# -- item 8: a bump's tree change where the reviewer reads it ------------------------------------------------

def test_a_bump_lists_its_tree_change_in_check_base_and_the_markdown_summary(
    tmp_path: Path, npm_registry: Registry
) -> None:
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    top, dep, builder = "mcp-tb-top", "mcp-tb-dep", "mcp-tb-builder"
    npm_registry.publish(dep, "1.0.0", "dependency one", days_ago=30)
    npm_registry.publish(top, "1.0.0", "top one", dependencies={dep: "1.0.0"}, days_ago=30)
    (tmp_path / "npm-cache").mkdir()
    environ = {"npm_config_cache": str(tmp_path / "npm-cache"), "MCP_LOCK_STORE": str(tmp_path / "store")}
    repo = GitRepo(tmp_path / "top")
    registry = {"npm_config_registry": npm_registry.url}
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{top}@1.0.0"], "env": registry})
    pin_on_main(repo, environ)
    npm_registry.publish(dep, "2.0.0", "dependency two", days_ago=30)
    scripts = {"postinstall": "echo built > built.txt"}
    npm_registry.publish(builder, "1.0.0", "builder", scripts=scripts, hasInstallScript=True, days_ago=30)
    npm_registry.publish(top, "2.0.0", "top two", dependencies={dep: "2.0.0", builder: "1.0.0"}, days_ago=30)
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{top}@2.0.0"], "env": registry})
    assert repo.run("update", "demo", env=environ).exit_code == 0
    report = check_pull_request(repo, environ, "Bump demo")
    (note,) = [f for f in report["findings"] if f["rule"] == "repin-accepted" and "dependency tree" in f["message"]]
    assert "1 added, 0 removed, 2 changed, 1 new install script (2 → 3 packages)" in note["message"], note
    assert note["details"][:2] == [f"new install script: {builder}@1.0.0 (added)", f"added {builder}@1.0.0"]
    assert f"{dep}: 1.0.0 → 2.0.0" in note["details"]
    summary = repo.run("check", "--base", "main", "--format", "markdown", env=environ).output
    assert "1 added, 0 removed, 2 changed" in summary and f"new install script: {builder}@1.0.0" in summary, summary
