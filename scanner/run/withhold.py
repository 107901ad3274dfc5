"""Secrets reach only reviewed launches.

A value from outside the repository (what `scanner.sources.interpolate.Resolver` records as outside:
caller variables, inputs read from the environment, files) and the policy's `env:` pass-throughs go
only to a launch identical to its pin and, under `check --base`, to the launch reviewed at the merge base:
its pin there, the tree it records (scanner.vcs.tree_review), its closure (everything it resolves to except
secret values, scanner.sources.closure), the
names and files that declare it, and, for a launch that can run repository code
(scanner.sources.repository_code), a change that touches only inert files (scanner.policy.inert). Every
other launch boots without them (`ResolvedLaunch.bare`: a header or variable that held one is left out)
and gets a `secrets-withheld` finding naming what it did not get and why. When it cannot list its
definitions without them, that boot failure blocks (`boot-failed`), unless the policy says
`withheld-boot-failure: note`: then its pin is checked offline (digests were verified on reading the lock;
the detectors run over its pinned text) and the live check is left to the run after merge.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from scanner.lock.lockfile import Lockfile, launch_diff
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.policy.inert import outside_inert
from scanner.run.inert_view import hidden_for
from scanner.run.workspace import Options, Workspace
from scanner.sources.closure import differences, view_of
from scanner.sources.declarations import Server
from scanner.sources.repository_code import runs_repository_code
from scanner.transports.sandbox import OFF as SANDBOX_OFF

MAX_SHOWN = 5  # files named in a reason, at most
TODAY = "it runs today's resolution of its launch, which nobody reviewed"


@dataclass
class Withholding:
    servers: list[Server]  # what to boot: each unreviewed launch replaced by its bare form
    withheld: dict[str, tuple[str, ...]] = field(default_factory=dict)  # key -> what it was not given
    reasons: dict[str, str] = field(default_factory=dict)  # key -> why its launch counts as unreviewed
    # Unreviewed launches the policy runs unsandboxed: booted in the sandbox all the same (key -> why), since
    # unsandboxed code could read another process's environment, mcp-lock's own with the runner's secrets.
    confined: dict[str, str] = field(default_factory=dict)


def withhold(workspace: Workspace, servers: Sequence[Server], lockfile: Lockfile, options: Options) -> Withholding:
    """The servers to boot, each unreviewed one that names a secret without it."""
    plan = Withholding([])
    for server in servers:
        names = secret_names(workspace, server)
        unsandboxed = workspace.policy.for_server(*server.policy_names).sandbox == SANDBOX_OFF
        why = unreviewed(server, lockfile, options, workspace) if names or unsandboxed else None
        if why is not None and unsandboxed:
            plan.confined[server.key] = why
        if why is None or not names:
            plan.servers.append(server)
            continue
        plan.withheld[server.key], plan.reasons[server.key] = names, why
        plan.servers.append(bare_server(server))
    return plan


def fresh_plan(workspace: Workspace, servers: Sequence[Server], why: str = TODAY) -> Withholding:
    """Every server booted bare: what a launch runs when its tree is today's resolution (`check --fresh
    --boot`, `update --fresh`), which nobody reviewed."""
    plan = Withholding([])
    for server in servers:
        names = secret_names(workspace, server) if server.resolved is not None else ()
        if not names:
            plan.servers.append(server)
            continue
        plan.withheld[server.key], plan.reasons[server.key] = names, why
        plan.servers.append(bare_server(server))
    return plan


def secret_names(workspace: Workspace, server: Server) -> tuple[str, ...]:
    """What the server's launch takes from outside the repository, by name (and what an entry of another
    server's name, which it does not get, would pass it: what a second name tried to borrow)."""
    if server.resolved is None:
        return ()
    policy = workspace.policy
    passed = [
        name
        for name in (*policy.for_server(*server.policy_names).env, *policy.for_server(*server.names).env)
        if name in workspace.environ and not name.startswith("MCP_LOCK_")
    ]
    return tuple(dict.fromkeys((*server.resolved.withheld, *passed)))


def unreviewed(server: Server, lockfile: Lockfile, options: Options, workspace: Workspace) -> str | None:
    """Why the server's launch is not one a reviewer accepted; None when it is."""
    assert server.template is not None
    spec = server.template.spec()
    pinned = lockfile.servers.get(server.key)
    if pinned is None:
        return "not pinned"
    if launch_diff(pinned.launch, spec) is not None:
        return "its launch differs from its pin"
    if options.base_launches is None:
        return None
    base = options.base_launches.get(server.key)
    if base is None:
        return "not pinned at the merge base"
    if launch_diff(base, spec) is not None:
        return "its launch changed since the merge base"
    if (tree := options.base_trees.get(server.key)) is not None:
        return tree  # the tree decides what boots (scanner.vcs.tree_review)
    was = options.base_views.get(server.key)
    if was is None:
        return "not declared at the merge base"
    now = view_of(server)
    if added := sorted(now.names - was.names):
        return f"a name newly given to its launch ({', '.join(added)}) is a launch change"
    if declared := sorted(now.declared - was.declared):
        return f"declared again since the merge base ({', '.join(f'{n} in {f}' for f, n in declared)})"
    if changed := differences(was.closure, now.closure):
        return f"it resolves differently than at the merge base ({', '.join(changed)})"
    # Inert is what the sandbox hides (scanner.policy.inert): where it is off, every changed file counts.
    unsandboxed = workspace.policy.for_server(*server.policy_names).sandbox == SANDBOX_OFF
    touched = options.changed if unsandboxed else touched_by(server, options, workspace)
    if touched and runs_repository_code(server.template, workspace.repo):
        shown = ", ".join(touched[:MAX_SHOWN])
        more = f" and {len(touched) - MAX_SHOWN} more" if len(touched) > MAX_SHOWN else ""
        where = "(with `sandbox: off` nothing is inert)" if unsandboxed else "outside the inert set"
        return f"it can run code from the repository, and the change touches {shown}{more} {where}"
    if server.key in options.edited:
        return "it runs a file changed since the merge base"
    return None


def touched_by(server: Server, options: Options, workspace: Workspace) -> tuple[str, ...]:
    """The changed files outside what `server`'s sandbox hides (scanner.run.inert_view)."""
    if not options.changed:
        return ()
    hidden = hidden_for(workspace, server)
    return tuple(outside_inert(options.changed, options.prefix, "", workspace.policy.inert, hidden))


def bare_server(server: Server) -> Server:
    """`server` launched without any value from outside the repository."""
    primary = server.primary
    assert primary.resolved is not None
    launch = primary.resolved.bare or primary.resolved
    # The same policy names as `server` (`Server.bound`): booted bare, it must not borrow another name's entry.
    declarations = [dataclasses.replace(primary, resolved=launch), *server.declarations[1:]]
    return dataclasses.replace(server, declarations=declarations)


def settle(plan: Withholding, booted: Sequence[Finding], block: bool = True) -> list[Finding]:
    """`booted` with a `secrets-withheld` finding for each withheld server. A withheld server that could not
    boot keeps its `boot-failed` finding when `block` (the policy's `withheld-boot-failure: block`); else
    that finding is replaced by the note (its pin is rescanned like every pin)."""
    by_key = {server.key: server for server in plan.servers}
    failed = {f.server: f for f in booted if f.rule.id == "boot-failed" and f.server in plan.withheld}
    findings = [f for f in booted if block or f.server not in failed or f.rule.id != "boot-failed"]
    for key, names in plan.withheld.items():
        server = by_key[key]
        listed, why = ", ".join(names), plan.reasons[key]
        details = [f"withheld: {listed}"]
        if key in failed and block:
            message = (
                f"{key}: could not list its definitions without {listed} ({why}); a changed launch that needs "
                "its secrets is not checked live here, so its boot failure blocks"
            )
        elif key in failed:
            message = (
                f"{key}: could not list its definitions without {listed} ({why}); its pin was checked offline "
                "and the live check runs after merge (push or nightly job, with secrets)"
            )
            details += [failed[key].message.removeprefix(f"{key}: "), *failed[key].details]
        else:
            message = f"{key}: booted without {listed} ({why}); what it listed without them was checked"
        findings.append(Finding(rule("secrets-withheld"), key, message, server.primary.location, details=details))
    for key, why in plan.confined.items():
        message = f"{key}: booted in the sandbox although the policy says `sandbox: off` ({why})"
        findings.append(Finding(rule("sandbox-kept"), key, message, by_key[key].primary.location))
    return findings
