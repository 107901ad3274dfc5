"""Turn symbolic locations into file and line, at render time only."""

from __future__ import annotations

from pathlib import Path

from scanner.findings import Location, LockLocation


class Locator:
    def __init__(self, lock_path: Path, lock_display: str) -> None:
        self._lock_path = lock_path
        self._lock_display = lock_display
        self._index: dict[str, int] | None = None

    def resolve(self, location: Location) -> tuple[str, int]:
        if not isinstance(location, LockLocation):
            return location.file, location.line
        return self._lock_display, self._line(location.pointer)

    def _line(self, pointer: str) -> int:
        if self._index is None:
            from scanner.lock.lockfile import line_index

            try:
                self._index = line_index(self._lock_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                self._index = {}
        # A member that is not in the lock (a new tool) is anchored on its nearest pinned parent.
        while pointer and pointer not in self._index:
            pointer = pointer.rsplit("/", 1)[0]
        return self._index.get(pointer, 1)
