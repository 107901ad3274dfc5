"""`semver` boots the servers as they are now, which is code changed since the release tag: like `check --base`
(`scanner.run.withhold`), a secret goes only to a launch identical to its pin now and at the tag, running no
file changed since the tag. The others boot without their secrets and get a `secrets-withheld` finding; one
that cannot list its definitions without them is named, never given them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import git

from scanner.lock.lockfile import Lockfile
from scanner.policy.inert import outside_inert
from scanner.run.withhold import Withholding, withhold
from scanner.run.workspace import Options, Workspace, read_lock
from scanner.sources.closure import LaunchView
from scanner.sources.declarations import Server
from scanner.vcs.affected import code_reasons, manifest_reasons
from scanner.vcs.base import changed_paths, open_worktree
from scanner.vcs.base_views import discover_base, views_of
from scanner.vcs.review import judge_by_base_policy


def release_withholding(
    workspace: Workspace, servers: Sequence[Server], lock: Lockfile, commit: git.Commit | None, label: str,
    options: Options,
) -> tuple[Withholding, Options]:
    """What to boot for the release gate against `lock` at the tag `commit` (None: nothing is reviewed), and
    the options to boot it with."""
    current = read_lock(workspace, missing_ok=True) or Lockfile(version=1, servers={})
    views: dict[str, LaunchView] = {}
    touched: tuple[str, ...] = ()
    every: tuple[str, ...] = ()
    if commit is None:
        launches: dict[str, dict[str, object]] = {}
        edited: frozenset[str] = frozenset(server.key for server in servers)
    else:
        worktree = open_worktree(workspace.repo)
        changed = changed_paths(worktree, commit)
        repo_dir = workspace.repo.resolve()
        reasons = manifest_reasons(servers, changed, worktree, repo_dir, label)
        reasons += code_reasons(servers, changed, worktree, repo_dir, label)
        edited = frozenset(finding.server for finding in reasons)
        launches = {key: pin.launch for key, pin in lock.servers.items()}
        # As `check --base` judges a launch (scanner.run.withhold): its closure and names at the tag, and the
        # files changed since outside the inert set, under the tag's own policy.
        _, tag_policy = judge_by_base_policy(workspace, worktree, commit, label)
        views = views_of(discover_base(workspace, worktree, commit, changed, tag_policy, lock))
        lock_path = worktree.rel(workspace.lock_path)
        touched = tuple(outside_inert(changed, worktree.prefix, lock_path, tag_policy.inert))
        every = tuple(sorted(path for path in changed if path != lock_path))
    reviewing = dataclasses.replace(
        options, base_launches=launches, edited=edited, base_views=views, touched=touched, changed=every,
        prefix=worktree.prefix if commit is not None else "",
    )
    plan = withhold(workspace, servers, current, reviewing)
    return plan, dataclasses.replace(options, bare=frozenset(plan.withheld), confined=frozenset(plan.confined))
