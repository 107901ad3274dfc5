"""`check`: the package versions new to a server, screened against their registry (scanner.artifacts.release_screen).

New means: not in the lock at the merge base (`check --base`), else not in the lock (a live check saw the
launch run another version than the one pinned). The screens are judged by `min-release-age` of the policy the
run is judged by (under `--base`, the merge base's). A run that has nothing new asks no registry. The registry is
the one the launch fetches from: its declaration's `npm_config_registry` (or PyPI index setting), else mcp-lock's
(for PyPI: the user's uv or pip configuration, else uv's own default; scanner.artifacts.pypi_index).
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Mapping
from typing import Any

from scanner.artifacts.advisories import advisory_findings
from scanner.artifacts.inventory import (
    TREE_ECOSYSTEMS,
    Package,
    ServerPackage,
    pin_packages,
    server_packages,
    tree_packages,
)
from scanner.artifacts.packument import RegistryError, Release, asked_once, registry_for, releases
from scanner.artifacts.pypi_index import configured_index, index_releases
from scanner.artifacts.release_screen import NewPackage, new_packages, release_findings
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.pointer import pointer
from scanner.run.outcome import Outcome
from scanner.run.provenance_check import provenance_findings
from scanner.run.shard import Shard, in_shard
from scanner.run.workspace import Workspace, read_lock, server_keys

DEADLINE = 300.0  # seconds for every registry question of one run
REGISTRY_CLIENT = "mcp-registry"  # the client a server.json declaration is recorded under


def check_releases(
    workspace: Workspace, outcome: Outcome, shard: Shard | None, now: datetime.datetime | None = None
) -> list[Finding]:
    """The release-age, install-script and mcpName findings of the packages new to this shard's servers."""
    lockfile = read_lock(workspace)
    assert lockfile is not None
    pins = lockfile.servers
    after = server_packages(pins, outcome.artifacts)
    before: Mapping[str, list[ServerPackage]]
    if outcome.base_pins is not None:
        before = {key: pin_packages(key, pin) for key, pin in outcome.base_pins.items()}
    else:
        before = {key: pin_packages(key, pin) for key, pin in pins.items()}
    keys = server_keys(workspace, lockfile)
    owned = shard.select(keys) if shard is not None else keys
    changes = [
        NewPackage(c.server, c.entry, c.previous, registry_name(pins[c.server]), c.fresh)
        for c in new_packages(before, after)
        if c.server in owned and c.server in pins
    ]
    return in_shard(screen_changes(workspace, changes, now, outcome, pins), shard, keys)


def screen_tree_change(
    workspace: Workspace,
    key: str,
    old_tree: Mapping[str, Any] | None,
    new_tree: Mapping[str, Any],
    top: str | None,
    *,
    advisories: str | None = None,
    now: datetime.datetime | None = None,
    pin: ServerPin | None = None,
) -> list[Finding]:
    """Every package of `new_tree` (server `key`'s, launching `top`) that `old_tree` did not hold at that version,
    wherever it sits: release age, a newly present install script or build, the license it states, and, with an
    OSV `advisories` source, its advisories (MAL- critical). `old_tree` None is a first pin: advisories only.
    Each finding names the package and the package that pulls it in. For `check --fresh` / `update --fresh`
    (the fresh resolution against the pinned tree) and any caller holding two trees. With the server's `pin`,
    the provenance each old package's record holds is what its successor is judged against (the registry may
    no longer serve the predecessor's attestations: the lock still says it had them)."""
    if TREE_ECOSYSTEMS.get(str(new_tree.get("manager"))) is None:
        return []
    new = tree_packages(new_tree, top, lambda index: pointer("servers", key, "launch", "tree", "packages", str(index)))
    at = lambda index: pointer("servers", key, "launch", "tree", "packages", str(index))  # noqa: E731
    old = tree_packages(old_tree, top, at) if old_tree is not None else []
    if old_tree is not None and TREE_ECOSYSTEMS.get(str(old_tree.get("manager"))) is None:
        old = []
    changes = new_packages({key: old}, {key: new})
    # Each side's records at the locations its packages carry: the new tree's for the new version, the pinned
    # tree's for the one it replaces.
    after = {key: dataclasses.replace(pin, tree=dict(new_tree))} if pin is not None else {}
    before = {key: dataclasses.replace(pin, tree=dict(old_tree))} if pin is not None and old_tree else {}
    findings = [] if old_tree is None else screen_changes(workspace, changes, now, None, after, before)
    if advisories is not None and changes:
        findings += advisory_findings(advisories, {key: [change.entry for change in changes]})
    return findings


