"""Errors that stop a run, and the exit codes: the bottom of the import graph, so any layer can raise them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """The run cannot proceed (bad policy, unreadable lock); exit code 2."""


def unknown_servers(unknown: Sequence[str], known: Iterable[str], what: str = "declared") -> UsageError:
    """A name given on the command line that no server has, with the closest names there are (a typo)."""
    names = sorted(set(known))
    close = list(dict.fromkeys(c for name in unknown for c in difflib.get_close_matches(name, names, n=3)))
    suggestion = f"; did you mean {', '.join(close)}?" if close else ""
    return UsageError(f"no {what} server named {', '.join(unknown)}{suggestion} (see `mcp-lock list`)")
