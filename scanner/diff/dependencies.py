"""The dependency tree a launch runs, pinned against live: every package added, removed or changed behind an
unchanged launch, and a release whose content changed under the same version."""

from __future__ import annotations

from scanner.install.packages import tree_changes
from scanner.lock.lockfile import ServerPin, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import PACKAGE_CONTENT_CHANGED, TREE_CHANGED, TREE_UNRECORDED

MAX_NAMED = 20  # packages named in the message; the details list every one


def tree_findings(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    """`tree-changed` naming each package, `package-content-changed` for a same-version release with another
    digest; behind a changed launch (`launch-changed` blocks) the tree is the new launch's, not a finding."""
    old, new = pinned.tree, live.tree
    where = LockLocation(pointer("servers", key, "launch", "tree"))
    if new is None or old == new or launch_diff(pinned.launch, live.launch) is not None:
        return []
    if old is None:
        installed = _count(new)
        message = (
            f"{key}: the lock records no dependency tree; this run installed {installed}"
            f" (`mcp-lock update {key}` records it)"
        )
        return [Finding(TREE_UNRECORDED, key, message, where)]
    if old.get("manager") != new.get("manager"):
        return []
    changes = tree_changes(old, new)
    if not changes and old.get("digest") != new.get("digest"):
        return []  # the same packages recorded another way (an older writer): nothing ran differently
    findings: list[Finding] = []
    content = [c for c in changes if c.kind == "content"]
    for change in content:
        message = f"{key}: {change.line()}"
        findings.append(Finding(PACKAGE_CONTENT_CHANGED, key, message, where, subject=change.key))
    moved = [c for c in changes if c.kind != "content"]
    if moved:
        named = ", ".join(c.line() for c in moved[:MAX_NAMED]) + (
            f" and {len(moved) - MAX_NAMED} more" if len(moved) > MAX_NAMED else ""
        )
        message = f"{key}: the dependency tree behind the same launch changed: {named}"
        details = [c.line() for c in moved] + [f"tree digest: {old.get('digest')} → {new.get('digest')}"]
        findings.append(Finding(TREE_CHANGED, key, message, where, details=details))
    return findings


def _count(tree: dict) -> str:
    packages = len(tree.get("packages") or [])
    return f"{packages} package{'s' if packages != 1 else ''}"
