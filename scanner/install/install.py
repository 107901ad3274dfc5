"""Install exactly a recorded tree, with no resolution, and name the command that boots the server from it.

`install_tree` is what a reviewed launch runs: the store's entry of its tree when that verifies
(scanner.install.store), else the tree installed afresh from its record alone. npm: a package.json and a
package-lock.json written from the record, every entry naming its tarball and integrity, then
`npm ci --ignore-scripts` (npm refuses any tarball whose bytes differ) and, only when a package has an install
script, `npm rebuild` in the sandbox with nothing but the entry writable (every other step runs in the
sandbox too: scanner.install.runner). uv: the recorded hashed
requirements, `uv pip install --require-hashes --no-deps` into a relocatable virtual environment (uv refuses
any file whose sha256 is not recorded). A cold runner downloads the pinned tree, never today's resolution.

`resolve_and_install` is what a launch with no reviewed tree runs (`lock`, a changed launch, `update --fresh`):
scanner.install.resolution, then install_tree of what it recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from scanner.files.bounded_json import Bounds, parse
from scanner.install import npm_launch as npm
from scanner.install import uv_launch as pypi
from scanner.install.npm_record import npm_files, registries_of
from scanner.install.packages import NPM, UV, TreeError, top_package
from scanner.install.resolution import installable, npm_artifact, pypi_artifact, resolve_launch, uv_path
from scanner.install.runner import InstallFailed, Step, run_manager
from scanner.install.store import DEFAULT_STORE_MIB, discard, evict, publish, ready_entry, staging, store_root
from scanner.install.uv_record import requirements_text
from scanner.install.verify import seal_key

CONFIG_BOUNDS = Bounds(bytes=1024 * 1024, depth=8, values=20_000)  # `npm config list --json`
CONFIG_COMMAND = ["npm", "config", "list", "--json"]

# Runs an install-script step (argv, env, cwd, writable folder) as the server's policy says (the sandbox):
# returns the command line and environment to start.
Contain = Callable[[list[str], dict[str, str], str, str], tuple[list[str], dict[str, str]]]


@dataclass
class Prepared:
    """An installed tree and how to boot the server from it."""

    tree: dict[str, Any]
    artifact: dict[str, Any] | None
    argv: list[str]
    entry: str  # the store entry, bound read-only into the sandbox
    path: list[str] = field(default_factory=list)  # folders put in front of the server's PATH (npx's .bin)
    notes: list[str] = field(default_factory=list)  # install scripts that failed


@dataclass(frozen=True)
class StoreTerms:
    """How large the store may grow (the policy's `store-mib`) and which entries this run uses."""

    limit_mib: int = DEFAULT_STORE_MIB
    in_use: set[str] = field(default_factory=set)


async def resolve_and_install(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    contain: Contain,
    step: Step,
    caller: Mapping[str, str] | None = None,
    terms: StoreTerms | None = None,
) -> Prepared | None:
    """Resolve the launch today and install what that records; None for a launch mcp-lock does not install.
    Raises InstallFailed or TreeError."""
    resolved = await resolve_launch(command, args, declared, step, caller)
    if resolved is None:
        return None
    return await install_tree(command, args, declared, resolved.tree, contain, step, caller, terms)


async def install_tree(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    tree: Mapping[str, Any],
    contain: Contain,
    step: Step,
    caller: Mapping[str, str] | None = None,
    terms: StoreTerms | None = None,
) -> Prepared | None:
    """Install exactly `tree` (a lock's record) for the launch `command args`, verified, with no resolution;
    None for a launch mcp-lock does not install. Raises InstallFailed or TreeError."""
    caller = os.environ if caller is None else caller
    terms = terms or StoreTerms()
    launch = installable(command, args, caller)
    if launch is None:
        return None
    manager = NPM if isinstance(launch, npm.NpmLaunch) else UV
    if tree.get("manager") != manager:
        raise TreeError(f"the recorded tree is a {tree.get('manager')} tree, but the launch runs {manager}")
    root, key = store_root(caller), seal_key(caller)
    step.name = "verifying the store entry"
    entry = await anyio.to_thread.run_sync(ready_entry, root, tree, key)
    notes: list[str] = []
    if entry is None:
        folder = staging(root)
        try:
            if isinstance(launch, npm.NpmLaunch):
                notes = await _npm_install(launch, npm.npm_environment(caller, declared), tree, folder, contain, step)
            else:
                await _uv_install(launch, pypi.uv_environment(caller, declared), tree, folder, step, caller)
            step.name = "sealing the store entry"
            # Off the event loop: a tree of thousands of files is a walk of thousands of hashes and chmods.
            entry = await anyio.to_thread.run_sync(publish, root, folder, tree, key)
        except BaseException:
            discard(folder)
            raise
        terms.in_use.add(entry.name)
        await anyio.to_thread.run_sync(evict, root, terms.limit_mib, terms.in_use)
    terms.in_use.add(entry.name)
    return _boot(launch, dict(tree), entry, notes)


def _boot(launch: npm.NpmLaunch | pypi.UvLaunch, tree: dict[str, Any], entry: Path, notes: list[str]) -> Prepared:
    if isinstance(launch, pypi.UvLaunch):
        return Prepared(tree, pypi_artifact(tree, launch), pypi.boot_argv(entry, launch), str(entry), notes=notes)
    try:
        argv = npm.boot_argv(entry, launch)
    except npm.NoBin as error:
        raise InstallFailed("choosing the bin", str(error)) from None
    top = top_package(tree, launch.package)
    artifact = npm_artifact(top) if top is not None else None
    return Prepared(tree, artifact, argv, str(entry), [str(entry / "node_modules" / ".bin")], notes)


async def _npm_install(
    launch: npm.NpmLaunch, env: dict[str, str], tree: Mapping[str, Any], folder: Path, contain: Contain, step: Step
) -> list[str]:
    step.name = "npm config list"
    said = await run_manager(CONFIG_COMMAND, env, str(folder), step.name)
    try:
        registries = registries_of(parse(said, CONFIG_BOUNDS))
    except ValueError as error:
        raise TreeError(f"npm's configuration cannot be read: {error}") from None
    manifest, lock = npm_files(tree, [npm.spec_name(s) for s in launch.specs], registries)
    (folder / "package.json").write_text(manifest, encoding="utf-8")
    (folder / "package-lock.json").write_text(lock, encoding="utf-8")
    step.name = "npm ci"
    await run_manager(npm.INSTALL_COMMAND, env, str(folder), step.name)
    notes: list[str] = []
    if any(p.get("installScript") for p in tree["packages"]):
        step.name = "npm rebuild (install scripts)"
        argv, script_env = contain(list(npm.SCRIPTS_COMMAND), env, str(folder), str(folder))
        try:
            await run_manager(argv, script_env, str(folder), step.name, contained=True)
        except InstallFailed as error:  # npm's tree is whole; only what the script makes is missing
            notes.append(script_failure(str(error)))
    return notes


def script_failure(said: str) -> str:
    """The note of a failed `npm rebuild`, led by the installed packages whose scripts failed (npm's
    `npm error path` lines name each by its install path, node_modules/a/node_modules/b)."""
    failed = [line.partition("npm error path ")[2].strip() for line in said.splitlines() if "npm error path " in line]
    names = sorted({path.rpartition("node_modules/")[2] for path in failed if "node_modules/" in path})
    return (f"the install script of {', '.join(f'`{n}`' for n in names)} failed; " if names else "") + said


async def _uv_install(
    launch: pypi.UvLaunch, env: dict[str, str], tree: Mapping[str, Any], folder: Path, step: Step,
    caller: Mapping[str, str],
) -> None:
    uv = uv_path(caller)
    assert uv is not None  # installable checked it
    listed = folder / "requirements.txt"
    listed.write_text(requirements_text(tree), encoding="utf-8")
    for command in pypi.install_commands(uv, folder, launch, listed):
        step.name = "uv " + " ".join(command[1:3])
        await run_manager(command, env, str(folder), step.name)
