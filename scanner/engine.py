"""The three operations, lock, check and update, over discovery, booting, the lock and the diff."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.diff.schema_validity import schema_findings
from scanner.diff.suspicious import cross_server_findings, suspicious_findings
from scanner.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.policy import Policy, load_policy
from scanner.rules import Severity, rule, severity_rank
from scanner.sources.model import Server

if TYPE_CHECKING:
    from scanner.boot import BootResult
    from scanner.lock.lockfile import Lockfile, ServerPin
    from scanner.shard import Shard
    from scanner.sources.discover import Discovery

LOCKFILE_NAME = "mcp-lock.json"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """The run cannot proceed (bad policy, unreadable lock); exit code 2."""


@dataclass
class Options:
    timeout: float | None = None
    concurrency: int | None = None
    progress: Callable[[str], None] | None = None
    shard: Shard | None = None  # `check --shard I/N`: only this share of the servers
    only: frozenset[str] | None = None  # `check --changed-only`: boot only these servers


@dataclass
class Workspace:
    repo: Path
    lock_path: Path
    discovery: Discovery
    policy: Policy
    environ: Mapping[str, str] = field(default_factory=dict)
    # The last lock read, by the file's identity: `check --base` reads it in review() and check().
    read_cache: tuple[tuple[int, int, int], Lockfile] | None = field(default=None, repr=False, compare=False)

    @property
    def lock_display(self) -> str:
        try:
            return self.lock_path.resolve().relative_to(self.repo.resolve()).as_posix()
        except ValueError:
            return str(self.lock_path)


@dataclass
class Outcome:
    findings: list[Finding]
    lock_written: bool = False
    messages: list[str] = field(default_factory=list)  # what was done, for the reporter to say
    # Blocking findings graded below this do not fail the run (`--fail-on`); by default every one does.
    fail_on: Severity = "info"

    def fails(self, finding: Finding) -> bool:
        return finding.blocking and severity_rank(finding.effective_severity) <= severity_rank(self.fail_on)

    @property
    def exit_code(self) -> int:
        if any(f.rule.id == "config-error" for f in self.findings):
            return EXIT_ERROR
        return EXIT_FINDINGS if any(self.fails(f) for f in self.findings) else EXIT_CLEAN


def open_workspace(repo: Path, lock_path: Path | None, environ: Mapping[str, str] | None = None) -> Workspace:
    from scanner.policy import PolicyError
    from scanner.sources.discover import discover

    environ = dict(os.environ) if environ is None else environ
    if not repo.is_dir():
        raise UsageError(f"{repo}: not a directory")
    try:
        policy = load_policy(repo, environ)
    except PolicyError as error:
        raise UsageError(str(error)) from None
    server_inputs = {key: value.inputs for key, value in policy.servers.items() if value.inputs}
    discovery = discover(repo, environ, inputs=policy.inputs, server_inputs=server_inputs)
    return Workspace(repo, lock_path or repo / LOCKFILE_NAME, discovery, policy, environ)


def config_findings(workspace: Workspace, *, offline: bool = False) -> list[Finding]:
    """Problems in config files and declarations, as findings at their file and line.

    `offline` (nothing is launched): a missing variable or input only matters when a server is
    booted, so it is a warning rather than an error (see UNRESOLVED_CODES).
    """
    findings: list[Finding] = []
    for config in workspace.discovery.files:
        problems = list(config.problems) + [p for d in config.declarations for p in d.problems]
        for problem in problems:
            error = problem.severity == "error" and not (offline and problem.code in UNRESOLVED_CODES)
            rule_id = "config-error" if error else "config-warning"
            server = _server_at(workspace, problem.location.file, problem.location.line) or config.path
            findings.append(
                Finding(rule(rule_id), server, f"{problem.location}: {problem.message}", problem.location)
            )
    return findings


def _server_at(workspace: Workspace, file: str, line: int) -> str | None:
    for server in workspace.discovery.servers:
        if any(d.location.file == file and d.location.line == line for d in server.declarations):
            return server.key
    return None


def read_lock(workspace: Workspace, *, missing_ok: bool = False) -> Lockfile | None:
    from scanner.lock.lockfile import LockfileError, read

    if not workspace.lock_path.exists():
        if missing_ok:
            return None
        raise UsageError(f"{workspace.lock_display}: no lockfile; run `mcp-lock lock` first and commit it")
    stat = workspace.lock_path.stat()
    identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns)  # a write replaces the file: a new identity
    if workspace.read_cache is not None and workspace.read_cache[0] == identity:
        return workspace.read_cache[1]
    try:
        lockfile = read(workspace.lock_path)
    except LockfileError as error:
        raise UsageError(str(error)) from None
    workspace.read_cache = (identity, lockfile)
    return lockfile


def bootable(workspace: Workspace, servers: Iterable[Server]) -> tuple[list[Server], list[Finding]]:
    """The servers that can be booted, and findings for the ones skipped or unresolvable."""
    ready: list[Server] = []
    findings: list[Finding] = []
    for server in servers:
        reason = workspace.policy.for_server(server.key).skip
        if reason:
            findings.append(
                Finding(rule("server-skipped"), server.key, f"{server.key}: skipped: {reason}", server.primary.location)
            )
        elif server.resolved is not None and not server.errors:
            ready.append(server)
    return ready, findings


def boot(
    workspace: Workspace,
    servers: Sequence[Server],
    options: Options,
    on_result: Callable[[BootResult], None] | None = None,
) -> dict[str, BootResult]:
    """Boot `servers`; `on_result` gets each (masked) result as it arrives, while the others still boot."""
    from scanner.boot import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, boot_servers
    from scanner.redact import redactor_for

    # Whatever a server says back (definitions, errors, stderr) is masked here, before anything uses it.
    redactor = redactor_for(servers, workspace.policy, workspace.environ, workspace.repo)
    progress = options.progress
    masked: dict[str, BootResult] = {}

    def arrived(result: BootResult) -> None:
        masked[result.key] = redactor.result(result)
        if on_result:
            on_result(masked[result.key])

    boot_servers(
        servers,
        workspace.repo,
        workspace.policy,
        timeout=options.timeout or workspace.policy.timeout or DEFAULT_TIMEOUT,
        concurrency=options.concurrency or DEFAULT_CONCURRENCY,
        progress=(lambda line: progress(redactor.text(line))) if progress else None,
        on_result=arrived,
    )
    return masked


# Known causes of boot failures, recognised in the server's stderr, and what to do about them.
BOOT_HINTS = (
    (
        "cannot import name 'McpError'",
        "hint: this server was written for the mcp SDK 1.x and crashes on 2.x; "
        "launch it with the SDK pinned below 2, e.g. `uvx --with 'mcp<2' PACKAGE==VERSION`",
    ),
)


def boot_failure(server: Server, result: BootResult) -> Finding:
    details = [f"stderr: {line}" for line in result.stderr_tail.splitlines()[-10:]]
    details += [hint for marker, hint in BOOT_HINTS if marker in result.stderr_tail]
    return Finding(
        rule("boot-failed"),
        server.key,
        f"{server.key}: could not be booted: {result.error}",
        server.primary.location,
        details=details,
    )


def pin(server: Server, result: BootResult) -> tuple[ServerPin, list[Finding]]:
    """Pin what a booted server said; findings for definitions that cannot be pinned cleanly."""
    from scanner.lock.lockfile import pin_server

    assert result.snapshot is not None and server.template is not None
    declarations = [
        {"file": d.location.file, "client": d.client, "name": d.name} for d in server.declarations
    ]
    server_pin, problems = pin_server(declarations, server.template.spec(), result.snapshot)
    findings = [
        Finding(rule("definition-invalid"), server.key, f"{server.key}: {problem}", server.primary.location)
        for problem in problems
    ]
    findings += [
        Finding(rule("server-note"), server.key, f"{server.key}: {note}", server.primary.location)
        for note in result.snapshot.notes
    ]
    return server_pin, findings


# What lock, check and update each make of a freshly pinned server (detectors, the diff against its pin).
Analyse = Callable[[str, "ServerPin"], list[Finding]]


def boot_and_pin(
    workspace: Workspace, servers: Sequence[Server], options: Options, analyse: Analyse | None = None
) -> tuple[dict[str, ServerPin], list[Finding]]:
    """Boot `servers`, pinning and analysing each as soon as it answers (the others are still booting).

    Returns the pins in declaration order, then findings in the same order whichever server finished
    first: boot failures and unpinnable definitions, then what `analyse` found.
    """
    by_key = {server.key: server for server in servers}
    done: dict[str, tuple[ServerPin | None, list[Finding], list[Finding]]] = {}

    def arrived(result: BootResult) -> None:
        server = by_key[result.key]
        if result.snapshot is None:
            done[server.key] = (None, [boot_failure(server, result)], [])
            return
        server_pin, problems = pin(server, result)
        done[server.key] = (server_pin, problems, analyse(server.key, server_pin) if analyse else [])

    boot(workspace, servers, options, on_result=arrived)
    live = {s.key: server_pin for s in servers if (server_pin := done[s.key][0]) is not None}
    findings = [f for s in servers for f in done[s.key][1]] + [f for s in servers for f in done[s.key][2]]
    return live, findings


def lock(workspace: Workspace, options: Options) -> Outcome:
    """Pin every declared server not yet in the lock; existing pins are left alone."""
    from scanner.lock.lockfile import Lockfile

    existing = read_lock(workspace, missing_ok=True)
    lockfile = existing or Lockfile(version=1, servers={})
    findings = config_findings(workspace)
    declared = workspace.discovery.servers
    kept = [s.key for s in declared if s.key in lockfile.servers]
    new = [s for s in declared if s.key not in lockfile.servers]
    ready, skipped = bootable(workspace, new)
    live, booted = boot_and_pin(workspace, ready, options, _new_server_findings)
    findings += skipped + booted
    lockfile.servers.update(live)
    pinned = list(live)
    baseline = {key: (None if key in pinned else pin) for key, pin in lockfile.servers.items()}
    findings += cross_server_findings(lockfile.servers, baseline)
    outcome = Outcome(findings)
    if kept:
        outcome.messages.append(
            f"kept the existing pins of {', '.join(kept)} (use `mcp-lock update` to re-pin them)"
        )
    if pinned or existing is None:
        _write(workspace, lockfile)
        outcome.lock_written = True
        outcome.messages.append(
            f"pinned {', '.join(pinned) if pinned else 'no servers'} in {workspace.lock_display}"
        )
    return outcome


def check(workspace: Workspace, options: Options) -> Outcome:
    from scanner.diff.compare import compare_server

    lockfile = read_lock(workspace)
    assert lockfile is not None
    findings, ready = declared_vs_lock(workspace, lockfile)
    keys = server_keys(workspace, lockfile)
    owned = options.shard.select(keys) if options.shard else None
    ready = [s for s in ready if owned is None or s.key in owned]
    ready = [s for s in ready if options.only is None or s.key in options.only]

    def against_pin(key: str, server_pin: ServerPin) -> list[Finding]:
        pinned = lockfile.servers[key]
        return (
            compare_server(key, pinned, server_pin)
            + suspicious_findings(key, pinned, server_pin)
            + schema_findings(key, pinned, server_pin)
        )

    live, booted = boot_and_pin(workspace, ready, options, against_pin)
    findings += booted
    # Servers that did not boot keep their pinned tools, so shadowing of them is still seen.
    findings += cross_server_findings(lockfile.servers | live, lockfile.servers)
    return Outcome(in_shard(findings, options.shard, keys))


def _new_server_findings(key: str, server_pin: ServerPin) -> list[Finding]:
    return suspicious_findings(key, None, server_pin) + schema_findings(key, None, server_pin)


def server_keys(workspace: Workspace, lockfile: Lockfile) -> set[str]:
    """Every declared or pinned server: what `--shard` splits."""
    return {s.key for s in workspace.discovery.servers} | lockfile.servers.keys()


def in_shard(findings: list[Finding], shard: Shard | None, keys: set[str]) -> list[Finding]:
    """This shard's findings: those about its servers, and those about no server (a config file) in shard 1."""
    if shard is None:
        return findings
    owned = shard.select(keys)
    return [f for f in findings if f.server in owned or (shard.index == 1 and f.server not in keys)]


