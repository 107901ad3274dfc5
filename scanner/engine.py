"""The engine's public names, as the CLI uses them: the operations and what they run on.

Each job has its own module under scanner.run: the workspace and options (`workspace`), the outcome and its
exit code (`outcome`), booting and pinning (`pinning`), what needs no boot, `check --offline` included
(`offline`), and the lock, check and update operations (`operations`).
"""

from __future__ import annotations

from scanner.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError
from scanner.run.offline import UNRESOLVED_CODES, bootable, check_offline, config_findings, declared_vs_lock
from scanner.run.operations import check, lock, rerender, update
from scanner.run.outcome import Outcome
from scanner.run.pinning import Analyse, boot, boot_and_pin
from scanner.run.workspace import LOCKFILE_NAME, Options, Workspace, open_workspace, read_lock, server_keys
from scanner.shard import in_shard

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "LOCKFILE_NAME",
    "UNRESOLVED_CODES",
    "Analyse",
    "Options",
    "Outcome",
    "UsageError",
    "Workspace",
    "boot",
    "boot_and_pin",
    "bootable",
    "check",
    "check_offline",
    "config_findings",
    "declared_vs_lock",
    "in_shard",
    "lock",
    "open_workspace",
    "read_lock",
    "rerender",
    "server_keys",
    "update",
]
