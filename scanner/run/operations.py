"""The three operations, lock, check and update, over discovery, booting, the lock and the diff.

What judges the booted servers (scanner.run.judging: the diff, the detectors) is imported only once they boot,
and loads in a worker thread from the first spawn on (scanner.run.analysis): the servers start on the other core
meanwhile. A module-level import of it here would put it back before the first spawn
(tests/transports/test_first_spawn.py)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from scanner.errors import UsageError, unknown_servers
from scanner.install.packages import is_exact
from scanner.lock.lockfile import Lockfile, ServerPin, launch_diff, rebuild
from scanner.model.findings import Finding, detector_blocks, unique
from scanner.model.rule_base import Severity
from scanner.policy.suppression import Audit, apply_ignores, today_utc
from scanner.run.image_pin import pin_images
from scanner.run.offline import bootable, config_findings, declared_vs_lock, launch_change
from scanner.run.outcome import Outcome
from scanner.run.pinning import boot_and_pin
from scanner.run.recorded import Recorded
from scanner.run.shard import in_shard
from scanner.run.unpinned_findings import unpinned_findings
from scanner.run.withhold import Withholding, fresh_plan, settle, withhold
from scanner.run.workspace import (
    Options,
    Workspace,
    kept_verdicts,
    read_lock,
    server_keys,
    server_named,
    write_lock,
)
from scanner.sources.declarations import Server
from scanner.sources.discover import looked_for

if TYPE_CHECKING:
    from scanner.detectors.verdict_cache import Verdicts

MAX_LISTED = 20  # tool names quoted in an error, at most
# `update` exits non-zero on its other findings (boot, config) from this severity on; a detector finding it refuses
# is exactly one `check` would fail on (`detector_blocks`), whatever its severity.
REFUSE_AT: Severity = "high"


def lock(workspace: Workspace, options: Options, names: Sequence[str] = ()) -> Outcome:
    """Pin every declared server not yet in the lock (only the named ones, when any are); existing pins stay."""
    existing = read_lock(workspace, missing_ok=True)
    lockfile = existing or Lockfile(version=1, servers={})
    keys = [server_named(workspace, name) for name in names]
    known = {s.key for s in workspace.discovery.servers}
    unknown = [name for name, key in zip(names, keys, strict=True) if key not in known]
    if unknown:
        raise unknown_servers(unknown, _all_names(workspace))
    # Named servers need only their own inputs and secrets: another server's unset variable is a note.
    findings = config_findings(workspace, needed=set(keys) if keys else None)
    if not workspace.discovery.servers and not any(f.rule.id == "config-error" for f in findings):
        raise UsageError(
            f"no MCP servers declared in {workspace.repo} (looked for: {', '.join(looked_for())}); nothing was written"
        )
    declared = [s for s in workspace.discovery.servers if not keys or s.key in keys]
    kept = [s.key for s in declared if s.key in lockfile.servers]
    new = [s for s in declared if s.key not in lockfile.servers]
    ready, skipped = bootable(workspace, new)

    @functools.cache
    def verdicts() -> Verdicts:  # made in the analysis thread at the first pin: the detectors' module loads there
        return kept_verdicts(workspace)

    def analyse(key: str, server_pin: ServerPin) -> list[Finding]:
        from scanner.run.judging import new_server_findings

        return new_server_findings(key, server_pin, verdicts())

    live, booted = boot_and_pin(workspace, ready, options, analyse)
    from scanner.run import judging  # loaded while the servers booted (scanner.run.analysis)

    findings += skipped + booted
    recorded = _record_facts(workspace, live, {})
    findings += recorded.findings
    lockfile.servers.update(live)
    pinned = list(live)
    baseline = {key: (None if key in pinned else pin) for key, pin in lockfile.servers.items()}
    cross = judging.cross_server_findings(lockfile.servers, baseline, verdicts())
    findings += [judging.first_pinned(f) for f in cross]
    # the pins it keeps are judged as `check` judges them
    findings += judging.pinned_findings(lockfile.servers, kept, verdicts=verdicts())
    judging.learn(verdicts(), lockfile.servers, pinned)  # judged in full above
    verdicts().save()
    findings += unpinned_findings(workspace.policy.unpinned_launch, declared, lockfile.servers)
    outcome = Outcome(findings, messages=recorded.messages)
    if kept:
        outcome.messages.append(
            f"kept the existing pins of {', '.join(kept)} (use `mcp-lock update` to re-pin them)"
        )
    failed = any(f.rule.id in ("boot-failed", "config-error") for f in findings)
    if not pinned and existing is None and failed:
        # An empty lock would read as "reviewed, nothing to pin" and make the next check pass its failures by.
        outcome.messages.append(f"not written: no server was pinned, so {workspace.lock_display} would be empty")
        return outcome
    if pinned or existing is None:
        write_lock(workspace, lockfile)
        outcome.lock_written = True
        outcome.messages.append(
            f"pinned {', '.join(pinned) if pinned else 'no servers'} in {workspace.lock_display}"
        )
    return outcome


def check(workspace: Workspace, options: Options) -> Outcome:
    lockfile = read_lock(workspace)
    assert lockfile is not None
    findings, ready = declared_vs_lock(workspace, lockfile)
    keys = server_keys(workspace, lockfile)
    owned = options.shard.select(keys) if options.shard else None
    ready = [s for s in ready if owned is None or s.key in owned]
    ready = [s for s in ready if options.only is None or s.key in options.only]

    def judged(key: str, server_pin: ServerPin) -> list[Finding]:
        pinned = lockfile.servers[key]
        if key in by_image and server_pin.artifact and server_pin.artifact.get("digest") == by_image[key]:
            server_pin.artifact = pinned.artifact  # booted by that digest (scanner.run.image_pin)
        from scanner.run.judging import against_pin

        return against_pin(key, pinned, server_pin)

    # Secrets go only to reviewed launches; the others boot without them.
    plan = withhold(workspace, ready, lockfile, options)
    # The pinned tree is booted from the store only for the launch it was pinned for: a changed launch (a version
    # bump) must run what it now names, or its new definitions would never be seen.
    trees = {s.key: tree for s in plan.servers if (tree := _pinned_tree_of(s, lockfile)) is not None}
    # A container launch as pinned boots by the image digest the lock records, never by what its tag names now.
    plan.servers, by_image = pin_images(plan.servers, lockfile.servers)
    bare = dataclasses.replace(
        options, bare=frozenset(plan.withheld), confined=frozenset(plan.confined), pinned_trees=trees
    )
    live, booted = boot_and_pin(workspace, plan.servers, bare, judged, lockfile.servers)
    from scanner.run import judging  # loaded while the servers booted (scanner.run.analysis)

    findings += settle(plan, booted, block=workspace.policy.withheld_boot_failure == "block")
    # Servers that did not boot keep their pinned tools, so shadowing of them is still seen.
    findings += judging.cross_server_findings(lockfile.servers | live, lockfile.servers)
    if options.rescan_pins:  # every pin is rescanned, booted or not: what is pinned stays judged
        verdicts = kept_verdicts(workspace)
        scan = [k for k in lockfile.servers if owned is None or k in owned]
        findings += judging.pinned_findings(lockfile.servers, scan, verdicts=verdicts)
        verdicts.save()
    ran = {key: pin.artifact for key, pin in live.items() if pin.artifact is not None}
    return Outcome(unique(in_shard(findings, options.shard, keys)), artifacts=ran)


def _record_facts(workspace: Workspace, pins: dict[str, ServerPin], previous: dict[str, ServerPin]) -> Recorded:
    """The provenance (and uv license) of each package of the newly pinned trees, recorded in them."""
    if all(pin.tree is None for pin in pins.values()):  # no package tree (a local command): nothing to ask about
        return Recorded()
    from scanner.run.registry_facts import record_registry_facts  # urllib and the registry code: only when pinning

    return record_registry_facts(workspace, pins, list(pins), previous)


def _pinned_tree_of(server: Server, lockfile: Lockfile) -> dict[str, Any] | None:
    """The tree the lock pins for `server`, when its launch is still the one pinned (else None)."""
    pin = lockfile.servers.get(server.key)
    if pin is None or pin.tree is None or server.template is None:
        return None
    return pin.tree if launch_diff(pin.launch, server.template.spec()) is None else None


def _kept_trees(servers: Sequence[Server], lockfile: Lockfile) -> dict[str, dict[str, Any]]:
    """The recorded trees `update` keeps: each launch still as pinned whose record installs with no resolution
    (format 4). An older record is re-resolved, which is how `update` re-pins it in format 4."""
    return {s.key: tree for s in servers if (tree := _pinned_tree_of(s, lockfile)) is not None and is_exact(tree)}


def update(
    workspace: Workspace, options: Options, names: Sequence[str] = (), tools: Sequence[str] = ()
) -> Outcome:
    """Re-pin the named servers (all when none are named); with `tools`, only those tools."""
    lockfile = read_lock(workspace, missing_ok=True) or Lockfile(version=1, servers={})
    declared = {s.key: s for s in workspace.discovery.servers}
    names = [server_named(workspace, name) for name in names]
    unknown = [n for n in names if n not in declared and n not in lockfile.servers]
    if unknown:
        raise unknown_servers(unknown, [*_all_names(workspace), *lockfile.servers], "declared or pinned")
    selected = [declared[n] for n in (names or sorted(declared)) if n in declared]
    # Named servers need only their own inputs and secrets: another server's unset variable is a note.
    outcome = Outcome(config_findings(workspace, needed=set(names) if names else None))
    for key in sorted(lockfile.servers.keys() - declared.keys()):
        if not names or key in names:
            del lockfile.servers[key]
            outcome.messages.append(f"removed {key}: no config file declares it any more")
    ready, skipped = bootable(workspace, selected)
    previous = dict(lockfile.servers)
    contents: list[Finding] = []  # same version, other bytes: refused unless acknowledged
    # A launch as pinned keeps the tree its lock records (installed from the record, never resolved); only
    # `update --fresh` moves a tree behind an unchanged launch. A changed launch (a bump) is resolved today.
    kept_trees = {} if options.fresh else _kept_trees(ready, lockfile)
    terms = dataclasses.replace(options, pinned_trees=kept_trees)
    # Today's resolution is unreviewed code: `update --fresh` boots it as a changed launch boots under
    # `check --base`, without what the launch takes from outside the repository, in the sandbox.
    plan = fresh_plan(workspace, ready) if options.fresh else Withholding(list(ready))
    if options.fresh:
        keys = frozenset(s.key for s in ready)
        terms = dataclasses.replace(terms, bare=keys, confined=keys)
    booted_pins, booted = boot_and_pin(workspace, plan.servers, terms)
    from scanner.run import judging  # loaded while the servers booted (scanner.run.analysis)

    outcome.findings += skipped + (settle(plan, booted) if options.fresh else booted)
    recorded = _record_facts(workspace, booted_pins, previous)
    outcome.findings += recorded.findings
    outcome.messages += recorded.messages
    if tools:
        _refuse_unknown_tools(tools, [lockfile.servers.get(key) for key in booted_pins], list(booted_pins.values()))
    for key, live in booted_pins.items():
        server = declared[key]
        old = lockfile.servers.get(server.key)
        if old is None:
            lockfile.servers[server.key] = live
            outcome.messages.append(f"pinned new server {server.key}")
            continue
        accepted = (
            judging.compare_server(server.key, old, live, grouped=not tools) + _artifact_accepted(server.key, old, live)
        )
        if tools:
            accepted = [f for f in accepted if f.kind == "tools" and f.subject in tools]
            live = _with_tools(old, live, tools)
        accepted += launch_change(server, old) if not tools else []
        contents += judging.content_findings(server.key, old, live)
        lockfile.servers[server.key] = live
        lines = [line for f in accepted for line in _accepted_lines(f)] + judging.accepted_tree_lines(
            server.key, old, live
        )
        outcome.messages += lines or [f"{server.key}: unchanged"]
    if any(f.rule.id == "boot-failed" for f in outcome.findings):
        outcome.messages.append("not written: a server failed to boot, so its pin would be lost or stale")
        return outcome
    outcome.fail_on = REFUSE_AT  # what is below it is shown and pinned; `check` keeps reporting it
    outcome.findings += judging.pinned_findings(lockfile.servers, booted_pins, previous) + contents
    screened = _fresh_screens(workspace, options, previous, booted_pins) if options.fresh else []
    outcome.findings += screened
    unsafe = [f for f in apply_ignores(screened, workspace.policy.ignores, Audit(), today_utc()) if f.blocking]
    if unsafe:
        outcome.fail_on = "info"
        outcome.messages.append(
            f"not written: {len(unsafe)} package(s) the re-pin would bring fail the release screens "
            f"({', '.join(sorted({f.subject or f.server for f in unsafe}))}); keep the tree pinned until they "
            "pass, or acknowledge each reviewed one with an `ignore:` entry and its reason in "
            f"{workspace.policy.path or 'mcp-lock.yaml'} (write its reason first):"
        )
        outcome.messages += ["ignore:", *judging.suggested_entries(unsafe)]
        return outcome
    refused = _refused(workspace, outcome.findings, booted_pins.keys(), tools)
    republished = judging.refused_content(workspace, contents, booted_pins.keys())
    if republished:
        outcome.messages.append(
            f"not written: {len(republished)} package(s) would be pinned at a version the lock holds with other "
            f"content ({', '.join(sorted({f.subject or '' for f in republished}))}); a registry does not re-publish "
            "a version, so find out where these bytes come from; if they are reviewed, acknowledge each with an "
            f"`ignore:` entry and its reason in {workspace.policy.path or 'mcp-lock.yaml'} (write its reason first):"
        )
        outcome.messages += ["ignore:", *judging.suggested_entries(republished)]
        if not refused:
            return outcome
    if refused:
        outcome.fail_on = "info"  # a refusal fails the run, whatever the refused findings' severity
        outcome.messages.append(
            f"not written: {len(refused)} detector finding(s) that `check` would fail on in what would be pinned "
            f"({', '.join(sorted({f.server for f in refused}))}); fix the server, or acknowledge a reviewed false "
            f"positive with an `ignore:` entry and its reason in {workspace.policy.path or 'mcp-lock.yaml'}; "
            "each entry below accepts that text as it is now (write its reason first):"
        )
        outcome.messages += ["ignore:", *judging.suggested_entries(refused)]
        return outcome
    write_lock(workspace, lockfile)
    outcome.lock_written = True
    # What was accepted is not a finding any more; boot and config problems still are.
    return outcome


def _fresh_screens(
    workspace: Workspace, options: Options, previous: dict[str, ServerPin], live: dict[str, ServerPin]
) -> list[Finding]:
    """`update --fresh`: every package a moved tree would bring, screened wherever it sits in the tree (release
    age, install scripts, license, provenance; advisories with `--advisories`), as `check --fresh` screens it."""
    from scanner.run.release_check import screen_tree_change  # urllib and the registry clients: only here

    found: list[Finding] = []
    for key, pin in live.items():
        old = previous.get(key)
        if old is None or pin.tree is None or old.tree == pin.tree:
            continue
        top = (pin.artifact or {}).get("name")
        found += screen_tree_change(workspace, key, old.tree, pin.tree, top if isinstance(top, str) else None,
                                    advisories=options.advisories, pin=old)
    return found


def _artifact_accepted(key: str, old: ServerPin, live: ServerPin) -> list[Finding]:
    """The artifact change a re-pin accepts; that it was not recorded before is no change to accept."""
    from scanner.run.judging import artifact_findings, tree_findings  # after the boots, as in update

    found = artifact_findings(key, old, live) + tree_findings(key, old, live)
    # The tree's change is listed on its own (scanner.run.tree_accept), a bump's included.
    skipped = ("artifact-unrecorded", "tree-unrecorded", "tree-changed", "package-content-changed")
    return [f for f in found if f.rule.id not in skipped]


def _refused(
    workspace: Workspace, findings: Sequence[Finding], servers: Collection[str], tools: Sequence[str]
) -> list[Finding]:
    """The detector findings on re-pinned text that `check` would fail on (`detector_blocks`, after the `ignore:`
    entries; with `--tool`, only on the named tools: the rest of the pin is not accepted anew)."""
    judged = apply_ignores(findings, workspace.policy.ignores, Audit(), today_utc())
    return [f for f in judged if detector_blocks(f) and f.server in servers and (not tools or f.subject in tools)]


def rerender(workspace: Workspace) -> Outcome:
    """Write the lock back in canonical form, booting nothing.

    Safe only because every digest is verified on the way in: the rewritten lock holds what the old one did,
    written so that its diff shows what it holds.
    """
    lockfile = read_lock(workspace, canonical=False)
    assert lockfile is not None
    write_lock(workspace, lockfile)
    outcome = Outcome([], lock_written=True)
    outcome.messages.append(
        f"re-rendered {workspace.lock_display} in canonical form (digests verified, nothing booted)"
    )
    return outcome


def _with_tools(old: ServerPin, live: ServerPin, tools: Sequence[str]) -> ServerPin:
    """The old pin with only the named tools taken from the live surface."""
    merged = dict(old.tools)
    for name in tools:
        if name in live.tools:
            merged[name] = live.tools[name]
        else:
            merged.pop(name, None)
    return rebuild(old, tools=merged, artifact=live.artifact, tree=live.tree)


def _refuse_unknown_tools(tools: Sequence[str], old: Sequence[ServerPin | None], live: Sequence[ServerPin]) -> None:
    """`--tool` naming a tool neither pinned nor offered by the servers being re-pinned is a typo, not a no-op."""
    known = {name for pin in (*old, *live) if pin is not None for name in pin.tools}
    unknown = [name for name in tools if name not in known]
    if not unknown or not live:
        return
    listed = sorted(known)
    more = len(listed) - MAX_LISTED
    shown = ", ".join(listed[:MAX_LISTED]) + (f" and {more} more" if more > 0 else "")
    raise UsageError(
        f"no tool named {', '.join(unknown)} in the servers re-pinned; nothing was written. "
        f"Tools: {shown or 'none'}"
    )


def _accepted_lines(finding: Finding) -> list[str]:
    """One message per line: the reporter escapes each, so a detail never shows as a literal `\\n`."""
    lines = ["accepted " + finding.message, *("    " + detail for detail in finding.details)]
    return [part for line in lines for part in line.splitlines()]


def _all_names(workspace: Workspace) -> list[str]:
    return [name for server in workspace.discovery.servers for name in server.names]