def _launch_change(server: Server, pinned: ServerPin) -> list[Finding]:
    assert server.template is not None
    spec = server.template.spec()
    if spec == pinned.launch:
        return []
    details = [
        f"{name}: {pinned.launch.get(name)!r} → {spec.get(name)!r}"
        for name in sorted(spec.keys() | pinned.launch.keys())
        if spec.get(name) != pinned.launch.get(name)
    ]
    return [
        Finding(
            rule("launch-changed"),
            server.key,
            f"{server.key}: launch changed since it was pinned ({', '.join(d.split(':')[0] for d in details)})",
            server.primary.location,
            details=details,
        )
    ]


def update(
    workspace: Workspace, options: Options, names: Sequence[str] = (), tools: Sequence[str] = ()
) -> Outcome:
    """Re-pin the named servers (all when none are named); with `tools`, only those tools."""
    from scanner.diff.compare import compare_server
    from scanner.lock.lockfile import Lockfile

    lockfile = read_lock(workspace, missing_ok=True) or Lockfile(version=1, servers={})
    declared = {s.key: s for s in workspace.discovery.servers}
    unknown = [n for n in names if n not in declared and n not in lockfile.servers]
    if unknown:
        raise UsageError(f"no declared or pinned server named {', '.join(unknown)}; see `mcp-lock list`")
    selected = [declared[n] for n in (names or sorted(declared)) if n in declared]
    outcome = Outcome(config_findings(workspace))
    for key in sorted(lockfile.servers.keys() - declared.keys()):
        if not names or key in names:
            del lockfile.servers[key]
            outcome.messages.append(f"removed {key}: no config file declares it any more")
    ready, skipped = bootable(workspace, selected)
    booted_pins, booted = boot_and_pin(workspace, ready, options)
    outcome.findings += skipped + booted
    for key, live in booted_pins.items():
        server = declared[key]
        old = lockfile.servers.get(server.key)
        if old is None:
            lockfile.servers[server.key] = live
            outcome.messages.append(f"pinned new server {server.key}")
            continue
        accepted = compare_server(server.key, old, live)
        if tools:
            accepted = [f for f in accepted if f.kind == "tools" and f.subject in tools]
            live = _with_tools(old, live, tools)
        accepted += _launch_change(server, old) if not tools else []
        lockfile.servers[server.key] = live
        outcome.messages += [_accepted_line(f) for f in accepted] or [f"{server.key}: unchanged"]
    if any(f.rule.id == "boot-failed" for f in outcome.findings):
        outcome.messages.append("not written: a server failed to boot, so its pin would be lost or stale")
        return outcome
    _write(workspace, lockfile)
    outcome.lock_written = True
    # What was accepted is not a finding any more; boot and config problems still are.
    return outcome


