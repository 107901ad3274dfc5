"""Resolve a launch today: what its package manager would install now, recorded (format 4) before any
package code runs. `lock`, `update` of a changed launch and `update --fresh` pin this, a changed launch (a
bump) boots it withheld, `check --fresh` compares it with the lock, and `check --base` resolves a moved tree
again to tell a re-pin from a forged record; a reviewed launch is never resolved (scanner.install.install).

npm: `npm install --package-lock-only --ignore-scripts` of the launch's specs in an empty project of
mcp-lock's own (the user's npm configuration and the declaration's registry, never the repository's).
uv: `uv pip compile --universal --generate-hashes --no-build` of its requirements in an empty folder.
Every step runs in the sandbox (scanner.install.runner).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.install import npm_launch as npm
from scanner.install import uv_launch as pypi
from scanner.install.npm_record import read_npm_lock
from scanner.install.packages import NPM, TreeError, top_package
from scanner.install.runner import Step, read_output, run_manager
from scanner.install.sandboxed import refused_sources
from scanner.install.uv_record import uv_tree

Launch = npm.NpmLaunch | pypi.UvLaunch


@dataclass
class Resolved:
    """A launch's tree as it resolves today, and the launched package's own record (`launch.artifact`)."""

    tree: dict[str, Any]
    artifact: dict[str, Any] | None


def installable(command: str | None, args: tuple[str, ...], caller: Mapping[str, str]) -> Launch | None:
    """The launch as mcp-lock installs it, or None for one it does not (pnpm dlx, bunx, pipx, deno, docker, a
    local script, an npx form it cannot follow, uvx without uv on PATH): that boots as declared."""
    if command is None or os.sep in command:
        return None  # a path names a file of the repository, not the package manager
    found = npm.npm_launch(command, args)
    if found is not None:
        return found
    uv_found = pypi.uv_launch(command, args)
    return uv_found if uv_found is not None and uv_path(caller) is not None else None


def uv_path(caller: Mapping[str, str]) -> str | None:
    return shutil.which("uv", path=caller.get("PATH", os.defpath))


async def resolve_launch(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    step: Step,
    caller: Mapping[str, str] | None = None,
    before: str | None = None,
) -> Resolved | None:
    """What the launch `command args` (with the declared env) would install today (with `before`, an ISO 8601
    time: as of then, by the registry's own publish times), recorded; None for a launch mcp-lock does not
    install. Raises InstallFailed, TreeError or StepRefused (scanner.install.sandboxed)."""
    caller = os.environ if caller is None else caller
    launch = installable(command, args, caller)
    if isinstance(launch, npm.NpmLaunch):
        return await _npm(launch, npm.npm_environment(caller, declared), step, before)
    if isinstance(launch, pypi.UvLaunch):
        uv = uv_path(caller)
        assert uv is not None  # installable checked it
        return await _uv(uv, launch, pypi.uv_environment(caller, declared), step, before)
    return None


async def _npm(launch: npm.NpmLaunch, env: dict[str, str], step: Step, before: str | None = None) -> Resolved:
    with tempfile.TemporaryDirectory(prefix="mcp-lock-resolve-") as project:
        Path(project, "package.json").write_text(npm.PROJECT_MANIFEST, encoding="utf-8")
        step.name = "npm install --package-lock-only"
        await run_manager(npm.resolve_command(launch, before), env, project, step.name)
        lock_text = read_output(Path(project, "package-lock.json"), step.name)
    refused = refused_sources(lock_text)  # a git dependency: the `dependency-source-refused` finding
    if refused is not None:
        raise refused
    try:
        tree = read_npm_lock(lock_text)
    except ValueError as error:
        raise TreeError(f"npm's package-lock.json cannot be read: {error}") from None
    top = top_package(tree, launch.package)
    return Resolved(tree, npm_artifact(top) if top is not None else None)


def npm_artifact(package: Mapping[str, Any]) -> dict[str, Any]:
    record = {"type": NPM, "name": package["name"], "version": package["version"]}
    if "integrity" in package:
        record["integrity"] = package["integrity"]
    return record


async def _uv(uv: str, launch: pypi.UvLaunch, env: dict[str, str], step: Step, before: str | None = None) -> Resolved:
    with tempfile.TemporaryDirectory(prefix="mcp-lock-resolve-") as project:
        step.name = "uv pip compile"
        wanted = "".join(r + "\n" for r in launch.requirements)
        command = pypi.compile_command(uv, launch, before)
        compiled = await run_manager(command, env, project, step.name, stdin=wanted.encode())
    tree = uv_tree(compiled.decode("utf-8", "replace"))
    return Resolved(tree, pypi_artifact(tree, launch))


def pypi_artifact(tree: Mapping[str, Any], launch: pypi.UvLaunch) -> dict[str, Any] | None:
    top = top_package(tree, launch.requirements[0].split("[")[0].split("=")[0])
    return {"type": "pypi", "name": top["name"], "version": top["version"]} if top is not None else None
