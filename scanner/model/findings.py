"""Findings: what a run concluded, with symbolic locations that reporters turn into file:line."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from scanner.model.locations import Location, LockLocation, SourceLocation
from scanner.model.pointer import pointer
from scanner.model.rule_base import Severity, severity_rank
from scanner.model.rules import REGISTRY, SUSPICIOUS_TEXT, Category, Rule

__all__ = [
    "PAYLOAD", "WORDING", "EvidenceKind", "Finding", "Location", "LockLocation", "SourceLocation", "by_severity",
    "detector_blocks", "evidence_kind_line", "ordered", "unique",
]

# A detector's finding ends its message by quoting the check's id: "… [MCPL-D020]".
_CHECK_TAG = re.compile(r"\[([A-Z]+-[A-Z]+\d+)\]\s*$")


# What a detector's finding rests on. A quoted payload (a secret path, an outside recipient, an instruction to
# hide something from the user, invisible characters, an override of the user's request) is evidence by itself;
# wording alone (an order about another tool, a preference, several weak cues) is what honest text also says.
EvidenceKind = Literal["payload", "wording"]
PAYLOAD: EvidenceKind = "payload"
WORDING: EvidenceKind = "wording"




def evidence_kind_line(kind: EvidenceKind) -> str:
    """The detail line that says what a detector's finding rests on, in every report."""
    if kind == PAYLOAD:
        return "evidence kind: payload (the text quotes what an attack is after, not only its wording)"
    return "evidence kind: wording only (no payload quoted; honest text can say this too)"


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
    # Set when a policy `ignore:` entry accepts the finding: its justification (the entry's reason).
    # A suppressed finding is still reported (SARIF `suppressions`, counted as suppressed elsewhere).
    suppression: str | None = None
    # The digest of the live definition the finding is about, when there is one: fingerprints use it.
    digest: str | None = None
    previous_subject: str | None = None  # the name the subject was pinned under, for a rename
    # A grouped finding ("7 tools were removed: …"): the name of every definition of `kind` it covers.
    covers: list[str] = field(default_factory=list)
    evidence_kind: EvidenceKind | None = None  # a detector hit's: a payload quoted, or wording only
    # Why a finding its rule would block is shown without failing the run: wording only, on text no change under
    # review brought (a first pin, or text the lock already holds). None: it blocks as its rule says.
    advisory: str | None = None

    @property
    def effective_severity(self) -> Severity:
        return self.severity or self.rule.severity

    @property
    def blocking(self) -> bool:
        """Whether it fails the run: a suppressed finding is still reported, but never blocks."""
        return self.rule.blocking and self.suppression is None and self.advisory is None

    @property
    def check_tag(self) -> str | None:
        """The detector id the message ends by quoting (what an `ignore:` entry names), registered or not."""
        match = _CHECK_TAG.search(self.message)
        return match[1] if match else None

    @property
    def check(self) -> Rule | None:
        """The detector this finding is a hit of: the registered check its message ends by quoting, when that
        check files its findings under this finding's rule (so a quoted name cannot claim another rule)."""
        match = _CHECK_TAG.search(self.message)
        if match is None or match[1] not in REGISTRY:
            return None
        check = REGISTRY[match[1]]
        return check if check.reported_as == self.rule.id else None

    @property
    def category(self) -> Category:
        """What the finding is about: its detector's category for a detector hit, else its rule's."""
        return (self.check or self.rule).category

    def covered(self) -> list[tuple[str, LockLocation]]:
        """Each definition a grouped finding covers, with its member of the lock (a new one: its parent's)."""
        return [(name, LockLocation(pointer("servers", self.server, self.kind or "", name))) for name in self.covers]

    @property
    def qualified_name(self) -> str:
        return f"{self.server}/{self.subject}" if self.subject else self.server

    def sort_key(self) -> tuple[object, ...]:
        """The one finding order: by server, most severe first, then rule, subject, and the rest to break ties."""
        return (
            self.server,
            severity_rank(self.effective_severity),
            self.rule.id,
            self.subject or "",
            self.kind or "",
            self.message,
            tuple(self.details),
        )


def detector_blocks(finding: Finding) -> bool:
    """Whether a detector finding, as graded, fails `check` (at its default `--fail-on`): the one decision `check`
    fails on, `update` refuses to pin on and the reports say `update` refuses on, so `update` never writes a pin
    the next `check` fails."""
    return finding.rule.id == SUSPICIOUS_TEXT.id and finding.blocking


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Findings grouped by server, most severe first within one: the order every report lists them in."""
    return sorted(findings, key=Finding.sort_key)


def by_severity(findings: Iterable[Finding]) -> list[Finding]:
    """`ordered`, with the most severe findings of every server first (for reports that lead with severity)."""
    return sorted(findings, key=lambda f: (severity_rank(f.effective_severity), *f.sort_key()))


def unique(findings: Iterable[Finding]) -> list[Finding]:
    """`findings` without repeats (one detector matching twice says the same thing twice), in their order."""
    seen: set[tuple[object, ...]] = set()
    kept: list[Finding] = []
    for finding in findings:
        key = (*finding.sort_key(), repr(finding.location), finding.suppression)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept
