"""Before a stdio server boots: install what its launch runs (scanner.install), within its own time bound.

A reviewed launch (equal to its pin) is never resolved: exactly the tree its lock records is installed,
verified, and booted (`install_tree`), by `check` and by `update` alike. Only a launch with no reviewed tree
(`lock`, a launch the change altered, which scanner.run.withhold keeps without secrets, `update --fresh`) is
resolved today. Installing has its own
bound (the policy's `install-timeout`), apart from the server's `timeout:`, so a large tree never needs a
policy change in a pull request. Every package-manager step runs in the sandbox whatever the server's
`sandbox:` (the Room built here and set in scanner.install.runner.ROOM for the install), and install scripts
run in the sandbox, one package at a time, reaching only the registry and the hosts the base policy names for that
package (`script-hosts:`), with only the store entry being installed writable: never outside it, `sandbox: off`
or not. A package launcher mcp-lock does not install itself keeps booting as
declared, with one `code-unpinned` note.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from scanner.errors import UsageError
from scanner.install.npm_config import NpmConfigs
from scanner.install.npm_launch import npm_launch
from scanner.install.packages import TreeError, is_exact
from scanner.install.uv_launch import uv_launch
from scanner.sources.declarations import ResolvedLaunch
from scanner.sources.unpinned import launched
from scanner.transports.channel import Installed
from scanner.transports.isolation import DENY
from scanner.transports.sandbox import (
    FIX_HINT,
    OFF,
    SandboxUnavailable,
    has_size,
    require_bwrap,
    sandboxed,
)

if TYPE_CHECKING:
    # The install machinery (scanner.install.install, runner, step_room, the network gate and the store, with the
    # registry clients and ssl: ~20 ms of imports) is loaded by the first launch mcp-lock may install, not by every
    # boot: a run of local commands never needs it, and its first server would wait for it (issue 39 item 2).
    from scanner.install.install import Prepared, ScriptHosts
    from scanner.install.netgate import Destination
    from scanner.install.runner import Step
    from scanner.install.sandboxed import Room

CODE_UNPINNED = "code-unpinned"
INSTALL_SCRIPT_FAILED = "install-script-failed"
INSTALL_TIMEOUT = (
    "installing the launch's packages ran out of its {timeout:g}s install bound (`install-timeout`) at `{step}`; "
    "what was downloaded is kept in npm's or uv's cache for the next run. Check that this runner reaches the "
    "package registry; for a tree this large, raise `install-timeout:` in mcp-lock.yaml on the default branch "
    "(a pull request cannot raise it), and in CI cache {store} between runs"
)
NOT_INSTALLED = (
    "`{package}` is launched with {runner}, which mcp-lock does not install itself: its code and dependencies "
    "are not pinned, only its tool surface; launch it with npx or uvx and an exact version to pin its whole tree"
)
OLD_RECORD = (
    "; the lock records this tree in format 3, without the dependency edges, bins and platform markers an "
    "install from the record needs: `mcp-lock update` re-pins it in format 4"
)


@dataclass
class Install:
    """What installing gave: how to boot from the store, and what to record; or why the boot cannot go on."""

    installed: Installed | None = None
    tree: dict[str, Any] | None = None
    artifact: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class InstallTerms:
    """The policy's bounds on installing: seconds per launch, MiB of store; the PyPI packages the (base's)
    policy lets build from source (`build-from-source`, scanner.policy.builds), and the hosts it lets named npm
    packages' install scripts reach (`script-hosts`, scanner.policy.script_hosts)."""

    timeout: float | None = None  # None: scanner.install.runner.DEFAULT_INSTALL_TIMEOUT
    store_mib: int | None = None  # the store's bound (StoreTerms.limit_mib); None: its default
    builds: frozenset[str] = field(default_factory=frozenset)
    script_hosts: ScriptHosts = field(default_factory=dict)
    in_use: set[str] = field(default_factory=set)  # the store entries this run uses (StoreTerms.in_use): one set a run
    npm_configs: NpmConfigs = field(default_factory=NpmConfigs)  # `npm config list` asked once a run (StoreTerms)


def script_destinations(hosts: Sequence[str]) -> frozenset[Destination]:
    """The policy's `host:port` entries for one package's install script, as the gate matches them."""
    from scanner.install.netgate import destination_of

    return frozenset(d for d in (destination_of(f"https://{h}") for h in hosts) if d is not None)


def may_install(launch: ResolvedLaunch) -> bool:
    """Whether mcp-lock may install `launch`'s packages: never for a command named by path or none, or one that is
    neither an npx nor a uvx launch (scanner.install.resolution.installable, of which this is a superset: what it
    installs is always True here; tests/test_install_deferred.py holds the two together)."""
    command = launch.command
    if command is None or os.sep in command:
        return False
    return npm_launch(command, launch.args) is not None or uv_launch(command, launch.args) is not None


