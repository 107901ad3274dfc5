"""A regex compiled on first use, for the checks whose large patterns most runs never need."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """`re.compile(source, flags)` on first use. A check's large patterns then cost their compile time (D026's and
    D027's: about 0.025 s CPU per process) only in a run that reads a text with them: a run whose every definition
    the verdict cache holds clean reads none."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source, self.flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled().search(text)

    def finditer(self, text: str) -> Any:
        return self.compiled().finditer(text)
