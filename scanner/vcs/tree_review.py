"""The tree is part of the review: under `check --base`, each pin whose launch is the one pinned at the merge
base must record the tree the base recorded for it.

`launch.tree` decides what boots (the store entry of that tree, or what the tree installs), and its digest
covers only its own packages, so a record copied from another server verifies, and so does a record that is
simply gone (the launch then installs whatever resolves). A pull request that changes, copies in or drops the
record of a launch it did not change is therefore a launch the base never reviewed: scanner.run.withhold boots it
without its secrets (the pull request's tree, in the sandbox), and each such record is a blocking
`tree-changed-since-base` finding listing every package that differs (scanner.diff.tree_listing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scanner.diff.tree_listing import tree_lines, tree_summary
from scanner.lock.lockfile import Lockfile, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule


@dataclass
class TreeReview:
    findings: list[Finding] = field(default_factory=list)
    unreviewed: dict[str, str] = field(default_factory=dict)  # server key -> why its tree is not the reviewed one


def review_trees(base: Lockfile | None, current: Lockfile, label: str) -> TreeReview:
    """Every pin of `current` whose launch is as pinned at the base `label` but whose tree record is not.
    No base lock: nothing is reviewed there, which scanner.run.withhold already says of every launch."""
    review = TreeReview()
    if base is None:
        return review
    for key in sorted(base.servers.keys() & current.servers.keys()):
        was, now = base.servers[key], current.servers[key]
        if launch_diff(was.launch, now.launch) is not None or was.tree == now.tree:
            continue  # a changed launch is unreviewed as such, and its tree is listed with its re-pin
        if now.tree is None:
            why = f"its tree record (launch.tree) was dropped since the merge base {label}"
            where = pointer("servers", key, "launch")
        elif was.tree is None:
            why = f"it records a tree the merge base {label} did not"
            where = pointer("servers", key, "launch", "tree")
        else:
            why = f"its recorded tree differs from the one recorded at the merge base {label}"
            where = pointer("servers", key, "launch", "tree")
        review.unreviewed[key] = why
        message = (
            f"{key}: {why}: {tree_summary(was.tree, now.tree)}; its launch did not change, but the tree decides "
            "what boots, so it booted without its secrets"
        )
        details = tree_lines(was.tree, now.tree)[1:] + _digests(was.tree, now.tree)
        found = Finding(rule("tree-changed-since-base"), key, message, LockLocation(where), details=details)
        review.findings.append(found)
    return review


def _digests(old: dict | None, new: dict | None) -> list[str]:
    before = (old or {}).get("digest") or "none"
    after = (new or {}).get("digest") or "none"
    return [f"tree digest: {before} → {after}"]
