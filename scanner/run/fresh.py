"""`check --fresh`: what each declared launch would fetch today, against the tree the lock records.

Freshness is its own question, asked by a scheduled run, never by a pull request's check: a dependency that
published overnight must not turn an unchanged pull request red. Each pinned launch mcp-lock installs (npx,
uvx; an unpinned `npx -y pkg` included) is resolved as it would be today through one function,
`resolve_today` (scanner.install.resolution.resolve_launch: the package manager's own resolution, no
package code, no value from outside the repository; every step in the sandbox, as scanner.run.installing
sets it up, builds only as the policy's `build-from-source` allows). Every package that would change is
named (added, removed, old → new: scanner.diff.tree_listing) in one blocking `tree-would-change` finding per
server, and every package that would change, wherever it sits in the tree, goes through the transitive screen
(scanner.run.release_check.screen_tree_change: release age, install scripts, license, provenance; advisories with
`--advisories`), each finding naming the package that pulls it in. `--boot` also boots today's tree, sandboxed and
without secrets, and diffs its definitions (scanner.run.fresh_boot). `mcp-lock update --fresh` re-pins to
today's resolution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from scanner.diff.tree_listing import tree_lines
from scanner.errors import UsageError
from scanner.install.packages import TreeError, tree_changes
from scanner.install.resolution import resolve_launch
from scanner.install.runner import ROOM, InstallFailed, Step
from scanner.install.sandboxed import StepRefused
from scanner.lock.lockfile import ServerPin, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule
from scanner.run.fresh_boot import boot_today
from scanner.run.installing import sandbox_room
from scanner.run.outcome import Outcome
from scanner.run.release_check import screen_tree_change
from scanner.run.workspace import Options, Workspace, read_lock
from scanner.sources.declarations import Server
from scanner.transports.sandbox import SandboxUnavailable

RESOLVE_TIMEOUT = 300.0  # seconds for one launch's resolution (a tree of thousands of packages)
CONCURRENT = 4  # resolutions at once

async def resolve_today(
    server: Server, caller: Mapping[str, str], builds: frozenset[str] = frozenset(), before: str | None = None
) -> dict[str, Any] | None:
    """The tree `server`'s launch resolves to today, or as of `before` (an ISO 8601 time, by the registry's own
    publish times: scanner.vcs.repin_cutoff) (None: not a launch mcp-lock installs). Raises InstallFailed,
    TreeError, StepRefused, SandboxUnavailable or TimeoutError. Resolving runs no package code, in the sandbox;
    the launch is taken without any value from outside the repository, and only its registry settings reach the
    package manager."""
    resolved = server.primary.resolved
    if resolved is None:
        return None
    launch = resolved.bare or resolved

    token = ROOM.set(sandbox_room(builds))
    try:
        with anyio.fail_after(RESOLVE_TIMEOUT):
            resolved_today = await resolve_launch(launch.command, launch.args, launch.env, Step(), caller, before)
    finally:
        ROOM.reset(token)
    return resolved_today.tree if resolved_today is not None else None


def check_fresh(workspace: Workspace, advisories: str | None = None, boot: Options | None = None) -> Outcome:
    """Every pinned launch resolved as today: a `tree-would-change` finding per server whose tree would move,
    and what the transitive screen finds in every package that would change (release age, install scripts,
    licenses, provenance; with an OSV `advisories` source, advisories). With `boot` (`check --fresh --boot`),
    each tree that would move is also booted, in the sandbox and without the launch's secrets, and its
    definitions are diffed against the lock and run through the detectors, as `check` does."""
    lockfile = read_lock(workspace)
    assert lockfile is not None
    servers = [s for s in workspace.discovery.servers if _same_launch(s, lockfile.servers.get(s.key))]
    sandbox_room(frozenset())  # no sandbox here: one clear error naming the fix, before anything resolves
    results = anyio.run(resolve_all, servers, dict(workspace.environ), frozenset(workspace.policy.builds))
    findings: list[Finding] = []
    moved: dict[str, dict[str, Any]] = {}
    for server in servers:
        pin, result = lockfile.servers[server.key], results[server.key]
        if isinstance(result, str):
            message = f"{server.key}: today's resolution of its launch failed: {result}"
            findings.append(Finding(rule("fresh-resolve-failed"), server.key, message, server.primary.location))
            continue
        if result is None or pin.tree == result or (pin.tree and not tree_changes(pin.tree, result)):
            continue
        moved[server.key] = result
        findings.append(_would_change(server.key, pin, result))
        findings += screen_tree_change(
            workspace, server.key, pin.tree, result, top_name(pin), advisories=advisories, pin=pin
        )
    outcome = Outcome(findings)
    outcome.messages.append(
        f"--fresh: resolved {len(servers)} launch(es) as they would install today; "
        + (f"{len(moved)} would change (`mcp-lock update --fresh` re-pins them)" if moved else "none would change")
    )
    if boot is not None and moved:
        booted = boot_today(workspace, [s for s in servers if s.key in moved], moved, lockfile, boot)
        outcome.findings += booted.findings
        outcome.messages += booted.messages
    return outcome


def top_name(pin: ServerPin) -> str | None:
    """The package the launch names (its tree's top), as the lock records it."""
    name = (pin.artifact or {}).get("name")
    return name if isinstance(name, str) else None


def _same_launch(server: Server, pin: ServerPin | None) -> bool:
    """Only a launch as pinned: a changed one is the pull request's question (plain `check`)."""
    return pin is not None and server.template is not None and launch_diff(pin.launch, server.template.spec()) is None


async def resolve_all(
    servers: Sequence[Server], caller: Mapping[str, str], builds: frozenset[str] = frozenset(),
    before: Mapping[str, str] | None = None,
) -> dict[str, dict[str, Any] | str | None]:
    """Each server's resolution (today, or as of its time in `before`), or why it failed, a few at once."""
    results: dict[str, dict[str, Any] | str | None] = {}
    as_of = before or {}
    limiter = anyio.CapacityLimiter(CONCURRENT)

    async def one(server: Server) -> None:
        async with limiter:
            try:
                results[server.key] = await resolve_today(server, caller, builds, as_of.get(server.key))
            except (InstallFailed, TreeError, StepRefused, SandboxUnavailable, UsageError) as error:
                results[server.key] = str(error)  # UsageError: no sandbox here (a re-pin review stays blocking)
            except TimeoutError:
                results[server.key] = f"still resolving after {RESOLVE_TIMEOUT:g}s"

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return results


def _would_change(key: str, pin: ServerPin, today: dict[str, Any]) -> Finding:
    summary, *lines = tree_lines(pin.tree, today)
    message = f"{key}: its launch would install another tree today: {summary}"
    where = LockLocation(pointer("servers", key, "launch", "tree"))
    return Finding(rule("tree-would-change"), key, message, where, details=lines)
