"""The inert set: files whose change cannot alter what a launch from the repository runs.

Under `check --base`, a launch that can run repository code (scanner.sources.repository_code) gets its secrets
only when every file the change touches is inert: the lockfile, Markdown and `docs/` by default, plus the
base policy's `inert:` globs. A glob is matched against the path from the repository's root (the folder
mcp-lock scans): `*` and `?` stay within one folder, `**` crosses folders (`site/**`, `**/*.txt`).

Inert by construction, not by assumption: what the globs name is absent from the sandbox of every launch that
can run repository code (`hidden_paths`: each folder all of whose files are inert, else each such file, is
covered by an empty one), on the base as on the change, so a reviewed server that `require`s a Markdown file
cannot run what a change writes there (a server that needs such a file fails on the base too; the fix is to
drop its glob from `inert:`). A file with a script suffix, a symbolic link, and anything a launch names (its
script, a folder it is given, a file whose content mcp-lock records) is never inert; nor is a file the walk
did not reach within its bounds. Where the sandbox is off nothing is hidden, so nothing is inert.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DEFAULT_INERT = ("**/*.md", "**/*.markdown", "docs/**")
# What an interpreter or loader runs (CommonJS runs any other suffix as JavaScript too: such a file is inert
# only while hidden). Compared lower-case.
SCRIPT_SUFFIXES = frozenset({
    ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".node", ".wasm", ".py", ".pyc", ".pyo",
    ".pyw", ".pyz", ".pth", ".so", ".dylib", ".dll", ".sh", ".bash", ".zsh", ".ksh", ".fish", ".rb", ".pl", ".pm",
    ".php", ".lua", ".r", ".jar", ".class", ".exe", ".bat", ".cmd", ".ps1", ".psm1", ".go", ".rs", ".swift", ".kt",
    ".zip", ".whl", ".egg", ".tgz",
})
# Never walked: nothing in them is hidden, so none of it is inert.
SKIPPED = frozenset({".git", "node_modules", ".venv", "__pycache__"})
MAX_WALKED = 20_000  # entries the walk looks at; past that nothing more is hidden
MAX_HIDDEN = 256  # mounts a sandbox gets for them (each costs bwrap about 0.5 ms)


@dataclass(frozen=True)
class Hidden:
    """What a launch that can run repository code does not see of the repository at `root`: `paths`, each a
    folder or file relative to it."""

    root: str  # resolved
    paths: tuple[str, ...] = ()

    def covers(self, rel: str) -> bool:
        return any(rel == p or rel.startswith(p + "/") for p in self.paths)

    def absolute(self) -> tuple[str, ...]:
        return tuple(os.path.join(self.root, p) for p in self.paths)

    def inert(self, rel: str) -> bool:
        """Whether the changed file `rel` (from `root`) cannot reach a launch: hidden, or absent (deleted)."""
        return self.covers(rel) or not os.path.lexists(os.path.join(self.root, rel))


def outside_inert(
    paths: Iterable[str], prefix: str, lock: str, globs: Sequence[str], hidden: Hidden | None = None
) -> list[str]:
    """The changed `paths` (from the git top, as is `lock`) that are not inert; `prefix` is the scanned
    folder from the git top ("" at the top). A path outside that folder is never inert, nor one with a script
    suffix, nor (given `hidden`, what the sandbox hides) one that launches still see."""
    patterns = [_pattern(glob) for glob in (*DEFAULT_INERT, *globs)]
    start = f"{prefix}/" if prefix else ""
    kept: list[str] = []
    for path in sorted(paths):
        if path == lock:
            continue
        rel = path[len(start) :]
        inert = path.startswith(start) and any(p.fullmatch(rel) for p in patterns) and not is_script(rel)
        if not inert or (hidden is not None and not hidden.inert(rel)):
            kept.append(path)
    return kept


def is_script(rel: str) -> bool:
    return posixpath.splitext(rel)[1].lower() in SCRIPT_SUFFIXES


def hidden_paths(root: Path, globs: Sequence[str], named: Iterable[str]) -> Hidden:
    """What the sandbox hides of the repository at `root`: every file the inert globs match that is no script,
    no link and not `named` (repository-relative paths a launch names or whose content is recorded; a named
    folder keeps all it holds), a folder all of whose files are so as one. Bounded by MAX_WALKED and
    MAX_HIDDEN, in a fixed order, so the review and every boot of one tree agree."""
    resolved = os.path.realpath(root)
    walk = _Walk([_pattern(g) for g in (*DEFAULT_INERT, *globs)], {posixpath.normpath(n) for n in named})
    walk.folder(resolved, "")
    return Hidden(resolved, tuple(sorted(walk.hidden)[:MAX_HIDDEN]))


class _Walk:
    def __init__(self, patterns: list[re.Pattern[str]], named: set[str]) -> None:
        self.patterns, self.named = patterns, named
        self.hidden: list[str] = []
        self.seen = 0

    def folder(self, path: str, rel: str) -> bool:
        """Collect what to hide under `rel`; True when all of it is inert (the caller hides the folder)."""
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return False
        found: list[str] = []
        whole = bool(entries)
        for entry in entries:
            self.seen += 1
            if self.seen > MAX_WALKED:
                whole = False
                break
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink() or self._named(sub):
                whole = False
            elif entry.is_dir():
                # A folder holding a named path is walked, never hidden as one.
                if entry.name in SKIPPED or not self.folder(entry.path, sub) or self._holds_named(sub):
                    whole = False
                else:
                    found.append(sub)
            elif entry.is_file() and any(p.fullmatch(sub) for p in self.patterns) and not is_script(sub):
                found.append(sub)
            else:
                whole = False
        if whole and rel:
            return True  # hidden as one folder by the caller
        self.hidden.extend(found)
        return False

    def _named(self, rel: str) -> bool:
        return any(rel == n or rel.startswith(n + "/") for n in self.named)

    def _holds_named(self, rel: str) -> bool:
        return any(n.startswith(rel + "/") for n in self.named)


@lru_cache(maxsize=256)
def _pattern(glob: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)
