"""The inert set: files whose change cannot alter what a launch from the repository runs.

Under `check --base`, a launch that can run repository code (scanner.sources.repository_code) gets its secrets
only when every file the change touches is inert: the lockfile, Markdown and `docs/` by default, plus the
base policy's `inert:` globs. A glob is matched against the path from the repository's root (the folder
mcp-lock scans): `*` and `?` stay within one folder, `**` crosses folders (`site/**`, `**/*.txt`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

DEFAULT_INERT = ("**/*.md", "**/*.markdown", "docs/**")


def outside_inert(paths: Iterable[str], prefix: str, lock: str, globs: Sequence[str]) -> list[str]:
    """The changed `paths` (from the git top, as is `lock`) that are not inert; `prefix` is the scanned
    folder from the git top ("" at the top). A path outside that folder is never inert."""
    patterns = [_pattern(glob) for glob in (*DEFAULT_INERT, *globs)]
    start = f"{prefix}/" if prefix else ""
    kept: list[str] = []
    for path in sorted(paths):
        if path == lock:
            continue
        inside = path.startswith(start)
        if not inside or not any(p.fullmatch(path[len(start) :]) for p in patterns):
            kept.append(path)
    return kept


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
