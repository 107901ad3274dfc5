"""What `update` accepts of a launch's tree, and what it refuses to accept.

Every re-pin whose tree changed says so where the reviewer reads it (the counts, then each package added,
removed or changed, new install scripts first: scanner.diff.tree_listing), a version bump included: the tree of
a bumped launch is new code as much as the launched package is. A release whose bytes changed under the same
version (`package-content-changed`, critical) is refused like a detector finding: a registry does not re-publish
a version, so the lock is not rewritten until an `ignore:` entry acknowledges that package at that version with
those bytes (its digest covers the package's record: name, version, integrity).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from scanner.diff.tree_listing import tree_lines
from scanner.install.packages import tree_changes
from scanner.lock.canonical import digest
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import PACKAGE_CONTENT_CHANGED
from scanner.policy.suppression import Audit, apply_ignores, today_utc
from scanner.run.workspace import Workspace


def accepted_tree_lines(key: str, old: ServerPin, live: ServerPin) -> list[str]:
    """The message lines of the tree change a re-pin of `key` accepts; none when the tree is the same (or the
    run recorded none: the pin keeps no tree to compare)."""
    if live.tree is None or old.tree == live.tree:
        return []
    if old.tree is None:
        return [f"accepted {key}: {tree_lines(None, live.tree)[0]}"]
    if old.tree.get("manager") != live.tree.get("manager"):
        return [f"accepted {key}: dependency tree now installed by {live.tree.get('manager')}"]
    summary, *packages = tree_lines(old.tree, live.tree)
    if not packages:
        return []  # the same packages recorded another way
    return [f"accepted {key}: dependency tree: {summary}", *("    " + line for line in packages)]


def content_findings(key: str, old: ServerPin, live: ServerPin) -> list[Finding]:
    """A critical `package-content-changed` for each package the re-pin would record at a version the old tree
    held with other bytes; each bound to `NAME@VERSION` and the digest of its new record, for an `ignore:`."""
    if old.tree is None or live.tree is None or old.tree.get("manager") != live.tree.get("manager"):
        return []
    findings: list[Finding] = []
    for change in tree_changes(old.tree, live.tree):
        if change.kind != "content" or change.new is None:
            continue
        subject = f"{change.new.get('name')}@{change.new.get('version')}"
        message = f"{key}: {change.line()}; `update` does not accept it unacknowledged"
        where = LockLocation(pointer("servers", key, "launch", "tree"))
        findings.append(
            Finding(PACKAGE_CONTENT_CHANGED, key, message, where, subject=subject, digest=digest(dict(change.new)))
        )
    return findings


def refused_content(workspace: Workspace, findings: Sequence[Finding], servers: Collection[str]) -> list[Finding]:
    """The `package-content-changed` findings on re-pinned servers that no `ignore:` entry acknowledges."""
    judged = apply_ignores(findings, workspace.policy.ignores, Audit(), today_utc())
    return [
        f
        for f in judged
        if f.rule.id == PACKAGE_CONTENT_CHANGED.id and f.suppression is None and f.server in servers
    ]
