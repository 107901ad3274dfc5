"""What lock, check and update make of what the servers said: the diff against the pins, the detectors, the
cross-server checks and the verdicts they learn. scanner.run.operations imports this module only once the
servers are booting, and scanner.run.analysis imports it in a worker thread right after the first spawn: the
servers start on the other core while it loads (issue 39 item 2); nothing before the first spawn needs it."""

from __future__ import annotations

from scanner.detectors.verdict_cache import Verdicts
from scanner.diff.artifact import artifact_findings
from scanner.diff.compare import compare_server
from scanner.diff.dependencies import tree_findings
from scanner.diff.schema_validity import schema_findings
from scanner.diff.suspicious import cross_server_findings, first_pinned, pinned_findings, suspicious_findings
from scanner.diff.verdicts import learn
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.reporters.acknowledgement import suggested_entries
from scanner.run.tree_accept import accepted_tree_lines, content_findings, refused_content

__all__ = [
    "accepted_tree_lines",
    "against_pin",
    "artifact_findings",
    "compare_server",
    "content_findings",
    "cross_server_findings",
    "first_pinned",
    "learn",
    "new_server_findings",
    "pinned_findings",
    "refused_content",
    "suggested_entries",
    "tree_findings",
]


def new_server_findings(key: str, server_pin: ServerPin, verdicts: Verdicts) -> list[Finding]:
    """What `lock` reports on a server it pins for the first time: wording-only detector findings do not block."""
    detected = [first_pinned(finding) for finding in suspicious_findings(key, None, server_pin, verdicts)]
    return detected + schema_findings(key, None, server_pin)


def against_pin(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    """What `check` reports on a booted server against its pin: the diff, graded, and the detectors on it."""
    return (
        compare_server(key, pinned, live, grouped=True)
        + artifact_findings(key, pinned, live)
        + tree_findings(key, pinned, live)
        + suspicious_findings(key, pinned, live)
        + schema_findings(key, pinned, live)
    )
