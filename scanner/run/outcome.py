"""What a run found and did, and the exit code that follows from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scanner.errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rule_base import Severity, severity_rank
from scanner.model.rules import POLICY_LOOSENED
from scanner.policy.suppression import Audit


@dataclass
class Outcome:
    findings: list[Finding]
    lock_written: bool = False
    messages: list[str] = field(default_factory=list)  # what was done, for the reporter to say
    # Blocking findings graded below this do not fail the run (`--fail-on`); by default every one does.
    fail_on: Severity = "info"
    # What the run may say about mcp-lock.yaml's ignore entries themselves (`check` sets it).
    audit: Audit = field(default_factory=Audit)
    summarise: bool = False  # end the messages with the one-line verdict (`check`)
    artifacts: dict[str, dict[str, Any]] = field(default_factory=dict)  # what a live check's launches ran
    # `check --base`: the servers the lock pinned at the merge base ({} when it pinned none or cannot be read),
    # against which packages new to a server are told apart; None without --base.
    base_pins: dict[str, ServerPin] | None = None
    # `check --base`: each server's launch environment as the merge base declares it, resolved: the registry a
    # release is asked about is the base's, never one the change configured (scanner.run.release_check).
    base_envs: dict[str, dict[str, str]] = field(default_factory=dict)

    def fails(self, finding: Finding) -> bool:
        if finding.rule.id == POLICY_LOOSENED.id:  # not a graded change: `--fail-on` cannot let a loosening pass
            return finding.blocking
        return finding.blocking and severity_rank(finding.effective_severity) <= severity_rank(self.fail_on)

    @property
    def exit_code(self) -> int:
        if any(f.rule.id == "config-error" for f in self.findings):
            return EXIT_ERROR
        return EXIT_FINDINGS if any(self.fails(f) for f in self.findings) else EXIT_CLEAN
