"""Before a stdio server boots: install what its launch runs (scanner.install), within the boot's own time.

The resolution and the install run as child processes awaited on the event loop, so the other boots go on
meanwhile; their time counts against the server's timeout, and an install still running when it passes is
reported as such, with the fix. Install scripts run in the sandbox the policy gives the server, with only the
store entry being installed writable. A package launcher mcp-lock does not install itself keeps booting as
declared, with one `code-unpinned` note.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import anyio

from scanner.install.packages import TreeError
from scanner.install.prepare import InstallFailed, Step, prepare, stored
from scanner.install.store import store_root
from scanner.sources.declarations import ResolvedLaunch
from scanner.sources.unpinned import launched
from scanner.transports.channel import Installed
from scanner.transports.sandbox import DEFAULT_TMPFS_MIB, launch_command

CODE_UNPINNED = "code-unpinned"
INSTALL_SCRIPT_FAILED = "install-script-failed"
INSTALL_TIMEOUT = (
    "timed out after {timeout:g}s while installing the launch's packages (still at `{step}`): the store did not "
    "hold this tree yet. Warm the store once with a longer `timeout:` for this server in mcp-lock.yaml (a second "
    "boot of the same tree downloads nothing), and in CI cache {store} between runs"
)
NOT_INSTALLED = (
    "`{package}` is launched with {runner}, which mcp-lock does not install itself: its code and dependencies "
    "are not pinned, only its tool surface; launch it with npx or uvx and an exact version to pin its whole tree"
)


@dataclass
class Install:
    """What installing gave: how to boot from the store, and what to record; or why the boot cannot go on."""

    installed: Installed | None = None
    tree: dict[str, Any] | None = None
    artifact: dict[str, Any] | None = None
    error: str | None = None


def pinned_install(launch: ResolvedLaunch, tree: dict[str, Any] | None) -> Install | None:
    """The store's entry of the tree the lock pins, when the store holds it: `check` boots exactly that at once,
    while it resolves afresh to compare (install_launch with `install=False`)."""
    prepared = stored(launch.command, launch.args, tree) if tree is not None else None
    if prepared is None:
        return None
    return Install(Installed(prepared.argv, prepared.entry, prepared.path))


async def install_launch(
    launch: ResolvedLaunch,
    deadline: float,
    timeout: float,
    *,
    network: str,
    sandbox: str,
    tmpfs_mib: int = DEFAULT_TMPFS_MIB,
    notes: list[tuple[str, str]],
    install: bool = True,
) -> Install:
    """Install `launch`'s tree by `deadline` (monotonic), or with `install=False` only resolve and record it; an
    Install with `error` set when that failed."""

    def contain(argv: list[str], env: dict[str, str], cwd: str, writable: str) -> tuple[list[str], dict[str, str]]:
        # Install scripts are package code: the server's sandbox and network, the entry writable.
        script_env = {k: v for k, v in env.items() if k.lower() != "npm_config_cache"}  # the caller's: read-only
        return launch_command(
            argv, script_env, cwd, network, sandbox, readable=[writable], tmpfs_mib=tmpfs_mib, writable=[writable]
        )

    step = Step()
    try:
        with anyio.fail_after(max(0.0, deadline - time.monotonic())):
            prepared = await prepare(launch.command, launch.args, launch.env, contain, step, install=install)
    except TimeoutError:
        store = store_root(os.environ)
        return Install(error=INSTALL_TIMEOUT.format(timeout=timeout, step=step.name, store=store))
    except (InstallFailed, TreeError) as error:
        return Install(error=str(error))
    if prepared is None:
        found = launched(launch)
        if found is not None and found.ecosystem in ("npm", "pypi"):
            notes.append((CODE_UNPINNED, NOT_INSTALLED.format(package=found.package, runner=found.runner)))
        return Install()
    notes += [(INSTALL_SCRIPT_FAILED, note) for note in prepared.notes]
    installed = Installed(prepared.argv, prepared.entry, prepared.path) if install else None
    return Install(installed, prepared.tree, prepared.artifact)
