"""A regular expression compiled when it is first used, not when its module is imported.

Every `check` imports every detector, but a warm one whose texts all have a cached verdict runs none of them:
compiling their patterns at import was about 0.04 of the 0.3 CPU-s mcp-lock spent before its first server started,
time every server waited for (issue 39 item 3, bench/README.md). Python's `re` compiles in Python, slowly; the
compiled pattern is kept, so a detector that does run pays the same once.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """`re.compile(pattern, flags)` on first use; its methods and attributes are the compiled pattern's."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self._flags)
        return self._compiled

    @property
    def flags(self) -> int:
        return self.compiled.flags  # as `re` reports them: inline flags and re.UNICODE included

    def __getattr__(self, name: str) -> Any:
        """search, match, finditer, sub, split, groupindex... of the compiled pattern, kept on the instance, so
        that a detector's hot loop finds `.search` as fast as on the compiled pattern itself."""
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._flags!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern compiled on first use, typed as the `re.Pattern` it stands for."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
