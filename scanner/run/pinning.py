"""Boot servers and pin what each says, as soon as it answers, while the others still boot."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.run.analysis import load_in_background
from scanner.run.boot_advice import advice
from scanner.run.inert_view import hidden_for
from scanner.run.launchers import launcher_failure
from scanner.run.redact import Redactor, redactor_for
from scanner.run.sandbox_choice import boots_sandboxed
from scanner.run.workspace import Options, Workspace
from scanner.sources.declarations import Server
from scanner.sources.repository_code import runs_repository_code
from scanner.transports.sandbox_warm import settle, warm_up

if TYPE_CHECKING:
    from scanner.run.boot import BootResult

# Known causes of boot failures, recognised in the server's stderr, and what to do about them.
# Each marker is one traceback form of the same cause.
BOOT_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        # mcp 2.x renamed McpError, moved FastMCP out of mcp.server.fastmcp and dropped the low-level decorators.
        (
            "cannot import name 'McpError'",
            "No module named 'mcp.server.fastmcp'",
            "'Server' object has no attribute 'list_tools'",
        ),
        "hint: this server was written for the mcp SDK 1.x and crashes on 2.x; "
        "launch it with the SDK pinned below 2, e.g. `uvx --with 'mcp<2' PACKAGE==VERSION`",
    ),
    (
        ("No space left on device", "ENOSPC"),
        "hint: a sandboxed server's private /tmp holds 512 MiB unless mcp-lock.yaml sets `tmpfs-mib` higher "
        "(its npx/uvx cache is there too)",
    ),
)

# A server that writes beside its code or into the working directory at start-up (a log file, `./data/x.db`) fails
# in the sandbox, which keeps all but its private /tmp read-only; a launcher's own read-only failure (`uv run`
# re-syncing) has its own hint (scanner.run.launchers), so this one is shown only when the server itself ran.
READ_ONLY_MARKERS = ("Read-only file system", "EROFS")
READ_ONLY_HINT = (
    "hint: the server wrote into a read-only place at start-up (a log file, a data folder in the working directory or "
    "beside its code): a sandboxed server can write only to its private /tmp (sized by `tmpfs-mib` in mcp-lock.yaml), "
    "so point its data, log or cache directory at /tmp in the declaration's env or args"
)

# What lock, check and update each make of a freshly pinned server (detectors, the diff against its pin).
Analyse = Callable[[str, ServerPin], list[Finding]]


def boot(
    workspace: Workspace,
    servers: Sequence[Server],
    options: Options,
    on_result: Callable[[BootResult], None] | None = None,
    on_unmasked: Callable[[BootResult, Redactor], None] | None = None,
) -> dict[str, BootResult]:
    """Boot `servers`; `on_result` gets each (masked) result as it arrives, while the others still boot.

    `on_unmasked` gets each result before masking, just before `on_result`, with the redactor that masks it:
    for detectors, which must see the text the model would, and mask what they quote.
    """
    # bwrap's probe (scanner.transports.sandbox.warm_up) runs in a thread while the boot machinery is imported;
    # what its sandbox leaves behind is adopted and reaped here, as each boot's is in boot_servers.
    from scanner.transports.reaper import adopting_orphans  # ctypes: only a live run needs it

    with adopting_orphans():
        if any(boots_sandboxed(server, workspace.policy, options.confined) for server in servers):
            warm_up()
        return _boot(workspace, servers, options, on_result, on_unmasked)


def _boot(
    workspace: Workspace,
    servers: Sequence[Server],
    options: Options,
    on_result: Callable[[BootResult], None] | None,
    on_unmasked: Callable[[BootResult, Redactor], None] | None,
) -> dict[str, BootResult]:
    # The one deferred import of a scanner module: scanner.run.boot loads anyio and the transports, which
    # `check --offline` (a pre-commit hook) and `--version` must not pay for; tests/test_offline.py checks it.
    from scanner.run.boot import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, boot_servers

    settle()  # the boots find bwrap probed
    # Whatever a server says back (definitions, errors, stderr) is masked here, before anything uses it.
    redactor = redactor_for(servers, workspace.policy, workspace.environ, workspace.repo)
    progress = options.progress
    masked: dict[str, BootResult] = {}

    def arrived(result: BootResult) -> None:
        masked[result.key] = redactor.result(result)
        if on_unmasked:
            on_unmasked(result, redactor)
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
        bare=options.bare,
        confined=options.confined,
        trees=options.pinned_trees,
        hidden=hidden_from(workspace, servers),
        on_open=load_in_background,  # what judges them loads while they start (scanner.run.analysis)
    )
    return masked


def hidden_from(workspace: Workspace, servers: Sequence[Server]) -> dict[str, tuple[str, ...]]:
    """Per server key, what its sandbox hides of the repository: the inert paths, from each launch that can run
    repository code (scanner.policy.inert), nothing from the others."""
    code = [s.key for s in servers if s.template is not None and runs_repository_code(s.template, workspace.repo)]
    by_key = {s.key: s for s in servers}
    return {key: hidden_for(workspace, by_key[key]).absolute() for key in code}


def boot_failure(server: Server, result: BootResult) -> Finding:
    """The step that failed, how the server exited, its last stderr lines and a fix for the cause."""
    command = server.template.command if server.template else None
    lead, launcher_hints = launcher_failure(command, result.error or "", result.stderr_tail)
    limited = next((message for rule_id, message in result.sandbox_notes if rule_id == "sandbox-limit-hit"), "")
    steps = advice(command, result.error or "", result.stderr_tail, result.exit_code, lead is not None, limited)
    details = [steps[0], *(f"stderr: {line}" for line in result.stderr_tail.splitlines()[-10:])]
    details += [hint for markers, hint in BOOT_HINTS if any(m in result.stderr_tail for m in markers)]
    if lead is None and any(m in result.stderr_tail for m in READ_ONLY_MARKERS):
        details.append(READ_ONLY_HINT)
    details += launcher_hints or steps[1:]
    return Finding(
        rule("boot-failed"),
        server.key,
        f"{server.key}: could not be booted: {lead or result.error}",
        server.primary.location,
        details=details,
    )


def sandbox_findings(server: Server, result: BootResult) -> list[Finding]:
    """What the sandbox refused the server or stopped it doing."""
    return [
        Finding(rule(rule_id), server.key, f"{server.key}: {message}", server.primary.location)
        for rule_id, message in result.sandbox_notes
    ]


def pin(server: Server, result: BootResult, pinned: ServerPin | None = None) -> tuple[ServerPin, list[Finding]]:
    """Pin what a booted server said; findings for definitions that cannot be pinned cleanly. `pinned`: its
    verified pin, whose unchanged definitions are recognised without normalising them (see pin_server)."""
    from scanner.lock.pin import pin_server  # loaded from the first spawn on (scanner.run.analysis)

    assert result.snapshot is not None and server.template is not None
    declarations = [
        {"file": d.location.file, "client": d.client, "name": d.name} for d in server.declarations
    ]
    server_pin, problems = pin_server(declarations, server.template.spec(), result.snapshot, pinned)
    findings = [
        Finding(rule("definition-invalid"), server.key, f"{server.key}: {problem}", server.primary.location)
        for problem in problems
    ]
    findings += [
        Finding(rule("server-note"), server.key, f"{server.key}: {note}", server.primary.location)
        for note in result.snapshot.notes
    ]
    return server_pin, findings


def unmasked_findings(
    server: Server, masked: BootResult, unmasked: tuple[BootResult, Redactor], analyse: Analyse, found: list[Finding]
) -> list[Finding]:
    """The detectors' findings on the text as the server sent it, evidence masked, beyond those in `found`.

    Masking a secret out of a text could cut an instruction apart; the model reads it whole.
    """
    raw, redactor = unmasked
    if raw.snapshot is None or masked.snapshot == raw.snapshot:
        return []
    raw_pin, _ = pin(server, raw)
    known = {f.sort_key() for f in found}
    extra = [redactor.finding(f) for f in analyse(server.key, raw_pin) if f.rule.id == "suspicious-text"]
    return [f for f in extra if f.sort_key() not in known]


def boot_and_pin(
    workspace: Workspace,
    servers: Sequence[Server],
    options: Options,
    analyse: Analyse | None = None,
    pinned: Mapping[str, ServerPin] | None = None,
) -> tuple[dict[str, ServerPin], list[Finding]]:
    """Boot `servers`, pinning and analysing each as soon as it answers (the others are still booting).

    `pinned`: the verified lock's pins, by key (a check): what a server says as pinned is pinned the same,
    with less work.

    Returns the pins in declaration order, then findings in the same order whichever server finished
    first: boot failures and unpinnable definitions, then what `analyse` found.
    """
    by_key = {server.key: server for server in servers}
    done: dict[str, tuple[ServerPin | None, list[Finding], list[Finding]]] = {}
    unmasked: dict[str, tuple[BootResult, Redactor]] = {}

    def arrived(result: BootResult) -> None:
        server = by_key[result.key]
        limits = sandbox_findings(server, result)
        if result.snapshot is None:
            done[server.key] = (None, [boot_failure(server, result), *limits], [])
            return
        server_pin, problems = pin(server, result, pinned.get(server.key) if pinned else None)
        from scanner.run.faces import face_findings  # with the transports it compares: only a live boot loads them

        limits += face_findings(server, result.client, result.second, result.snapshot)
        analysed = analyse(server.key, server_pin) if analyse else []
        if analyse:
            analysed += unmasked_findings(server, result, unmasked[server.key], analyse, analysed)
        done[server.key] = (server_pin, [*problems, *limits], analysed)

    def before_masking(raw: BootResult, redactor: Redactor) -> None:
        unmasked[raw.key] = (raw, redactor)

    boot(workspace, servers, options, on_result=arrived, on_unmasked=before_masking)
    live = {s.key: server_pin for s in servers if (server_pin := done[s.key][0]) is not None}
    findings = [f for s in servers for f in done[s.key][1]] + [f for s in servers for f in done[s.key][2]]
    return live, findings
