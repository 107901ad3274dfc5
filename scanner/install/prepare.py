"""Resolve, record and install one launch's tree, then name the command that boots it from the store.

`prepare` is the one entry: it returns None for a launch it does not install (pnpm dlx, bunx, pipx, deno,
docker, a local script, an npx form it cannot follow), which boots as declared. Each step runs as a child
process awaited on the event loop, so concurrent boots go on meanwhile, and a step still running when the
boot's deadline passes is killed with it (the caller reports an install timeout).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from scanner.install import npm_launch as npm
from scanner.install import uv_launch as pypi
from scanner.install.packages import NPM, UV, TreeError, read_npm_lock, top_package, uv_tree
from scanner.install.store import discard, publish, ready_entry, staging, store_root

OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes of a resolution read back (a package-lock of thousands of packages)
TAIL = 600  # characters of a failed step's stderr shown


class InstallFailed(Exception):
    """A step of resolving or installing failed: names the step, its exit code and its last words."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"installing the launch's packages failed at `{step}`: {detail}")
        self.step = step


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


@dataclass
class Step:
    """Where a prepare is, for an install-timeout message."""

    name: str = "resolving"


async def prepare(
    command: str | None,
    args: tuple[str, ...],
    declared: Mapping[str, str],
    contain: Contain,
    step: Step,
    caller: Mapping[str, str] | None = None,
    install: bool = True,
) -> Prepared | None:
    """Install the tree the launch `command args` (with the declared `env`) runs, or None when it is not one
    mcp-lock installs; `install=False` only resolves and records it (`argv` is then empty). Raises
    InstallFailed or TreeError."""
    caller = os.environ if caller is None else caller
    if command is None or os.sep in command:
        return None  # a path names a file of the repository, not the package manager
    found = npm.npm_launch(command, args)
    if found is not None:
        return await _npm(found, npm.npm_environment(caller, declared), store_root(caller), contain, step, install)
    uv_found = pypi.uv_launch(command, args)
    if uv_found is not None:
        uv = shutil.which("uv", path=caller.get("PATH", os.defpath))
        if uv is None:
            return None
        return await _uv(uv, uv_found, pypi.uv_environment(caller, declared), store_root(caller), step, install)
    return None


def stored(
    command: str | None, args: tuple[str, ...], tree: Mapping[str, Any], caller: Mapping[str, str] | None = None
) -> Prepared | None:
    """The store's entry of an already pinned `tree`, ready to boot as the launch would run it; None when the
    store does not hold it whole (or the launch is not one that tree can be)."""
    if command is None or os.sep in command:
        return None
    entry = ready_entry(store_root(os.environ if caller is None else caller), tree)
    if entry is None:
        return None
    found = npm.npm_launch(command, args)
    if found is not None and tree.get("manager") == NPM:
        try:
            argv = npm.boot_argv(entry, found)
        except npm.NoBin:
            return None
        return Prepared(dict(tree), None, argv, str(entry), [str(entry / "node_modules" / ".bin")])
    uv_found = pypi.uv_launch(command, args)
    if uv_found is not None and tree.get("manager") == UV:
        return Prepared(dict(tree), None, pypi.boot_argv(entry, uv_found), str(entry))
    return None


