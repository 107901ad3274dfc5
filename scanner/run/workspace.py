"""The repository a command runs on: its declarations, policy and lockfile, and the run's options."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scanner.errors import UsageError
from scanner.files.kept import Kept, cache_dir
from scanner.files.safe_read import containment_root, display_path
from scanner.lock.lockfile import Lockfile, LockfileError
from scanner.policy.allowlist import AllowlistError, Lists, managed_lists
from scanner.policy.inert import Hidden
from scanner.policy.settings import Policy, load_policy
from scanner.policy.values import PolicyError
from scanner.run.shard import Shard
from scanner.sources.closure import LaunchView
from scanner.sources.discover import Discovery, discover

if TYPE_CHECKING:
    from scanner.detectors.verdict_cache import Verdicts

LOCKFILE_NAME = "mcp-lock.json"
MANAGED_SETTINGS = "MCP_LOCK_MANAGED_SETTINGS"  # the CI's setting, never the repository's


@dataclass
class Options:
    timeout: float | None = None
    concurrency: int | None = None
    progress: Callable[[str], None] | None = None
    shard: Shard | None = None  # `check --shard I/N`: only this share of the servers
    only: frozenset[str] | None = None  # `check --changed-only`: boot only these servers
    # `check --base`: each server's launch as pinned at the merge base, and the servers that run a file the
    # change edits; a launch is given its secrets only when it is reviewed (scanner.run.withhold).
    base_launches: Mapping[str, Mapping[str, object]] | None = None
    edited: frozenset[str] = frozenset()
    # `check --base`: each server's closure, names and declarations at the merge base, and the files the
    # change touches outside the inert set (scanner.policy.inert).
    base_views: Mapping[str, LaunchView] = field(default_factory=dict)
    touched: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()  # every file the change touches but the lock (nothing is inert unsandboxed)
    prefix: str = ""  # the scanned folder from the git top, which `changed` paths start from
    # `check --base`: servers whose tree record differs from the base's (scanner.vcs.tree_review), and why.
    base_trees: Mapping[str, str] = field(default_factory=dict)
    bare: frozenset[str] = frozenset()  # servers booted without any pass-through variable
    confined: frozenset[str] = frozenset()  # servers booted in the sandbox whatever the policy says
    # False under `check --base`, whose review rescans every pin itself, telling text new since the base.
    rescan_pins: bool = True
    # `check`: the lock's dependency tree per server, booted from mcp-lock's store when it holds it.
    pinned_trees: Mapping[str, dict[str, Any]] | None = None
    # `update --fresh`: re-pin to what each launch resolves to today, never to the tree the lock records.
    fresh: bool = False
    advisories: str | None = None  # `update --fresh --advisories`: the OSV source its screens ask


@dataclass
class Workspace:
    repo: Path
    lock_path: Path
    discovery: Discovery
    policy: Policy
    environ: Mapping[str, str] = field(default_factory=dict)
    # The enterprise allowlist the CI names ($MCP_LOCK_MANAGED_SETTINGS, `check --managed-settings`), if any.
    managed: Lists | None = None
    # The last lock read, by the file's identity: `check --base` reads it in review() and check().
    read_cache: tuple[tuple[int, int, int], Lockfile] | None = field(default=None, repr=False, compare=False)
    # What repository-code launches do not see of the repository (scanner.run.inert_view), once worked out.
    hidden: dict[str, Hidden] = field(default_factory=dict, repr=False, compare=False)  # by server key

    @property
    def lock_display(self) -> str:
        return display_path(self.repo, self.lock_path)


def open_workspace(repo: Path, lock_path: Path | None, environ: Mapping[str, str] | None = None) -> Workspace:
    environ = dict(os.environ) if environ is None else environ
    if not repo.is_dir():
        raise UsageError(f"{repo}: not a directory")
    try:
        policy = load_policy(repo, environ)
    except PolicyError as error:
        raise UsageError(str(error)) from None
    discovery = _discover(repo, environ, policy)
    _refuse_undeclared_policy_entries(policy, discovery)
    managed = environ.get(MANAGED_SETTINGS)
    workspace = Workspace(repo, lock_path or repo / LOCKFILE_NAME, discovery, policy, environ)
    workspace.managed = read_managed(Path(managed)) if managed else None
    return workspace


def read_managed(path: Path) -> Lists:
    """An enterprise managed-settings.json's allowlist; a usage error (exit 2) when it cannot be used."""
    try:
        return managed_lists(path)
    except AllowlistError as error:
        raise UsageError(str(error)) from None


def _discover(repo: Path, environ: Mapping[str, str], policy: Policy) -> Discovery:
    server_inputs = {key: value.inputs for key, value in policy.servers.items() if value.inputs}
    return discover(repo, environ, inputs=policy.inputs, server_inputs=server_inputs, input_vars=policy.input_vars)


