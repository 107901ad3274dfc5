"""Where a finding points: a line of a repository file, or a member of the lockfile."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class SourceLocation:
    """A place in a repository file: a repo-relative POSIX path and a 1-based line."""

    file: str
    line: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class LockLocation:
    """A member of the lockfile, by JSON pointer (e.g. /servers/time/tools/get_current_time)."""

    pointer: str


Location = SourceLocation | LockLocation