async def _npm(
    launch: npm.NpmLaunch, env: dict[str, str], root: Path, contain: Contain, step: Step, install: bool
) -> Prepared:
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mcp-lock-resolve-") as project:
        Path(project, "package.json").write_text(npm.PROJECT_MANIFEST, encoding="utf-8")
        step.name = "npm install --package-lock-only"
        await _run(npm.resolve_command(launch), env, project, step.name)
        lock_text = _read(Path(project, "package-lock.json"), step.name)
        try:
            tree = read_npm_lock(lock_text)
        except ValueError as error:
            raise TreeError(f"npm's package-lock.json cannot be read: {error}") from None
        top = top_package(tree, launch.package)
        artifact = _npm_artifact(top) if top is not None else None
        if not install:
            return Prepared(tree, artifact, [], "")
        entry = ready_entry(root, tree)
        if entry is None:
            folder = staging(root, tree)
            try:
                for name in ("package.json", "package-lock.json"):
                    shutil.copyfile(Path(project, name), folder / name)
                step.name = "npm ci"
                await _run(npm.INSTALL_COMMAND, env, str(folder), step.name)
                if any(p.get("installScript") for p in tree["packages"]):
                    step.name = "npm rebuild (install scripts)"
                    argv, script_env = contain(list(npm.SCRIPTS_COMMAND), env, str(folder), str(folder))
                    try:
                        await _run(argv, script_env, str(folder), step.name)
                    except InstallFailed as error:  # npm's tree is whole; only what the script makes is missing
                        notes.append(str(error))
                # Off the event loop: a tree of thousands of files is a walk of thousands of chmods.
                entry = await anyio.to_thread.run_sync(publish, root, folder, tree)
            except BaseException:
                discard(folder)
                raise
    try:
        argv = npm.boot_argv(entry, launch)
    except npm.NoBin as error:
        raise InstallFailed("choosing the bin", str(error)) from None
    bins = str(entry / "node_modules" / ".bin")
    return Prepared(tree, artifact, argv, str(entry), [bins], notes)


def _npm_artifact(package: Mapping[str, Any]) -> dict[str, Any]:
    record = {"type": NPM, "name": package["name"], "version": package["version"]}
    if "integrity" in package:
        record["integrity"] = package["integrity"]
    return record


async def _uv(
    uv: str, launch: pypi.UvLaunch, env: dict[str, str], root: Path, step: Step, install: bool
) -> Prepared:
    with tempfile.TemporaryDirectory(prefix="mcp-lock-resolve-") as project:
        step.name = "uv pip compile"
        wanted = "".join(r + "\n" for r in launch.requirements)
        compiled = await _run(pypi.compile_command(uv, launch), env, project, step.name, stdin=wanted.encode())
        requirements = compiled.decode("utf-8", "replace")
        tree = uv_tree(requirements)
        top = top_package(tree, launch.requirements[0].split("[")[0].split("=")[0])
        artifact = {"type": "pypi", "name": top["name"], "version": top["version"]} if top is not None else None
        if not install:
            return Prepared(tree, artifact, [], "")
        entry = ready_entry(root, tree)
        if entry is None:
            folder = staging(root, tree)
            try:
                listed = folder / "requirements.txt"
                listed.write_text(requirements, encoding="utf-8")
                for command in pypi.install_commands(uv, folder, launch, listed):
                    step.name = "uv " + " ".join(command[1:3])
                    await _run(command, env, project, step.name)
                # Off the event loop: a tree of thousands of files is a walk of thousands of chmods.
                entry = await anyio.to_thread.run_sync(publish, root, folder, tree)
            except BaseException:
                discard(folder)
                raise
    return Prepared(tree, artifact, pypi.boot_argv(entry, launch), str(entry))


async def _run(
    argv: list[str], env: Mapping[str, str], cwd: str, step: str, stdin: bytes | None = None
) -> bytes:
    """Run one step to its end; its stdout. A non-zero exit is InstallFailed naming the step and exit code."""
    try:
        done = await anyio.run_process(argv, input=stdin, env=dict(env), cwd=cwd, check=False)
    except OSError as error:
        raise InstallFailed(step, f"cannot start {argv[0]}: {error.strerror or error}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or done.stdout.decode("utf-8", "replace").strip()
        shown = said[-TAIL:] if said else "no output"
        raise InstallFailed(step, f"exit code {done.returncode}: {shown}")
    if len(done.stdout) > OUTPUT_LIMIT:
        raise InstallFailed(step, f"more than {OUTPUT_LIMIT // (1024 * 1024)} MiB of output")
    return bytes(done.stdout)


def _read(path: Path, step: str) -> str:
    try:
        if path.stat().st_size > OUTPUT_LIMIT:
            raise InstallFailed(step, f"{path.name} is larger than {OUTPUT_LIMIT // (1024 * 1024)} MiB")
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InstallFailed(step, f"wrote no {path.name} ({error.strerror or error})") from None

