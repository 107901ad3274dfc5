"""The order reports that can show only some findings take them in: fair across servers.

Most severe first; within one severity, every server's n-th finding before any server's (n+1)-th,
so one server with thousands of findings (a hostile server's noise) cannot crowd out another server's
few. Suppressed findings come last.
"""

from __future__ import annotations

from collections.abc import Iterable

from scanner.model.findings import Finding
from scanner.model.rule_base import severity_rank


def rank(finding: Finding) -> tuple[object, ...]:
    """Unsuppressed before suppressed, most severe first, then the report order."""
    return (finding.suppression is not None, severity_rank(finding.effective_severity), *finding.sort_key())


def by_server(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings per server, each list in `rank` order; the server with the most severe finding first."""
    groups: dict[str, list[Finding]] = {}
    for finding in sorted(findings, key=rank):
        groups.setdefault(finding.server, []).append(finding)
    return {server: groups[server] for server in sorted(groups, key=lambda s: (rank(groups[s][0]), s))}


def fair(findings: Iterable[Finding], per_server: int | None = None) -> list[Finding]:
    """Every finding (at most `per_server` of each server) in the fair order the module describes."""
    groups = by_server(findings)
    position = {server: i for i, server in enumerate(groups)}
    items = [(i, f) for group in groups.values() for i, f in enumerate(group[:per_server])]
    items.sort(key=lambda item: (rank(item[1])[:2], item[0], position[item[1].server]))
    return [finding for _, finding in items]
