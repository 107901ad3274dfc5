"""Turn symbolic locations into file and line, at render time only."""

from __future__ import annotations

from pathlib import Path

from scanner.findings import Location, LockLocation
from scanner.lock.locate import MemberLines


class Locator:
    def __init__(self, lock_path: Path, lock_display: str) -> None:
        self._lock_path = lock_path
        self._lock_display = lock_display
        self._lines: MemberLines | None = None

    def resolve(self, location: Location) -> tuple[str, int]:
        if not isinstance(location, LockLocation):
            return location.file, location.line
        return self._lock_display, self._line(location.pointer)

    def _line(self, pointer: str) -> int:
        """The member's line; a member not in the lock (a new tool) is placed on its nearest pinned parent."""
        if self._lines is None:
            try:
                text = self._lock_path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._lines = MemberLines(text)
        return self._lines.line(pointer)
