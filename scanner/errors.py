"""Errors that stop a run, and the exit codes: the bottom of the import graph, so any layer can raise them."""

from __future__ import annotations

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """The run cannot proceed (bad policy, unreadable lock); exit code 2."""
