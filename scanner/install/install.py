"""Install exactly a recorded tree, with no resolution, and name the command that boots the server from it.

`install_tree` is what a reviewed launch runs: the store's entry of its tree when that verifies
(scanner.install.store), else the tree installed afresh from its record alone. npm: a package.json and a
package-lock.json written from the record, every entry naming its tarball and integrity at the registries
`npm config list` answers (asked once a run per npm environment: scanner.install.npm_config), then
`npm ci --ignore-scripts` (npm refuses any tarball whose bytes differ) and, only when a package has an install
script, `npm rebuild NAME` for each such package in the sandbox with nothing but the entry writable, its
network only through mcp-lock's gate to the registry and the hosts the base policy names for that package
(`script-hosts:`); every other step runs in the sandbox too (scanner.install.runner). uv: the recorded hashed
requirements, `uv pip install --require-hashes --no-deps` into a relocatable virtual environment (uv refuses
any file whose sha256 is not recorded). A cold runner downloads the pinned tree, never today's resolution.

`resolve_and_install` is what a launch with no reviewed tree runs (`lock`, a changed launch, `update --fresh`):
scanner.install.resolution, then install_tree of what it recorded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from scanner.files.bounded_json import Bounds, parse
from scanner.install import npm_launch as npm
from scanner.install import uv_launch as pypi
from scanner.install.netgate import Destination
from scanner.install.npm_config import NpmConfigs
from scanner.install.npm_record import npm_files, registries_of
from scanner.install.packages import NPM, UV, TreeError, top_package
from scanner.install.resolution import installable, npm_artifact, pypi_artifact, resolve_launch, uv_path
from scanner.install.runner import ROOM, InstallFailed, Step, run_manager
from scanner.install.store import DEFAULT_STORE_MIB, discard, evict, publish, ready_entry, staging, store_root
from scanner.install.uv_record import requirements_text
from scanner.install.verify import seal_key

CONFIG_BOUNDS = Bounds(bytes=1024 * 1024, depth=8, values=20_000)  # `npm config list --json`
CONFIG_COMMAND = ["npm", "config", "list", "--json"]
_DESTINATION = re.compile(r"[^\s:]+:[0-9]{1,5}|\[[0-9a-f:.]+\]:[0-9]{1,5}")  # what the gate refused: host:port

# The hosts the base policy lets one npm package's install script reach besides the registry (`script-hosts:`,
# scanner.policy.script_hosts): the package's name as fetched (an alias's target) -> (host, port).
ScriptHosts = Mapping[str, frozenset[Destination]]
NO_SANDBOX_SCRIPTS = (
    "not run: this machine has no sandbox (bubblewrap), and mcp-lock runs no install script outside it, "
    "`sandbox: off` or not"
)


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
    """How large the store may grow (the policy's `store-mib`), which entries this run uses, and npm's
    registries as this run read them (scanner.install.npm_config)."""

    limit_mib: int = DEFAULT_STORE_MIB
    in_use: set[str] = field(default_factory=set)
    npm_configs: NpmConfigs = field(default_factory=NpmConfigs)


async def resolve_and_install(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    scripts: ScriptHosts,
    step: Step,
    caller: Mapping[str, str] | None = None,
    terms: StoreTerms | None = None,
) -> Prepared | None:
    """Resolve the launch today and install what that records; None for a launch mcp-lock does not install.
    Raises InstallFailed or TreeError."""
    resolved = await resolve_launch(command, args, declared, step, caller)
    if resolved is None:
        return None
    return await install_tree(command, args, declared, resolved.tree, scripts, step, caller, terms)


async def install_tree(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    tree: Mapping[str, Any],
    scripts: ScriptHosts,
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
                env = npm.npm_environment(caller, declared)
                notes = await _npm_install(launch, env, tree, folder, scripts, step, terms.npm_configs)
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
    launch: npm.NpmLaunch, env: dict[str, str], tree: Mapping[str, Any], folder: Path, scripts: ScriptHosts,
    step: Step, configs: NpmConfigs,
) -> list[str]:
    step.name = "npm config list"
    registries = await configs.registries(_config_key(env, folder), lambda: _ask_registries(env, folder, step.name))
    manifest, lock = npm_files(tree, [npm.spec_name(s) for s in launch.specs], registries)
    (folder / "package.json").write_text(manifest, encoding="utf-8")
    (folder / "package-lock.json").write_text(lock, encoding="utf-8")
    step.name = "npm ci"
    await run_manager(npm.INSTALL_COMMAND, env, str(folder), step.name)
    notes: list[str] = []
    for name, hosts in script_steps(tree, scripts):
        step.name = f"npm rebuild {name} (install script)"
        if ROOM.get().wrap is None:
            notes.append(f"the install script of `{name}` was {NO_SANDBOX_SCRIPTS}")
            continue
        try:
            await run_manager([*npm.SCRIPTS_COMMAND, name], env, str(folder), step.name, scripts=hosts)
        except InstallFailed as error:  # npm's tree is whole; only what the script makes is missing
            notes.append(script_failure(name, str(error), error.refused))
    return notes


def _config_key(env: Mapping[str, str], folder: Path) -> tuple[object, ...]:
    """What `npm config list` in the empty staging `folder` answers from: the step's environment, the sandbox
    or none, and where the staging folders lie (npm looks for a project upwards from its folder)."""
    return ROOM.get().wrap is None, str(folder.parent), tuple(sorted(env.items()))


async def _ask_registries(env: Mapping[str, str], folder: Path, step: str) -> dict[str, str]:
    said = await run_manager(CONFIG_COMMAND, env, str(folder), step)
    try:
        return registries_of(parse(said, CONFIG_BOUNDS))
    except ValueError as error:
        raise TreeError(f"npm's configuration cannot be read: {error}") from None


def script_steps(tree: Mapping[str, Any], scripts: ScriptHosts) -> list[tuple[str, frozenset[Destination]]]:
    """One `npm rebuild NAME` per installed name with an install script, deepest first (dependencies build
    before what needs them), each with the hosts the policy allows every package installed under that name
    (an alias is allowed what its target is, and two packages under one name only what both are)."""
    found: dict[str, list[frozenset[Destination]]] = {}
    depth: dict[str, int] = {}
    for package in tree["packages"]:
        if not package.get("installScript"):
            continue
        path = str(package.get("path", ""))
        name = path.rpartition("node_modules/")[2]
        fetched = str(package.get("name") or name)
        found.setdefault(name, []).append(scripts.get(fetched, frozenset()))
        depth[name] = max(depth.get(name, 0), path.count("node_modules/"))
    ordered = sorted(found, key=lambda n: (-depth[n], n))
    return [(name, frozenset.intersection(*found[name])) for name in ordered]


def script_failure(name: str, said: str, refused: Sequence[str] = ()) -> str:
    """The note of a failed install script: the package, the hosts it was refused and the fix, then npm's
    last words."""
    hosts = [what.removesuffix(":443") for what in refused if _DESTINATION.fullmatch(what)]
    if not hosts:
        return f"the install script of `{name}` failed; " + "".join(f"the gate refused {r}; " for r in refused) + said
    allowance = "{" + f"{name}: [{', '.join(hosts)}]" + "}"
    return (
        f"the install script of `{name}` failed after asking for {', '.join(hosts)}, which install scripts do not "
        f"reach (only the configured registry, and the hosts the policy names for that package): if you trust it to "
        f"download from there, add `script-hosts: {allowance}` to mcp-lock.yaml on the default branch (a pull "
        f"request that adds it is `policy-loosened`); {said}"
    )


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