def _with_tools(old: ServerPin, live: ServerPin, tools: Sequence[str]) -> ServerPin:
    """The old pin with only the named tools taken from the live surface."""
    from scanner.lock.lockfile import rebuild

    merged = dict(old.tools)
    for name in tools:
        if name in live.tools:
            merged[name] = live.tools[name]
        else:
            merged.pop(name, None)
    return rebuild(old, tools=merged)


def _accepted_line(finding: Finding) -> str:
    return "accepted " + finding.message + "".join("\n    " + line for line in finding.details)


def _write(workspace: Workspace, lockfile: Lockfile) -> None:
    from scanner.lock.lockfile import write

    workspace.read_cache = None  # lock and update changed the object it holds
    write(workspace.lock_path, lockfile)


# --- check --offline: the lock against the declarations, booting nothing -------------------

# Problems that only stop a server from being launched here (a variable or input not set).
UNRESOLVED_CODES = frozenset({"unresolved-variable", "unresolved-input"})


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
        if server.key not in lockfile.servers and not workspace.policy.for_server(server.key).skip:
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
            and not workspace.policy.for_server(s.key).skip
        ]
    else:
        compared = ready
    for server in compared:
        findings += _launch_change(server, lockfile.servers[server.key])
    return findings, ready


def check_offline(workspace: Workspace, shard: Shard | None = None) -> Outcome:
    """`check --offline`: verify the lock and compare it with the declarations; boot nothing.

    Imports nothing of the mcp SDK (it runs as a pre-commit hook). A changed definition on a
    server's side is only seen by a live `check`.
    """
    lockfile = read_lock(workspace)
    assert lockfile is not None
    findings, _ = declared_vs_lock(workspace, lockfile, offline=True)
    outcome = Outcome(in_shard(findings, shard, server_keys(workspace, lockfile)))
    outcome.messages.append("offline: nothing was booted; run `mcp-lock check` to compare definitions")
    return outcome
