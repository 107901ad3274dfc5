"""The nightly re-pin is reviewable: a tree record that moved behind an unchanged launch, and that is exactly
what that launch resolves to now, is what `mcp-lock update --fresh` writes, not a forged record.

scanner.vcs.tree_review makes every tree record that is not the base's a blocking `tree-changed-since-base`,
because `launch.tree` decides what boots and its digest covers only its own packages: a record copied from
another server, or an npm alias posing as the package, verifies. Yet a re-pin pull request changes the record
by construction. What tells them apart is the resolution itself: the launch, as declared at the merge base
(its registry settings, the base policy's `build-from-source`), is resolved again here through
scanner.run.fresh.resolve_today (the package manager's own resolution, in the sandbox, without any value from
outside the repository, no package code run). When it records exactly the pull request's tree, the record is
what the launch installs today: its blocking finding becomes a `tree-repinned` listing of every package that
moves. Everything else about an unreviewed tree stays: the server boots that tree in the sandbox without its
secrets until merged (scanner.run.withhold), and every moving package goes through the release screens
(scanner.run.release_check: age, install scripts, provenance, advisories), whose findings block on their own.
A record that differs in anything, a resolution that fails, or a dropped record stays blocking.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import anyio

from scanner.diff.tree_listing import tree_lines, tree_summary
from scanner.lock.lockfile import Lockfile
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule
from scanner.run.fresh import resolve_all
from scanner.run.workspace import Workspace
from scanner.sources.declarations import Server

CHANGED = "tree-changed-since-base"
REPINNED_WHY = (
    "its tree was re-pinned to what its launch resolves to today, which is not merged yet"
)


def confirm_repins(
    workspace: Workspace,
    unreviewed: dict[str, str],
    findings: list[Finding],
    base_servers: Mapping[str, Server],
    base: Lockfile | None,
    current: Lockfile,
    *,
    builds: frozenset[str],
    label: str,
) -> None:
    """Resolve each launch in `unreviewed` whose record may be a re-pin (both sides record a tree) as declared
    at the base; where today's resolution is exactly the change's record, replace its blocking finding in
    `findings` by a `tree-repinned` listing and say why in `unreviewed` (it still boots without secrets). Where
    not, the blocking finding says what the resolution found."""
    if base is None:
        return
    servers = [
        base_servers[key] for key in sorted(unreviewed)
        if key in base_servers and key in base.servers and current.servers[key].tree is not None
    ]
    if not servers:
        return
    today = anyio.run(resolve_all, servers, dict(workspace.environ), builds)
    for key, resolved in today.items():
        was, now = base.servers[key].tree, current.servers[key].tree
        assert now is not None
        blocking = [i for i, f in enumerate(findings) if f.rule.id == CHANGED and f.server == key]
        if resolved is not None and not isinstance(resolved, str) and resolved == now:
            unreviewed[key] = REPINNED_WHY
            for index in reversed(blocking):
                del findings[index]
            findings.append(_repinned(key, was, now, label))
            continue
        said = _not_a_repin(resolved)
        for index in blocking:
            findings[index] = dataclasses.replace(findings[index], details=[*findings[index].details, said])


def _repinned(key: str, was: dict | None, now: dict, label: str) -> Finding:
    message = (
        f"{key}: its tree moved since the merge base {label} behind an unchanged launch, to exactly what that "
        f"launch resolves to today (resolved again here, without secrets): {tree_summary(was, now)}; booted in "
        "the sandbox without its secrets until merged, every moving package screened"
    )
    where = LockLocation(pointer("servers", key, "launch", "tree"))
    return Finding(rule("tree-repinned"), key, message, where, details=tree_lines(was, now)[1:])


def _not_a_repin(resolved: dict | str | None) -> str:
    if isinstance(resolved, str):
        return f"not confirmed as a re-pin: today's resolution of the launch failed ({resolved})"
    if resolved is None:
        return "not confirmed as a re-pin: mcp-lock does not resolve this launch itself"
    return ("not a re-pin: the launch resolves to another tree today (a record copied from elsewhere, edited, or "
            "resolved before a later release); `mcp-lock update --fresh` writes what it resolves to")
