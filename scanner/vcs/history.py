"""`mcp-lock log`: the history of the pins, one entry per commit that changed the lockfile.

Entries come newest first, as `git log` shows them (`reverse` for oldest first). Each commit is
compared with the newest older version that parsed: a version that does not parse is reported in
its entry, and the next good version is measured against the last trusted one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import git

from scanner.lock.lockfile import Lockfile, LockfileError
from scanner.lock.reader import parse
from scanner.model.rules import kind_label
from scanner.reporters.console import safe
from scanner.vcs.base import SHALLOW_HINT, VcsError, Worktree, file_at, git_errors, head_commit, open_worktree
from scanner.vcs.pins import PINNED, PinChange, lock_changes


@dataclass
class Entry:
    sha: str
    date: str  # the author date, ISO 8601
    author: str
    subject: str
    changes: list[PinChange] = field(default_factory=list)
    problem: str | None = None  # the lockfile at this commit is missing or does not parse

    @property
    def short(self) -> str:
        return self.sha[:7]


@dataclass
class Log:
    entries: list[Entry]
    lock_path: str  # from the work tree's top
    messages: list[str] = field(default_factory=list)


def pin_log(repo: Path, lock: Path, target: str | None = None, kind: str | None = None) -> Log:
    """The log of `lock`, narrowed to `target` (SERVER or SERVER/NAME) and `kind` when given."""
    if not repo.is_dir():
        raise VcsError(f"{repo}: not a directory")
    worktree = open_worktree(repo)
    lock_path = worktree.rel(lock)
    entries = history(worktree, lock_path)
    log = Log(entries, lock_path)
    if not entries:
        log.messages.append(f"no commit reachable from HEAD changes {lock_path}")
    if worktree.shallow:
        log.messages.append(f"the history may be incomplete: {SHALLOW_HINT}")
    if target is not None or kind is not None:
        server, name = split_target(target, servers_in(entries)) if target else (None, None)
        log.entries = select(entries, server, name, kind)
    return log


def split_target(target: str, known: set[str]) -> tuple[str, str | None]:
    """SERVER or SERVER/NAME; a server key may itself hold `/` (`name@dir/.mcp.json`), so known keys win."""
    if target in known:
        return target, None
    cuts = [i for i, char in enumerate(target) if char == "/"]
    for cut in reversed(cuts):
        if target[:cut] in known:
            return target[:cut], target[cut + 1 :]
    raise VcsError(f"no server named {target.split('/')[0]!r} in the history of the lockfile")


def history(worktree: Worktree, lock_path: str) -> list[Entry]:
    """Every commit reachable from HEAD that changed `lock_path` (from the work tree's top), newest first."""
    head_commit(worktree)
    with git_errors():
        commits = list(worktree.repo.iter_commits("HEAD", paths=lock_path))
    entries: list[Entry] = []
    previous: Lockfile | None = None
    for commit in reversed(commits):
        entry, current = _entry(commit, lock_path, previous)
        entries.append(entry)
        previous = current or previous
    return entries[::-1]


def _entry(commit: git.Commit, lock_path: str, previous: Lockfile | None) -> tuple[Entry, Lockfile | None]:
    entry = Entry(
        commit.hexsha,
        commit.authored_datetime.isoformat(),
        str(commit.author.name),
        str(commit.summary),
    )
    data = file_at(commit, lock_path)
    if data is None:
        entry.problem = f"{lock_path} was deleted"
        return entry, None
    try:
        current = parse(data.decode("utf-8"), f"{lock_path}@{entry.short}")
    except (LockfileError, UnicodeDecodeError) as error:
        entry.problem = f"does not parse, so later entries compare with the last version that did: {error}"
        return entry, None
    entry.changes = lock_changes(previous, current)
    return entry, current


def select(entries: list[Entry], server: str | None, name: str | None, kind: str | None) -> list[Entry]:
    """Entries narrowed to one server, and to one definition of it (of `kind`, or of any kind)."""
    selected: list[Entry] = []
    for entry in entries:
        changes = [c for c in entry.changes if server is None or c.server == server]
        if name is not None:
            changes = [narrowed for c in changes if (narrowed := _narrow(c, name, kind)) is not None]
        elif kind is not None:
            changes = [narrowed for c in changes if (narrowed := _of_kind(c, kind)) is not None]
        if changes or entry.problem:
            selected.append(Entry(entry.sha, entry.date, entry.author, entry.subject, changes, entry.problem))
    return selected


def _of_kind(change: PinChange, kind: str) -> PinChange | None:
    """The part of `change` about definitions of `kind`: a server's first pin names only those."""
    if change.change == PINNED:
        names = [n for k, n in change.definitions if k == kind]
        if not names:
            return None
        label = kind_label(kind) + ("s" if len(names) != 1 else "")
        message = f"pinned: {len(names)} {label} ({', '.join(names)})"
        return replace(change, message=message, definitions=[(kind, n) for n in names])
    return change if change.kind in (None, kind) else None


def _narrow(change: PinChange, name: str, kind: str | None) -> PinChange | None:
    """The part of `change` about definition `name`: a server's first pin becomes that definition's."""
    if change.change == PINNED:
        kinds = [k for k, n in change.definitions if n == name and kind in (None, k)]
        if not kinds:
            return None
        return PinChange(
            change.server,
            PINNED,
            f"{kind_label(kinds[0])} `{name}` pinned (with the server)",
            change.pointer,
            kinds[0],
            name,
        )
    if change.subject != name or (kind is not None and change.kind != kind):
        return None
    return change


def servers_in(entries: list[Entry]) -> set[str]:
    return {c.server for e in entries for c in e.changes}


def render_text(entries: list[Entry], *, verbose: bool = False) -> str:
    lines: list[str] = []
    for entry in entries:
        lines.append(f"{entry.short} {entry.date[:10]} {entry.author}  {entry.subject}")
        if entry.problem:
            lines.append(f"    lockfile {entry.problem}")
        for change in entry.changes:
            lines.append(f"    {change.server}: {change.message}")
            lines += [f"        {detail}" for detail in change.details] if verbose else []
    # Commit subjects, authors and pinned texts come from the repository and, before that, from servers.
    return "".join(safe(line) + "\n" for line in lines)


def to_json(entries: list[Entry], lock_path: str) -> dict[str, Any]:
    """Schema version 1: {"version", "lockfile", "entries": [{"commit", "date", "author", "subject", …}]}."""
    return {
        "version": 1,
        "lockfile": lock_path,
        "entries": [
            {
                "commit": e.sha,
                "date": e.date,
                "author": e.author,
                "subject": e.subject,
                "problem": e.problem,
                "changes": [_change_json(c) for c in e.changes],
            }
            for e in entries
        ],
    }


def _change_json(change: PinChange) -> dict[str, Any]:
    return {
        "server": change.server,
        "change": change.change,
        "kind": change.kind,
        "subject": change.subject,
        "message": change.message,
        "details": change.details,
        "severity": change.severity,
    }
