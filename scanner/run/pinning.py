"""Boot servers and pin what each says, as soon as it answers, while the others still boot."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from scanner.lock.model import ServerPin
from scanner.lock.pin import pin_server
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.redact import redactor_for
from scanner.run.launchers import launcher_failure
from scanner.run.workspace import Options, Workspace
from scanner.sources.model import Server

if TYPE_CHECKING:
    from scanner.boot import BootResult

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
)

# What lock, check and update each make of a freshly pinned server (detectors, the diff against its pin).
Analyse = Callable[[str, ServerPin], list[Finding]]


def boot(
    workspace: Workspace,
    servers: Sequence[Server],
    options: Options,
    on_result: Callable[[BootResult], None] | None = None,
) -> dict[str, BootResult]:
    """Boot `servers`; `on_result` gets each (masked) result as it arrives, while the others still boot."""
    # The one deferred import of a scanner module: scanner.boot loads anyio and the transports, which
    # `check --offline` (a pre-commit hook) and `--version` must not pay for; tests/test_offline.py checks it.
    from scanner.boot import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, boot_servers

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


def boot_failure(server: Server, result: BootResult) -> Finding:
    details = [f"stderr: {line}" for line in result.stderr_tail.splitlines()[-10:]]
    details += [hint for markers, hint in BOOT_HINTS if any(m in result.stderr_tail for m in markers)]
    command = server.template.command if server.template else None
    lead, launcher_hints = launcher_failure(command, result.error, result.stderr_tail)
    details += launcher_hints
    return Finding(
        rule("boot-failed"),
        server.key,
        f"{server.key}: could not be booted: {lead or result.error}",
        server.primary.location,
        details=details,
    )


def pin(server: Server, result: BootResult) -> tuple[ServerPin, list[Finding]]:
    """Pin what a booted server said; findings for definitions that cannot be pinned cleanly."""
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
