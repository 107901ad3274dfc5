"""What can be told without booting anything: config problems, which servers can boot, the declarations
against the lock, and `check --offline`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from scanner.lock.lockfile import Lockfile, ServerPin, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule
from scanner.policy.allowlist import Lists, refusal
from scanner.run.lock_attributes import hidden_lock_diff
from scanner.run.outcome import Outcome
from scanner.run.shard import Shard, in_shard
from scanner.run.unpinned_findings import unpinned_findings
from scanner.run.workspace import Workspace, kept_verdicts, read_lock, server_keys
from scanner.sources.declarations import Server

# Problems that only stop a server from being launched here (a variable or input not set, a file refused).
UNRESOLVED_CODES = frozenset({"unresolved-variable", "unresolved-input", "refused-file"})
# Of those, what a run could supply (a value where mcp-lock runs): `list`, which boots nothing, passes them.
BOOT_ONLY_CODES = frozenset({"unresolved-variable", "unresolved-input"})


def config_findings(
    workspace: Workspace, *, offline: bool = False, needed: Collection[str] | None = None
) -> list[Finding]:
    """Problems in config files and declarations, as findings at their file and line.

    `offline` (nothing is launched): a missing variable or input only matters when a server is
    booted, so it is a warning rather than an error (see UNRESOLVED_CODES). A server the policy
    skips (a fork's pull request has no secrets) is never launched: its missing variables and inputs
    are not reported at all, its skip is. `needed` (`update SERVER…`): only these servers are
    launched, so another declaration's problems are notes; a file that does not parse stays an error.
    """
    skipped = _declared_at(workspace, lambda server: bool(workspace.policy.for_server(*server.policy_names).skip))
    elsewhere = _declared_at(workspace, lambda server: needed is not None and server.key not in needed)
    findings: list[Finding] = []
    for config in workspace.discovery.files:
        problems = [(p, False) for p in config.problems]
        problems += [(p, needed is not None) for d in config.declarations for p in d.problems]
        for problem, in_declaration in problems:
            where = (problem.location.file, problem.location.line)
            unresolved = problem.code in UNRESOLVED_CODES
            if unresolved and where in skipped:
                continue
            server = _server_at(workspace, problem.location.file, problem.location.line)
            not_needed = in_declaration and (server is None or where in elsewhere)
            error = problem.severity == "error" and not ((offline and unresolved) or not_needed)
            message = f"{problem.location}: {problem.message}"
            if not_needed and problem.severity == "error":
                message += " (not needed: this run launches only " + ", ".join(sorted(needed or ())) + ")"
            rule_id = "config-error" if error else "config-warning"
            findings.append(Finding(rule(rule_id), server or config.path, message, problem.location))
    return findings + hidden_lock_diff(workspace) + not_allowed(workspace)


def not_allowed(workspace: Workspace) -> list[Finding]:
    """A `server-not-allowed` finding for each declared server outside the allowlists (see allowlist)."""
    findings = []
    for server in workspace.discovery.servers:
        why = refusal(_lists(workspace), server)
        if why is not None:
            message = f"{server.key}: may not be declared here: {why}; it is not booted"
            findings.append(Finding(rule("server-not-allowed"), server.key, message, server.primary.location))
    return findings


def _lists(workspace: Workspace) -> list[Lists]:
    return [workspace.policy.lists, *([workspace.managed] if workspace.managed is not None else [])]


def _declared_at(workspace: Workspace, which: Callable[[Server], bool]) -> set[tuple[str, int]]:
    """The (file, line) of every declaration of the servers `which` selects."""
    return {
        (d.location.file, d.location.line)
        for server in workspace.discovery.servers
        if which(server)
        for d in server.declarations
    }


def _server_at(workspace: Workspace, file: str, line: int) -> str | None:
    for server in workspace.discovery.servers:
        if any(d.location.file == file and d.location.line == line for d in server.declarations):
            return server.key
    return None


def bootable(workspace: Workspace, servers: Iterable[Server]) -> tuple[list[Server], list[Finding]]:
    """The servers that can be booted, and findings for the ones skipped or unresolvable."""
    ready: list[Server] = []
    findings: list[Finding] = []
    for server in servers:
        reason = workspace.policy.for_server(*server.policy_names).skip
        if reason:
            findings.append(
                Finding(rule("server-skipped"), server.key, f"{server.key}: skipped: {reason}", server.primary.location)
            )
        elif server.resolved is not None and not server.errors and refusal(_lists(workspace), server) is None:
            ready.append(server)  # a server outside the allowlist never runs: config_findings names it
    return ready, findings


def launch_change(server: Server, pinned: ServerPin) -> list[Finding]:
    """A finding when the server's declared launch differs from the one it was pinned with."""
    assert server.template is not None
    diff = launch_diff(pinned.launch, server.template.spec())
    if diff is None:
        return []
    return [
        Finding(
            rule("launch-changed"),
            server.key,
            f"{server.key}: launch changed since it was pinned ({', '.join(diff.names)})",
            server.primary.location,
            details=diff.details,
        )
    ]


def declared_vs_lock(
    workspace: Workspace, lockfile: Lockfile, *, offline: bool = False
) -> tuple[list[Finding], list[Server]]:
    """What can be told without booting anything, and the servers to boot for the rest.

    Findings: config problems, servers pinned but not declared, declared but not pinned,
    skipped by the policy, and pinned servers whose declared launch differs from the pin.
    Online, the launch is compared for the bootable servers only (the others already have a
    config error); `offline`, for every pinned, non-skipped server that has a launch at all,
    since comparing launches needs no variable values.
    """
    findings = config_findings(workspace, offline=offline)
    declared = {s.key: s for s in workspace.discovery.servers}
    for key in sorted(lockfile.servers.keys() - declared.keys()):
        findings.append(
            Finding(
                rule("server-not-declared"),
                key,
                f"{key}: pinned, but no config file declares it any more",
                LockLocation(pointer("servers", key)),
            )
        )
    candidates: list[Server] = []
    for server in declared.values():
        if server.key not in lockfile.servers and not workspace.policy.for_server(*server.policy_names).skip:
            findings.append(
                Finding(
                    rule("server-not-pinned"),
                    server.key,
                    f"{server.key}: declared but not pinned; run `mcp-lock lock`",
                    server.primary.location,
                )
            )
        else:
            candidates.append(server)
    ready, skipped = bootable(workspace, candidates)
    findings += skipped
    if offline:
        compared = [
            s
            for s in candidates
            if s.template is not None
            and s.key in lockfile.servers
            and not workspace.policy.for_server(*s.policy_names).skip
        ]
    else:
        compared = ready
    for server in compared:
        findings += launch_change(server, lockfile.servers[server.key])
    findings += unpinned_findings(workspace.policy.unpinned_launch, declared.values(), lockfile.servers)
    return findings, ready


def check_offline(workspace: Workspace, shard: Shard | None = None, *, rescan_pins: bool = True) -> Outcome:
    """`check --offline`: verify the lock and compare it with the declarations; boot nothing.

    Imports nothing of the mcp SDK (it runs as a pre-commit hook). A changed definition on a
    server's side is only seen by a live `check`; the detectors rescan every pinned text.
    """
    lockfile = read_lock(workspace)
    assert lockfile is not None
    findings, _ = declared_vs_lock(workspace, lockfile, offline=True)
    keys = server_keys(workspace, lockfile)
    owned = shard.select(keys) if shard is not None else None
    if rescan_pins:  # see Options.rescan_pins
        # Here, not at the top: a live run imports the detectors after its first server is spawned (analysis.py).
        from scanner.diff.suspicious import pinned_findings

        verdicts = kept_verdicts(workspace)
        scan = [k for k in lockfile.servers if owned is None or k in owned]
        findings += pinned_findings(lockfile.servers, scan, verdicts=verdicts)
        verdicts.save()
    outcome = Outcome(in_shard(findings, shard, keys))
    outcome.messages.append("offline: nothing was booted; run `mcp-lock check` to compare definitions")
    return outcome
