"""The lock weakened by hand under `check --base`: what the change removed from the lock that mcp-lock's own
writer would have kept.

A pin whose launch did not change keeps `launch.artifact` (and each of its fields), `launch.tree` in the
format it had (a format 4 record is what installs the tree with no resolution), and the body of every prompt
still pinned as it was; the file keeps the format its pins need; a server pinned at the base leaves
the lock only while a config file still declares it (`check` then reports it as not pinned). Each loss is a
blocking `lock-weakened` finding: digests recomputed with mcp-lock's own code verify, so without it a
blocking `artifact-changed` would turn into a note once the artifact is gone.
"""

from __future__ import annotations

from collections.abc import Collection

from scanner.install.packages import is_exact
from scanner.lock.lockfile import Lockfile, ServerPin, format_version
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import LOCK_WEAKENED


def weakenings(
    base: Lockfile, current: Lockfile, declared: Collection[str], lock_path: str, label: str
) -> list[Finding]:
    """Every loss from `base` (the lock at the merge base `label`) to `current`; `declared`: the servers any
    config file declares now."""
    findings: list[Finding] = []
    common = sorted(base.servers.keys() & current.servers.keys())
    for key in common:
        lost = _lost(base.servers[key], current.servers[key])
        if lost:
            message = (
                f"{key}: the change drops {', '.join(lost)} from its pin (at the base {label}); "
                "re-pin with `mcp-lock update`, which records them"
            )
            findings.append(_finding(key, message, pointer("servers", key)))
    needed = format_version(Lockfile(servers={key: base.servers[key] for key in common}))
    if current.version < needed:
        message = (
            f"{lock_path}: lockfile format {current.version} is lower than the {needed} its pins had at the base "
            f"{label}"
        )
        findings.append(_finding(lock_path, message, ""))
    for key in sorted(base.servers.keys() - current.servers.keys() - set(declared)):
        message = (
            f"{key}: removed from the lock and from every config file in one change (pinned at the base {label}); "
            "a reviewer approves the removal by merging"
        )
        findings.append(_finding(key, message, pointer("servers")))
    return findings


def _lost(old: ServerPin, new: ServerPin) -> list[str]:
    lost: list[str] = []
    if old.launch == new.launch and old.artifact is not None:
        if new.artifact is None:
            lost.append("launch.artifact")
        elif old.artifact.get("type") == new.artifact.get("type"):
            lost += [f"launch.artifact.{field}" for field in sorted(old.artifact.keys() - new.artifact.keys())]
    if old.launch == new.launch and old.tree is not None:
        if new.tree is None:
            lost.append("launch.tree")
        elif is_exact(old.tree) and not is_exact(new.tree):
            lost.append("launch.tree.format 4 (what installs the tree with no resolution)")
    bodies = [
        name
        for name in sorted(old.prompt_bodies)
        if name not in new.prompt_bodies and name in new.prompts and name in old.prompts
        and new.prompts[name].digest == old.prompts[name].digest
    ]
    if bodies:
        lost.append(f"promptBodies ({', '.join(bodies)})")
    return lost


def _finding(server: str, message: str, where: str) -> Finding:
    return Finding(LOCK_WEAKENED, server, message, LockLocation(where))
