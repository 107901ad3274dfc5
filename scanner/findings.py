"""Findings: what a run concluded, with symbolic locations that reporters turn into file:line."""

from __future__ import annotations

from dataclasses import dataclass, field

from scanner.rules import Rule, Severity, severity_rank
from scanner.sources.model import SourceLocation


@dataclass(frozen=True)
class LockLocation:
    """A member of the lockfile, by JSON pointer (e.g. /servers/time/tools/get_current_time)."""

    pointer: str


Location = SourceLocation | LockLocation




@dataclass
class Finding:
    rule: Rule
    server: str
    message: str  # one line: names the subject and says what happened
    location: Location
    subject: str | None = None  # e.g. the tool name; None for server-level findings
    kind: str | None = None  # the lock key of the subject: tools, prompts, resources, resourceTemplates
    details: list[str] = field(default_factory=list)  # further lines: changed fields, before/after
    severity: Severity | None = None  # overrides the rule's default when grading says so

    @property
    def effective_severity(self) -> Severity:
        return self.severity or self.rule.severity

    @property
    def blocking(self) -> bool:
        return self.rule.blocking

    @property
    def qualified_name(self) -> str:
        return f"{self.server}/{self.subject}" if self.subject else self.server

    def sort_key(self) -> tuple[object, ...]:
        return (self.server, severity_rank(self.effective_severity), self.rule.id, self.subject or "")
