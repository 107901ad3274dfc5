"""`check --advisories`: OSV's advisories about every package the lock pins and every one a live check ran."""

from __future__ import annotations

from scanner.artifacts.advisories import advisory_findings
from scanner.artifacts.inventory import server_packages
from scanner.model.findings import Finding
from scanner.run.outcome import Outcome
from scanner.run.shard import Shard, in_shard
from scanner.run.workspace import Workspace, read_lock, server_keys


def check_advisories(workspace: Workspace, source: str, outcome: Outcome, shard: Shard | None) -> list[Finding]:
    """The advisory findings of this shard's servers (all servers without a shard)."""
    lockfile = read_lock(workspace)
    assert lockfile is not None
    keys = server_keys(workspace, lockfile)
    return in_shard(advisory_findings(source, server_packages(lockfile.servers, outcome.artifacts)), shard, keys)
