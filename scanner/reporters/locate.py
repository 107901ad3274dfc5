"""Turn symbolic locations into file and line, at render time only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from scanner.lock.member_lines import MemberLines
from scanner.model.findings import Location, LockLocation


@dataclass(frozen=True)
class Region:
    """A 1-based line, and the member's key columns on it when known (end exclusive, code points)."""

    line: int
    start_column: int | None = None
    end_column: int | None = None


class Locator:
    """Places findings: file and line as `--repo` sees them, and paths from the repository root for GitHub.

    `repo` is the directory mcp-lock ran on. GitHub reads paths from the root of the checkout, which
    is the git top-level above `repo` (the action's working-directory may be a subdirectory of it).
    """

    def __init__(self, lock_path: Path, lock_display: str, repo: Path | None = None) -> None:
        self._lock_path = lock_path
        self._lock_display = lock_display
        self._repo = repo
        self._lines: MemberLines | None = None
        self._root: tuple[Path, str] | None = None

    def resolve(self, location: Location) -> tuple[str, int]:
        if not isinstance(location, LockLocation):
            return location.file, location.line
        return self._lock_display, self._member_lines().line(location.pointer)

    def region(self, location: Location) -> tuple[str, Region]:
        """Like `resolve`, with the key's columns for a member of the lockfile."""
        if not isinstance(location, LockLocation):
            return location.file, Region(max(1, location.line))
        lines = self._member_lines()
        if not lines.text:
            return self._lock_display, Region(1)
        line, start, end = lines.span(location.pointer)
        return self._lock_display, Region(line, start, end)

    def from_root(self, file: str) -> str:
        """A display path (relative to `repo`, or absolute) as a path from the repository root.

        Absolute paths under the root become relative to it; paths outside it stay absolute.
        """
        if self._repo is None:
            return file
        root, prefix = self._repository_root()
        path = Path(file)
        if path.is_absolute():
            try:
                return path.resolve().relative_to(root).as_posix()
            except ValueError:
                return file
        return str(PurePosixPath(prefix, file.replace("\\", "/"))) if prefix else file

    def _repository_root(self) -> tuple[Path, str]:
        """(git top-level, the path of `repo` below it); `repo` itself when no `.git` is above it."""
        if self._root is None:
            assert self._repo is not None
            repo = self._repo.resolve()
            root = next((d for d in (repo, *repo.parents) if os.path.lexists(d / ".git")), repo)
            prefix = repo.relative_to(root).as_posix()
            self._root = (root, "" if prefix == "." else prefix)
        return self._root

    def _member_lines(self) -> MemberLines:
        """The lock's text, read once; a member not in it (a new tool) is placed on its nearest pinned parent."""
        if self._lines is None:
            try:
                text = self._lock_path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._lines = MemberLines(text)
        return self._lines
