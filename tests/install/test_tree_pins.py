"""The tree a pin records: how `log` and `check --base` show a re-pin's tree change, and how it round-trips."""

from __future__ import annotations

import dataclasses

import pytest

from scanner.artifacts.inventory import pin_packages
from scanner.install.npm_record import npm_tree
from scanner.lock.canonical import tree_digest
from scanner.lock.document import render
from scanner.lock.lockfile import Lockfile, LockfileError, ServerPin
from scanner.lock.reader import parse
from scanner.vcs.pins import lock_changes
from scanner.vcs.weakened import weakenings

LAUNCH = {"transport": "stdio", "command": "npx", "args": ["-y", "top@1.0.0"], "env": {}}


def tree(dep_version: str, dep_integrity: str = "sha512-BBBB") -> dict:
    return npm_tree({"packages": {
        "node_modules/top": {"version": "1.0.0", "integrity": "sha512-AAAA"},
        "node_modules/dep": {"version": dep_version, "integrity": dep_integrity},
    }})


def server(packages: dict | None) -> ServerPin:
    pin = ServerPin(
        declarations=[{"file": ".mcp.json", "client": "claude-code", "name": "top"}],
        launch=dict(LAUNCH),
        protocol_version="2025-06-18",
        server_info={"name": "top", "version": "1.0.0"},
        capabilities={},
        instructions=None,
        tree=packages,
    )
    pin.digest = pin.surface_digest()
    return pin


def test_a_repin_shows_every_package_its_tree_changed() -> None:
    old, new = Lockfile(servers={"s": server(tree("1.0.0"))}), Lockfile(servers={"s": server(tree("1.0.1"))})
    (change,) = lock_changes(old, new)
    assert change.change == "tree-changed" and change.severity == "high"
    assert change.details == ["dep: 1.0.0 → 1.0.1"] and change.pointer == "/servers/s/launch/tree"
    (republished,) = lock_changes(
        Lockfile(servers={"s": server(tree("1.0.0"))}), Lockfile(servers={"s": server(tree("1.0.0", "sha512-CCCC"))})
    )
    assert republished.severity == "critical"
    (recorded,) = lock_changes(Lockfile(servers={"s": server(None)}), Lockfile(servers={"s": server(tree("1.0.0"))}))
    assert recorded.message == "tree recorded: 2 packages"


def test_the_tree_round_trips_as_format_4_and_a_wrong_digest_is_refused() -> None:
    lock = Lockfile(servers={"s": server(tree("1.0.0"))})
    text = render(lock)
    assert '"lockfileVersion": 4' in text and '"format": 4' in text
    assert parse(text, canonical=True).servers["s"].tree == tree("1.0.0")
    forged = dataclasses.replace(lock.servers["s"], tree={**tree("1.0.1"), "digest": tree("1.0.0")["digest"]})
    with pytest.raises(LockfileError, match="tree digest does not match its packages"):
        parse(render(Lockfile(servers={"s": forged})), canonical=True)


def test_every_package_of_the_tree_is_in_the_inventory_the_screens_read() -> None:
    pin = server(tree("1.0.0"))
    pin.artifact = {"type": "npm", "name": "top", "version": "1.0.0", "integrity": "sha512-AAAA"}
    listed = pin_packages("s", pin)
    assert [(str(p.package), p.direct, p.digest) for p in listed] == [
        ("npm dep@1.0.0", False, "sha512-BBBB"),
        ("npm top@1.0.0", True, "sha512-AAAA"),
    ]
    assert listed[0].location == "/servers/s/launch/tree/packages/0"


def format_3(record: dict) -> dict:
    """The same tree as a format 3 lock recorded it: no `format`, the digest over manager and packages only."""
    packages = [{k: p[k] for k in ("path", "name", "version", "integrity")} for p in record["packages"]]
    return {"manager": "npm", "digest": tree_digest("npm", packages), "packages": packages}


def test_a_format_3_tree_still_reads_and_a_format_4_record_needs_format_4() -> None:
    old = format_3(tree("1.0.0"))
    text = render(Lockfile(servers={"s": server(old)}))
    assert '"lockfileVersion": 3' in text and parse(text, canonical=True).servers["s"].tree == old
    lowered = render(Lockfile(servers={"s": server(tree("1.0.0"))})).replace(
        '"lockfileVersion": 4', '"lockfileVersion": 3'
    )
    with pytest.raises(LockfileError, match="schema"):
        parse(lowered, canonical=True)


def test_a_change_that_lowers_one_servers_tree_record_is_lock_weakened_for_that_server() -> None:
    """One server's tree dropped, another's lowered to format 3, a third kept: two findings, one per server."""
    base = Lockfile(version=4, servers={k: server(tree("1.0.0")) for k in ("dropped", "lowered", "kept")})
    current = Lockfile(version=4, servers={
        "dropped": server(None), "lowered": server(format_3(tree("1.0.0"))), "kept": server(tree("1.0.0")),
    })
    found = weakenings(base, current, {"dropped", "lowered", "kept"}, "mcp-lock.json", "main")
    assert sorted(f.server for f in found) == ["dropped", "lowered"] and {f.rule.id for f in found} == {"lock-weakened"}
    messages = {f.server: f.message for f in found}
    assert "launch.tree from its pin" in messages["dropped"] and "launch.tree.format 4" in messages["lowered"]


def _bumped_tree(dep_version: str, dep_integrity: str, range_: str) -> dict:
    return npm_tree({"packages": {
        "node_modules/top": {"version": "1.0.0", "integrity": "sha512-AAAA", "license": "MIT",
                             "dependencies": {"dep": range_}, "bin": {"top": "cli.js"}},
        "node_modules/dep": {"version": dep_version, "integrity": dep_integrity, "license": "ISC",
                             "dependencies": {"leaf": "^1.0.0"}},
        "node_modules/leaf": {"version": "1.0.0", "integrity": "sha512-LLLL"},
    }})


def test_a_dependency_bump_is_a_few_whole_package_lines_of_the_lock_diff() -> None:
    """Issue 35 item 1, readable: each package of a format 4 tree on one line (SPEC section 4), so the diff of a
    bump is the bumped package's line, its parent's (the edge moved) and the tree's digest, each line naming
    the package whole."""
    import difflib

    old = render(Lockfile(servers={"s": server(_bumped_tree("1.0.0", "sha512-BBBB", "^1.0.0"))}))
    new = render(Lockfile(servers={"s": server(_bumped_tree("2.0.0", "sha512-CCCC", "^2.0.0"))}))
    changed = [line for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(changed) == 6, changed  # dep's and top's lines, and the tree digest, each removed and added
    packages = [line for line in changed if '"path": ' in line]
    assert len(packages) == 4
    assert all('"name": ' in line and '"version": ' in line for line in packages)
    assert any('"path": "node_modules/dep"' in line and '"version": "2.0.0"' in line for line in packages)
    assert parse(new, canonical=True).servers["s"].tree == _bumped_tree("2.0.0", "sha512-CCCC", "^2.0.0")
