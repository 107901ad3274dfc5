"""The nightly re-pin is reviewable: a tree record that moved behind an unchanged launch, and that is exactly
what that launch resolved to when the record was made, is what `mcp-lock update --fresh` writes, not a forged
record.

scanner.vcs.tree_review makes every tree record that is not the base's a blocking `tree-changed-since-base`,
because `launch.tree` decides what boots and its digest covers only its own packages: a record copied from
another server, or an npm alias posing as the package, verifies. Yet a re-pin pull request changes the record
by construction. What tells them apart is the resolution itself: the launch, as declared at the merge base
(its registry settings, the base policy's `build-from-source`), is resolved again here through
scanner.run.fresh.resolve_today (the package manager's own resolution, in the sandbox, without any value from
outside the repository, no package code run), once per moved launch, AS OF the record's own time: the moment
after the newest release it pins, as the base's registry dates it (scanner.vcs.repin_cutoff). Not today: a
dependency that publishes between the nightly run and this check must not turn an honest re-pin red (a gate
that goes red because something published overnight gets removed). Not the pull request's word for the time
either: a record cannot prove when it was made, the registry can. When the resolution as of then records exactly
the pull request's tree, the record is what the launch installed then: its blocking finding becomes a
`tree-repinned` listing of every package that moves, naming the cutoff. Everything else about an unreviewed tree
stays: the server boots that tree in the sandbox without its secrets until merged (scanner.run.withhold), and
every moving package goes through the release screens (scanner.run.release_check: age, install scripts,
provenance, advisories), whose findings block on their own. A record that differs in anything, a record older
than the releases it replaces (a downgrade), a release the registry cannot date, a resolution that fails, or a
dropped record stays blocking.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping

import anyio

from scanner.artifacts.packument import registry_for
from scanner.artifacts.pypi_index import configured_index
from scanner.diff.tree_listing import tree_lines, tree_summary
from scanner.lock.lockfile import Lockfile
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule
from scanner.run.fresh import resolve_all
from scanner.run.workspace import Workspace
from scanner.sources.declarations import Server
from scanner.vcs.repin_cutoff import Cutoff, NotReproducible, repin_cutoff

CHANGED = "tree-changed-since-base"
REPINNED_WHY = "its tree was re-pinned to what its launch resolved to then, which is not merged yet"
DEADLINE = 120.0  # seconds for every registry question of the re-pin review (the publish times)


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
    """Resolve each launch in `unreviewed` whose record may be a re-pin (the change records a tree) as declared
    at the base and as of the record's own time (the base recorded none: today, as there is no base time to
    bound how far back the record may reach); where that resolution is exactly the change's record, replace
    its blocking finding in `findings` by a `tree-repinned` listing and say why in `unreviewed` (it still boots
    without secrets). Where not, the blocking finding says why."""
    if base is None:
        return
    servers = [
        base_servers[key] for key in sorted(unreviewed)
        if key in base_servers and key in base.servers and current.servers[key].tree is not None
    ]
    cutoffs, refused = _cutoffs(workspace, servers, base, current)
    servers = [s for s in servers if s.key in cutoffs]
    before = {key: cutoff.before for key, cutoff in cutoffs.items() if cutoff is not None}
    results = anyio.run(resolve_all, servers, dict(workspace.environ), builds, before) if servers else {}
    said: dict[str, str] = dict(refused)
    for key, resolved in results.items():
        was, now = base.servers[key].tree, current.servers[key].tree
        assert now is not None
        if resolved is not None and not isinstance(resolved, str) and resolved == now:
            unreviewed[key] = REPINNED_WHY
            findings[:] = [f for f in findings if not (f.rule.id == CHANGED and f.server == key)]
            findings.append(_repinned(key, was, now, label, cutoffs[key]))
        else:
            said[key] = _not_a_repin(resolved, cutoffs[key])
    for index, finding in enumerate(findings):
        if finding.rule.id == CHANGED and finding.server in said:
            findings[index] = dataclasses.replace(finding, details=[*finding.details, said[finding.server]])


def _cutoffs(
    workspace: Workspace, servers: list[Server], base: Lockfile, current: Lockfile
) -> tuple[dict[str, Cutoff | None], dict[str, str]]:
    """Each server's cutoff (None: resolve as of today), or why there is none, asked of the registry its base
    declaration names."""
    deadline = time.monotonic() + DEADLINE
    cutoffs: dict[str, Cutoff | None] = {}
    refused: dict[str, str] = {}
    for server in servers:
        was, now = base.servers[server.key].tree, current.servers[server.key].tree
        assert now is not None
        if was is None:
            cutoffs[server.key] = None
            continue
        declared = server.resolved.env if server.resolved is not None else {}
        # The base's declaration names the registry, never the change's (as the release screens under --base).
        source = (registry_for if now.get("manager") == "npm" else configured_index)(declared, workspace.environ)
        try:
            cutoffs[server.key] = repin_cutoff(was, now, source, deadline)
        except NotReproducible as error:
            refused[server.key] = f"not confirmed as a re-pin: {error}"
    return cutoffs, refused


def _repinned(key: str, was: dict | None, now: dict, label: str, cutoff: Cutoff | None) -> Finding:
    message = (
        f"{key}: its tree moved since the merge base {label} behind an unchanged launch, to exactly what that "
        f"launch resolved to {_as_of(cutoff)} (resolved again here, without secrets): {tree_summary(was, now)}; "
        "booted in the sandbox without its secrets until merged, every moving package screened"
    )
    where = LockLocation(pointer("servers", key, "launch", "tree"))
    return Finding(rule("tree-repinned"), key, message, where, details=tree_lines(was, now)[1:])


def _as_of(cutoff: Cutoff | None) -> str:
    if cutoff is None:
        return "today"
    return f"as of {cutoff.before}, just after the newest release the record pins ({cutoff.newest})"


def _not_a_repin(resolved: dict | str | None, cutoff: Cutoff | None) -> str:
    if isinstance(resolved, str):
        return f"not confirmed as a re-pin: the launch's resolution {_as_of(cutoff)} failed ({resolved})"
    if resolved is None:
        return "not confirmed as a re-pin: mcp-lock does not resolve this launch itself"
    return (f"not a re-pin: the launch resolves to another tree {_as_of(cutoff)}: a record copied from "
            "elsewhere, edited, or made before a dist-tag moved or a release was withdrawn; `mcp-lock update "
            "--fresh` writes what it resolves to")