def screen_changes(
    workspace: Workspace, changes: list[NewPackage], now: datetime.datetime | None = None,
    outcome: Outcome | None = None, pins: Mapping[str, ServerPin] | None = None,
    replaced: Mapping[str, ServerPin] | None = None,
) -> list[Finding]:
    """The release-age, install-script, license and mcpName findings of `changes`, each registry asked once;
    with the run's `outcome`, under `check --base` the registry the merge base names (`registry_env`)."""
    if not changes:
        return []
    min_age = datetime.timedelta(days=workspace.policy.min_release_age)
    deadline = time.monotonic() + DEADLINE
    servers = {c.server for c in changes}
    envs = {key: registry_env(workspace, outcome, key) if outcome else launch_env(workspace, key) for key in servers}
    npm_default = asked_once()
    registries = {key: registry_for(envs[key], workspace.environ, npm_default) for key in servers}
    indexes = {key: configured_index(envs[key], workspace.environ) for key in servers}

    asked: dict[tuple[str | None, Package, str | None], tuple[Release, Release | None] | None] = {}

    def describe(change: NewPackage) -> tuple[Release, Release | None] | None:
        package = change.entry.package
        previous = change.previous.package.version if change.previous else None
        pypi = package.ecosystem == "PyPI"
        source = indexes[change.server] if pypi else registries[change.server]
        key = (source, package, previous)  # servers that share a package version ask once
        if key not in asked:
            asked[key] = _ask(source, package, previous, pypi, deadline)
        return asked[key]

    moment = now or datetime.datetime.now(datetime.UTC)
    findings = release_findings(changes, min_age, moment, describe)
    sources = {key: (registries[key], indexes[key]) for key in servers}
    if pins is None:
        lockfile = read_lock(workspace)
        pins = lockfile.servers if lockfile is not None else {}
    base_pins = outcome.base_pins if outcome is not None else replaced  # whose records the old versions are
    findings += provenance_findings(changes, describe, pins, base_pins, sources, workspace.environ,
                                    deadline, moment)
    if workspace.policy.min_release_age == 0:
        findings = [f for f in findings if f.rule.id != "release-too-young"]
    return findings


def _ask(
    source: str | None, package: Package, previous: str | None, pypi: bool, deadline: float
) -> tuple[Release, Release | None] | None:
    if pypi:
        if source is None:
            raise RegistryError("no Python package index is configured and no uv is installed to name its default")
        return index_releases(source, package.name, package.version, previous, deadline)
    if source is None:
        raise RegistryError("no npm registry is configured (npm_config_registry) and npm is not installed")
    return releases(source, package.name, package.version, previous, deadline)


def registry_name(pin: ServerPin) -> str | None:
    """The official MCP registry name a server.json declaration gives the server (`io.github.x/y`), if one does:
    the declaration's name, less the `#npm` suffix a server.json with several packages adds."""
    for declaration in pin.declarations:
        if declaration.get("client") == REGISTRY_CLIENT and isinstance(declaration.get("name"), str):
            return declaration["name"].split("#", 1)[0]
    return None


def registry_env(workspace: Workspace, outcome: Outcome, key: str) -> Mapping[str, str]:
    """The launch environment that names the registry to ask: under `check --base` the merge base's declaration
    of the server (none there: no declared registry, so mcp-lock's own), never the change's."""
    if outcome.base_pins is not None:
        return outcome.base_envs.get(key, {})
    return launch_env(workspace, key)


def launch_env(workspace: Workspace, key: str) -> Mapping[str, str]:
    """The environment the server's declaration gives its launch, resolved (the lock records only templates, and
    a value shaped like a credential, such as a registry URL with a port, only as its digest)."""
    for server in workspace.discovery.servers:
        if server.key == key and server.resolved is not None:
            return server.resolved.env
    return {}
