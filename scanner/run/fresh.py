"""`check --fresh`: what each declared launch would fetch today, against the tree the lock records.

Freshness is its own question, asked by a scheduled run, never by a pull request's check: a dependency that
published overnight must not turn an unchanged pull request red. Each pinned launch mcp-lock installs (npx,
uvx; an unpinned `npx -y pkg` included) is resolved as it would be today through one function,
`resolve_today` (scanner.install.resolution.resolve_launch: the package manager's own resolution, no
package code, no value from outside the repository; every step in the sandbox, as scanner.run.installing
sets it up, builds only as the policy's `build-from-source` allows). Every package that would change is
named (added, removed, old → new: scanner.diff.tree_listing) in one blocking `tree-would-change` finding per
server, and each new release is screened (release age and install scripts, advisories with `--advisories`)
through `Screen`, one call per set of changed packages. `mcp-lock update --fresh` re-pins to today's resolution.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio

from scanner.artifacts.inventory import ServerPackage, pin_packages
from scanner.artifacts.release_screen import NewPackage, new_packages
from scanner.diff.tree_listing import tree_lines
from scanner.install.packages import TreeError, tree_changes
from scanner.install.resolution import resolve_launch
from scanner.install.runner import ROOM, InstallFailed, Step
from scanner.install.sandboxed import StepRefused
from scanner.lock.lockfile import ServerPin, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import rule
from scanner.run.installing import sandbox_room
from scanner.run.outcome import Outcome
from scanner.run.workspace import Workspace, read_lock
from scanner.sources.declarations import Server
from scanner.transports.sandbox import SandboxUnavailable

RESOLVE_TIMEOUT = 300.0  # seconds for one launch's resolution (a tree of thousands of packages)
CONCURRENT = 4  # resolutions at once

# A screen of the package versions new to servers: the findings about them.
Screen = Callable[[Sequence[NewPackage]], list[Finding]]


async def resolve_today(
    server: Server, caller: Mapping[str, str], builds: frozenset[str] = frozenset()
) -> dict[str, Any] | None:
    """The tree `server`'s launch resolves to today (None: not a launch mcp-lock installs). Raises InstallFailed,
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
            resolved_today = await resolve_launch(launch.command, launch.args, launch.env, Step(), caller)
    finally:
        ROOM.reset(token)
    return resolved_today.tree if resolved_today is not None else None


def check_fresh(workspace: Workspace, screens: Sequence[Screen] = ()) -> Outcome:
    """Every pinned launch resolved as today: a `tree-would-change` finding per server whose tree would move,
    and what `screens` find in the releases it would bring."""
    lockfile = read_lock(workspace)
    assert lockfile is not None
    servers = [s for s in workspace.discovery.servers if _same_launch(s, lockfile.servers.get(s.key))]
    sandbox_room(frozenset())  # no sandbox here: one clear error naming the fix, before anything resolves
    results = anyio.run(_resolve_all, servers, dict(workspace.environ), frozenset(workspace.policy.builds))
    findings: list[Finding] = []
    new: list[NewPackage] = []
    moved = 0
    for server in servers:
        pin, result = lockfile.servers[server.key], results[server.key]
        if isinstance(result, str):
            message = f"{server.key}: today's resolution of its launch failed: {result}"
            findings.append(Finding(rule("fresh-resolve-failed"), server.key, message, server.primary.location))
            continue
        if result is None or pin.tree == result or (pin.tree and not tree_changes(pin.tree, result)):
            continue
        moved += 1
        findings.append(_would_change(server.key, pin, result))
        before = {server.key: pin_packages(server.key, pin)}
        after = {server.key: pin_packages(server.key, dataclasses.replace(pin, tree=result))}
        new += new_packages(before, after)
    for screen in screens:
        if new:
            findings += screen(new)
    outcome = Outcome(findings)
    outcome.messages.append(
        f"--fresh: resolved {len(servers)} launch(es) as they would install today; "
        + (f"{moved} would change (`mcp-lock update --fresh` re-pins them)" if moved else "none would change")
    )
    return outcome


def _same_launch(server: Server, pin: ServerPin | None) -> bool:
    """Only a launch as pinned: a changed one is the pull request's question (plain `check`)."""
    return pin is not None and server.template is not None and launch_diff(pin.launch, server.template.spec()) is None


async def _resolve_all(
    servers: Sequence[Server], caller: Mapping[str, str], builds: frozenset[str] = frozenset()
) -> dict[str, dict[str, Any] | str | None]:
    results: dict[str, dict[str, Any] | str | None] = {}
    limiter = anyio.CapacityLimiter(CONCURRENT)

    async def one(server: Server) -> None:
        async with limiter:
            try:
                results[server.key] = await resolve_today(server, caller, builds)
            except (InstallFailed, TreeError, StepRefused, SandboxUnavailable) as error:
                results[server.key] = str(error)
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


def release_screen(workspace: Workspace, now: datetime.datetime | None = None) -> Screen:
    """Release age and install scripts of each new release, asked of the registry each launch fetches from
    (scanner.artifacts.release_screen)."""
    from scanner.artifacts.packument import registry_for, releases
    from scanner.artifacts.release_screen import release_findings
    from scanner.artifacts.simple_index import index_for, pypi_releases

    def screen(changes: Sequence[NewPackage]) -> list[Finding]:
        deadline = time.monotonic() + RESOLVE_TIMEOUT
        envs = {s.key: (s.resolved.env if s.resolved else {}) for s in workspace.discovery.servers}

        def describe(change: NewPackage) -> Any:
            package, env = change.entry.package, envs.get(change.server, {})
            previous = change.previous.package.version if change.previous else None
            if package.ecosystem == "PyPI":
                index = index_for(env, workspace.environ)
                return pypi_releases(index, package.name, package.version, previous, deadline) if index else None
            registry = registry_for(env, workspace.environ)
            return releases(registry, package.name, package.version, previous, deadline) if registry else None

        min_age = datetime.timedelta(days=workspace.policy.min_release_age)
        found = release_findings(list(changes), min_age, now or datetime.datetime.now(datetime.UTC), describe)
        return [f for f in found if workspace.policy.min_release_age or f.rule.id != "release-too-young"]

    return screen


def advisory_screen(source: str) -> Screen:
    """OSV's advisories about each new release (scanner.artifacts.advisories)."""
    from scanner.artifacts.advisories import advisory_findings

    def screen(changes: Sequence[NewPackage]) -> list[Finding]:
        packages: dict[str, list[ServerPackage]] = {}
        for change in changes:
            packages.setdefault(change.server, []).append(change.entry)
        return advisory_findings(source, packages)

    return screen
