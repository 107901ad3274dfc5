"""Each server's launch as the merge base declares it (its closure, names and declarations), and the policy
bound to the servers that had each name there: what scanner.run.withhold compares a launch with under
`check --base`. A launch whose declaration is the base's but which resolves differently (an input default,
a policy `inputs:` literal, the variable a header reads, a `{file:…}`'s contents) changed in a way no re-pin
shows in the lock: a blocking `closure-changed` finding names what differs."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

import git

from scanner.errors import UsageError
from scanner.files.safe_read import FILE_REF_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.lock.lockfile import Lockfile, launch_diff
from scanner.model.findings import Finding
from scanner.model.rules import CLOSURE_CHANGED
from scanner.policy.settings import Policy
from scanner.run.workspace import Workspace, adopt_pinned_keys
from scanner.sources.closure import LaunchView, differences, file_refs, view_of
from scanner.sources.declarations import Server
from scanner.sources.discover import Discovery
from scanner.vcs.affected import discover_at
from scanner.vcs.base import Worktree, file_at


def discover_base(
    workspace: Workspace,
    worktree: Worktree,
    base: git.Commit,
    changed: set[str],
    policy: Policy,
    base_lock: Lockfile | None,
) -> Discovery:
    """The servers at `base`, resolved under the base's own `policy`, keyed as its lock there pins them."""
    files = _referenced(workspace, worktree, base, changed)
    before = discover_at(base, worktree.prefix, workspace.environ, policy, files)
    if base_lock is not None:
        adopt_pinned_keys(before, base_lock)
    return before


def views_of(discovery: Discovery) -> dict[str, LaunchView]:
    return {server.key: view_of(server) for server in discovery.servers}


def _referenced(workspace: Workspace, worktree: Worktree, base: git.Commit, changed: set[str]) -> dict[str, bytes]:
    """The files the current declarations' `{file:…}` read, as they were at `base`: from git when the change
    touched them (absent there: left out), else the file as it is (unchanged, or never in git at all)."""
    found: dict[str, bytes] = {}
    closures = (d.closure for server in workspace.discovery.servers for d in server.declarations)
    for ref in sorted(file_refs(closures)):
        rel = posixpath.normpath(ref)
        if rel == ".." or rel.startswith("../"):
            continue
        path = f"{worktree.prefix}/{rel}" if worktree.prefix else rel
        try:
            if path in changed:
                data = file_at(base, path, FILE_REF_LIMIT)
            else:
                data = read_regular(workspace.repo / rel, workspace.repo, rel, FILE_REF_LIMIT)
        except (UsageError, MissingFile, RefusedFile, OSError):
            data = None  # unreadable there: the closures differ, and the launch is not the reviewed one
        if data is not None:
            found[rel] = data
    return found


def bind_policy(servers: Iterable[Server], views: Mapping[str, LaunchView]) -> None:
    """A `servers:` entry applies to the server that had its name at the base: a name that called another
    server there brings that server's entry nowhere (scanner.sources.declarations.Server.bound)."""
    owner = {name: key for key, view in views.items() for name in view.names}
    for server in servers:
        server.bound = tuple(name for name in server.names if owner.get(name, server.key) == server.key)


def closure_findings(current: Iterable[Server], before: Discovery, label: str) -> list[Finding]:
    """A `closure-changed` finding for each server declared as at the base `label` that resolves differently."""
    base = {server.key: server for server in before.servers}
    findings: list[Finding] = []
    for server in current:
        was = base.get(server.key)
        if was is None or was.template is None or server.template is None:
            continue
        if launch_diff(was.template.spec(), server.template.spec()) is not None:
            continue  # the declared launch changed: the lock's re-pin shows it (changed-since-base)
        fields = differences(was.primary.closure, server.primary.closure)
        if fields:
            message = (
                f"{server.key}: declared as at the base {label}, but resolves differently ({', '.join(fields)}); "
                "what it runs or contacts changed although no re-pin shows it"
            )
            details = [f"{field}: differs from the base (values are not shown)" for field in fields]
            findings.append(Finding(CLOSURE_CHANGED, server.key, message, server.primary.location, details=details))
    return findings
