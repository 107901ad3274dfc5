"""`mcp-lock semver`: does a release's version number say what changed in its surface?

The base is the lock at a git ref (by default the last release: the highest-versioned release tag that is
not on HEAD, see `tags.choose_base`); the other end is the live surface, booted as `check` boots it. For each server the
bump it made (serverInfo.version at the base → live, `versions.bump_made`) must be at least the bump
its changes need (`required.needed_changes`). The live version must also match the package manifest
nearest to the server's code (`published_versions`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git

from scanner.diff.change import Bump, bump_rank
from scanner.errors import UsageError, unknown_servers
from scanner.lock.lockfile import Lockfile, LockfileError, ServerPin
from scanner.lock.reader import parse
from scanner.model.findings import Finding, SourceLocation
from scanner.model.rule_base import Severity
from scanner.model.rules import VERSION_BUMP_TOO_SMALL, VERSION_MISMATCH, VERSION_NOT_SEMVER
from scanner.release.required import Needed, largest, needed_changes
from scanner.release.tags import choose_base
from scanner.release.versions import ManifestVersion, bump_made, manifest_versions, parse_version
from scanner.release.withheld import release_withholding
from scanner.run.offline import bootable, config_findings
from scanner.run.outcome import Outcome
from scanner.run.pinning import boot_and_pin
from scanner.run.withhold import settle
from scanner.run.workspace import Options, Workspace
from scanner.sources.declarations import Server
from scanner.vcs.affected import server_places
from scanner.vcs.base import file_at, head_commit, open_worktree, resolve

# The finding's severity: how much larger a bump was needed.
SEVERITY_FOR: dict[Bump, Severity] = {"major": "high", "minor": "medium", "patch": "low", "none": "info"}


@dataclass
class Base:
    ref: str
    label: str  # the ref and its short sha, for messages
    lock: Lockfile
    notes: list[str] = field(default_factory=list)  # how the base was chosen, when that needs saying
    adopted: bool = True  # False: no lockfile at the base, the first release since mcp-lock was adopted
    commit: git.Commit | None = None  # the tag's commit: what changed since it boots without secrets


def semver_gate(
    workspace: Workspace,
    options: Options,
    names: Sequence[str] = (),
    ref: str | None = None,
    tag_pattern: str | None = None,
) -> Outcome:
    """Check the version bump of every named server (all declared when none is named) against its changes."""
    declared = {s.key: s for s in workspace.discovery.servers}
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise unknown_servers(unknown, declared)
    base = read_base(workspace, ref, tag_pattern)
    selected = [declared[n] for n in (names or sorted(declared))]
    outcome = Outcome(config_findings(workspace))
    outcome.messages += base.notes
    if not base.adopted:
        return outcome  # nothing released, or released before the lock existed: nothing to compare
    outcome.messages.append(f"compared with {base.label}")
    for server in selected:
        if server.key not in base.lock.servers:
            outcome.messages.append(f"{server.key}: not pinned at {base.ref}; nothing to compare (a first release)")
    pinned = [s for s in selected if s.key in base.lock.servers]
    ready, skipped = bootable(workspace, pinned)
    lines: dict[str, str] = {}

    def against_base(key: str, live: ServerPin) -> list[Finding]:
        findings, lines[key] = release_findings(declared[key], base, live, workspace.repo)
        return findings

    # The live surface is code changed since the tag: secrets only for launches reviewed at the tag.
    plan, bare = release_withholding(workspace, ready, base.lock, base.commit, base.label, options)
    _, booted = boot_and_pin(workspace, plan.servers, bare, against_base)
    outcome.findings += skipped + settle(plan, booted)
    outcome.messages += [lines[s.key] for s in ready if s.key in lines]
    return outcome


def read_base(workspace: Workspace, ref: str | None, tag_pattern: str | None = None) -> Base:
    """The lock at `ref`, or at the last release tag (matching `tag_pattern`) when no ref is given."""
    worktree = open_worktree(workspace.repo)
    notes: list[str] = []
    head = head_commit(worktree)
    if ref is None:
        choice = choose_base(worktree, tag_pattern)
        if choice.tag is None:
            assert choice.head_tag is not None
            return _first_release(choice.head_tag.name)
        ref = choice.tag.name
        if choice.head_tag is not None:
            notes.append(
                f"HEAD is tagged {choice.head_tag.name} (the release being cut): compared with the release before it"
            )
    commit = resolve(worktree, ref)
    label = f"{ref} ({commit.hexsha[:7]})" if ref != commit.hexsha[: len(ref)] else commit.hexsha[:7]
    if commit == head:
        notes.append(
            f"the base {label} is HEAD itself: nothing can have changed since it; pass the previous release "
            "as --base (or run the gate before tagging)"
        )
    data = file_at(commit, worktree.rel(workspace.lock_path))
    if data is None:
        notes.append(
            f"{workspace.lock_display} does not exist at {label}: the first release since mcp-lock was adopted, "
            "so there is nothing to compare; the next release is compared with this one's lock"
        )
        return Base(ref, label, Lockfile(version=1, servers={}), notes, adopted=False)
    try:
        lock = parse(data.decode("utf-8"), f"{workspace.lock_display}@{ref}")
    except UnicodeDecodeError:
        raise UsageError(f"{workspace.lock_display} at {label} is not UTF-8") from None
    except LockfileError as error:
        raise UsageError(str(error)) from None
    return Base(ref, label, lock, notes, commit=commit)


def _first_release(head_tag: str) -> Base:
    note = f"HEAD is tagged {head_tag} and no earlier release is tagged: a first release, nothing to compare"
    return Base(head_tag, head_tag, Lockfile(version=1, servers={}), [note], adopted=False)


def release_findings(server: Server, base: Base, live: ServerPin, repo: Path) -> tuple[list[Finding], str]:
    """The findings about one booted server, and a one-line account of its versions and changes."""
    pinned = base.lock.servers[server.key]
    needed = needed_changes(server.key, pinned, live)
    required = largest(needed)
    old_raw, new_raw = pinned.server_info.get("version"), live.server_info.get("version")
    old, new = parse_version(old_raw), parse_version(new_raw)
    shown = f"{_shown(old_raw)} → {_shown(new_raw)}"
    findings = _manifest_findings(server, new_raw, repo)
    if old is None or new is None:
        which = " and ".join(end for end, v in ((f"at {base.ref}", old), ("live", new)) if v is None)
        message = (
            f"{server.key}: serverInfo.version {shown}: {which} is not a semantic version, so the bump cannot "
            f"be checked (the changes require {_a(required)} bump)"
        )
        findings.append(_finding(VERSION_NOT_SEMVER, server, message, [n.line() for n in needed]))
        return findings, f"{server.key}: {shown}: not checked; required: {required}"
    made = bump_made(old, new)
    line = f"{server.key}: {shown}: {_made(made, old, new)}; required: {required}{_count(needed)}"
    if bump_rank(made) <= bump_rank(required):
        return findings, line
    more = [n for n in needed if bump_rank(n.bump) < bump_rank(made)]
    message = (
        f"{server.key}: version {shown} is {_made(made, old, new)}, but the changes since {base.ref} "
        f"require {_a(required)} bump"
    )
    details = [f"needs {n.line()}" for n in more] + [f"fits a {made} bump: {n.line()}" for n in needed if n not in more]
    findings.append(_finding(VERSION_BUMP_TOO_SMALL, server, message, details, SEVERITY_FOR[required]))
    return findings, line


def published_versions(server: Server, repo: Path) -> list[ManifestVersion]:
    """The manifests of the package nearest to the server's code: see docs/semver.md.

    From each place the server runs from or runs (its cwd and path-like launch words inside the
    repository), walk up to the repository root; the deepest directory with a versioned manifest wins.
    """
    if server.template is None:
        return []
    root = repo.resolve()
    best: tuple[int, list[ManifestVersion]] = (-1, [])
    for place in server_places(server.template, root):
        directory = place if place.is_dir() else place.parent
        while directory == root or root in directory.parents:
            versions = manifest_versions(directory)
            if versions:
                depth = len(directory.parts)
                if depth > best[0]:
                    best = (depth, versions)
                break
            directory = directory.parent
    return best[1]


def _manifest_findings(server: Server, live: Any, repo: Path) -> list[Finding]:
    if not isinstance(live, str):
        return []  # reported as not semver
    findings: list[Finding] = []
    for manifest in published_versions(server, repo):
        if manifest.value == live:
            continue
        rel = Path(os.path.relpath(manifest.file, repo.resolve())).as_posix()
        message = (
            f"{server.key}: the server reports version {_shown(live)}, but {rel} {manifest.field} "
            f"is {_shown(manifest.value)}"
        )
        location = SourceLocation(rel, _version_line(manifest.file))
        findings.append(Finding(VERSION_MISMATCH, server.key, message, location))
    return findings


def _version_line(path: Path) -> int:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    return next((i for i, line in enumerate(lines, 1) if line.lstrip().startswith(("version", '"version"'))), 1)


def _finding(rule: Any, server: Server, message: str, details: list[str], severity: Severity | None = None) -> Finding:
    return Finding(rule, server.key, message, server.primary.location, details=details, severity=severity)


def _made(made: Bump, old: Any, new: Any) -> str:
    if made == "none":
        return "no bump" if new == old else "a step backwards"
    return f"{_a(made)} bump" + (" (below 1.0.0: Cargo's rule)" if old.major == 0 else "")


def _a(bump: Bump) -> str:
    return ("no" if bump == "none" else "a " + bump)


def _count(needed: list[Needed]) -> str:
    return f" ({len(needed)} change{'s' if len(needed) != 1 else ''})" if needed else " (no surface change)"


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else repr(value)
    text = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 64 else text[:64] + "…"