async def install_launch(
    launch: ResolvedLaunch,
    terms: InstallTerms,
    *,
    sandbox: str,
    notes: list[tuple[str, str]],
    pinned_tree: dict[str, Any] | None = None,
) -> Install:
    """Install `launch`'s tree within `terms.timeout` (None: the default bound): exactly `pinned_tree` when the
    launch is the reviewed one, else what it resolves to today; an Install with `error` set when that failed.
    Every step runs in the sandbox, whatever the server's `sandbox:` (scanner.install.sandboxed), install scripts
    too."""
    if pinned_tree is None and not may_install(launch):
        # What the install machinery makes of such a launch, without loading it: no sandbox to install in is the
        # same error; else nothing is installed (a package launcher it does not install is noted).
        if sandbox != OFF:
            try:
                require_bwrap()
            except SandboxUnavailable as error:
                return Install(error=str(error))
        return _not_installed(launch, notes)
    from scanner.install.runner import DEFAULT_INSTALL_TIMEOUT, ROOM, InstallFailed, Step
    from scanner.install.sandboxed import StepRefused
    from scanner.install.store import store_root

    timeout = terms.timeout or DEFAULT_INSTALL_TIMEOUT
    try:
        room = package_room(sandbox, terms.builds)
    except SandboxUnavailable as error:
        return Install(error=str(error))

    step = Step()
    token = ROOM.set(room)
    try:
        with anyio.fail_after(timeout):
            prepared = await _prepare(launch, pinned_tree, terms, step)
    except TimeoutError:
        store = store_root(os.environ)
        return Install(error=INSTALL_TIMEOUT.format(timeout=timeout, step=step.name, store=store))
    except (InstallFailed, TreeError) as error:
        return Install(error=str(error))
    except StepRefused as refused:
        notes.append((refused.rule, str(refused)))
        return Install(error=f"not installed: {refused}")
    finally:
        ROOM.reset(token)
    if prepared is None:
        return _not_installed(launch, notes)
    notes += [(INSTALL_SCRIPT_FAILED, note) for note in prepared.notes]
    return Install(Installed(prepared.argv, prepared.entry, prepared.path), prepared.tree, prepared.artifact)


def _not_installed(launch: ResolvedLaunch, notes: list[tuple[str, str]]) -> Install:
    """A launch mcp-lock does not install boots as declared; a package launcher's gets one `code-unpinned` note."""
    found = launched(launch)
    if found is not None and found.ecosystem in ("npm", "pypi"):
        notes.append((CODE_UNPINNED, NOT_INSTALLED.format(package=found.package, runner=found.runner)))
    return Install()


async def _prepare(
    launch: ResolvedLaunch, pinned: dict[str, Any] | None, terms: InstallTerms, step: Step
) -> Prepared | None:
    from scanner.install.install import StoreTerms, install_tree, resolve_and_install
    from scanner.install.runner import InstallFailed
    from scanner.install.store import DEFAULT_STORE_MIB

    scripts, store = terms.script_hosts, StoreTerms(
        terms.store_mib or DEFAULT_STORE_MIB, terms.in_use, terms.npm_configs
    )
    if pinned is None:
        return await resolve_and_install(launch.command, launch.args, launch.env, scripts, step, terms=store)
    try:
        return await install_tree(launch.command, launch.args, launch.env, pinned, scripts, step, terms=store)
    except (InstallFailed, TreeError) as error:
        if is_exact(pinned):
            raise
        raise TreeError(str(error) + OLD_RECORD) from None


FRESH_NEEDS_SANDBOX = (
    "`--fresh` resolves every launch in the sandbox, whatever a server's `sandbox:` says (today's releases are "
    "unreviewed code), and {reason}: {fix}; then run it again"
)


def package_room(sandbox: str, builds: frozenset[str]) -> Room:
    """Where a launch's package-manager steps run: the sandbox of scanner.install.step_room (its own network,
    only to the registry; the caller's home hidden). Without bwrap only a `sandbox: off` server's steps run,
    and then none of them runs package code (scanner.install.sandboxed); otherwise SandboxUnavailable, as the
    boot would raise."""
    from scanner.install.sandboxed import Room
    from scanner.install.step_room import step_wrap

    try:
        bwrap = require_bwrap()
    except SandboxUnavailable:
        if sandbox == OFF:
            return Room(None, builds)
        raise
    return Room(step_wrap(_no_network, has_size(bwrap)), builds)


def sandbox_room(builds: frozenset[str]) -> Room:
    """The Room of `--fresh`: always the sandbox. UsageError naming the fix where this machine has none."""
    from scanner.install.sandboxed import Room
    from scanner.install.step_room import step_wrap

    try:
        bwrap = require_bwrap()
    except SandboxUnavailable as error:
        if not sys.platform.startswith("linux"):
            reason, fix = "bubblewrap is Linux only", "run `--fresh` on a Linux runner"
        elif shutil.which("bwrap") is None:
            reason, fix = "there is no `bwrap` on PATH", "install bubblewrap (Debian/Ubuntu package `bubblewrap`)"
        else:
            reason, fix = f"bwrap cannot start a sandbox here ({error})", FIX_HINT.rsplit("; or set", 1)[0]
        raise UsageError(FRESH_NEEDS_SANDBOX.format(reason=reason, fix=fix)) from None
    return Room(step_wrap(_no_network, has_size(bwrap)), builds)


def _no_network(
    argv: list[str], env: dict[str, str], cwd: str, readable: Sequence[str], writable: Sequence[str]
) -> tuple[list[str], dict[str, str]]:
    return sandboxed(argv, env=env, cwd=cwd, network=DENY, readable=readable, writable=writable)