def judge_by(workspace: Workspace, policy: Policy) -> None:
    """Run under `policy` instead of the committed one (`check --base`: the base's); declarations are
    resolved again with its inputs, before anything is read against the lock."""
    workspace.policy = policy
    workspace.discovery = _discover(workspace.repo, workspace.environ, policy)
    workspace.read_cache = None  # reading the lock keys the new discovery by its pins


def declared_names(discovery: Discovery) -> set[str]:
    """Every name a server can be called by: its key, each declared name, and `name@file`."""
    names: set[str] = set()
    for server in discovery.servers:
        names.update(server.names)
        names.update(f"{d.name}@{d.location.file}" for d in server.declarations)
    return names


def _refuse_undeclared_policy_entries(policy: Policy, discovery: Discovery) -> None:
    """A policy entry for a server nobody declares is a typo that would silently disable a setting.

    Not while a config file cannot be read: the server may be declared there, and that error is reported.
    """
    if any(p.severity == "error" for config in discovery.files for p in config.problems):
        return
    known = declared_names(discovery)
    for name in policy.servers:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=3)
            suggestion = f"; did you mean {', '.join(close)}?" if close else ""
            raise UsageError(f"{policy.path}: servers.{name}: no config file declares a server {name}{suggestion}")


def read_lock(workspace: Workspace, *, missing_ok: bool = False, canonical: bool = True) -> Lockfile | None:
    """The verified lock; None when there is none and `missing_ok`. A dangling symlink is not "none".

    `canonical`: refuse a lock whose text is not the canonical rendering of its content (see reader.read).
    """
    if not os.path.lexists(workspace.lock_path):
        if missing_ok:
            return None
        raise UsageError(f"{workspace.lock_display}: no lockfile; run `mcp-lock lock` first and commit it")
    identity = _identity(workspace.lock_path)  # a write replaces the file: a new identity
    if identity is not None and workspace.read_cache is not None and workspace.read_cache[0] == identity:
        return workspace.read_cache[1]
    from scanner.lock import reader  # here: `lock` of a new repository spawns its first server without it

    root = containment_root(workspace.repo, workspace.lock_path)
    known = _known_canonical(workspace)
    try:
        lockfile = reader.read(
            workspace.lock_path, root=root, display=workspace.lock_display, canonical=canonical, known=known
        )
    except LockfileError as error:
        raise UsageError(str(error)) from None
    known.save()
    if identity is not None and canonical:
        workspace.read_cache = (identity, lockfile)
    adopt_pinned_keys(workspace.discovery, lockfile)
    return lockfile


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)


def adopt_pinned_keys(discovery: Discovery, lockfile: Lockfile) -> None:
    """Key each server by the name it is already pinned under, when it has several.

    A launch declared under two names is keyed by the first in discovery order; a file added later that
    sorts first would otherwise move the pin to a new name and report the old one as undeclared.
    """
    taken = {s.key for s in discovery.servers}
    for server in discovery.servers:
        if server.key in lockfile.servers:
            continue
        pinned = next((n for n in server.names if n in lockfile.servers and n not in taken), None)
        if pinned is not None:
            taken.discard(server.key)
            server.key = pinned
            taken.add(pinned)
    discovery.servers.sort(key=lambda s: s.key)


def server_named(workspace: Workspace, name: str) -> str:
    """The key of the declared server that `name` (any of its declared names) calls; `name` itself otherwise."""
    for server in workspace.discovery.servers:
        if name in server.names:
            return server.key
    return name


def write_lock(workspace: Workspace, lockfile: Lockfile) -> None:
    from scanner.lock import writer  # loaded while the servers boot (scanner.run.analysis)

    workspace.read_cache = None  # lock and update changed the object it holds
    root = containment_root(workspace.repo, workspace.lock_path)
    known = _known_canonical(workspace)
    try:
        writer.write(workspace.lock_path, lockfile, root=root, display=workspace.lock_display, known=known)
    except LockfileError as error:
        raise UsageError(str(error)) from None
    known.save()


def server_keys(workspace: Workspace, lockfile: Lockfile) -> set[str]:
    """Every declared or pinned server: what `--shard` splits."""
    return {s.key for s in workspace.discovery.servers} | lockfile.servers.keys()


def kept_verdicts(workspace: Workspace) -> Verdicts:
    """The clean verdicts this user's earlier runs kept (scanner.detectors.verdict_cache); never the repository's."""
    from scanner.detectors.verdict_cache import Verdicts  # the detectors load after the first spawn (run.analysis)

    return Verdicts(cache_dir(workspace.environ), workspace.repo)


def _known_canonical(workspace: Workspace) -> Kept:
    """The lock texts this user's earlier runs proved canonical (reader.read); never the repository's."""
    from scanner.lock import reader

    return Kept(cache_dir(workspace.environ), workspace.repo, "canonical", reader.rendering_key())
