"""What every reporter is: one `render(findings, context) -> str`, and the one order findings are shown in.

A reporter returns the whole document: empty, or text ending in exactly one newline, so the caller
writes it as it is (to stdout, a file, or appended to a step summary).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from scanner.findings import Finding
from scanner.reporters.locate import Locator
from scanner.rules import severity_rank


@dataclass(frozen=True)
class ReportContext:
    """What a reporter may need besides the findings."""

    locator: Locator
    category: str | None = None  # SARIF run category (automationDetails.id)
    colour: bool = False  # ANSI colours, for a terminal


class Render(Protocol):
    def __call__(self, findings: Sequence[Finding], context: ReportContext) -> str: ...


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """Findings in the one report order: server, severity, rule, subject, then kind, message and details."""
    return sorted(findings, key=lambda f: (*f.sort_key(), f.kind or "", f.message, tuple(f.details)))


def most_severe_first(findings: Sequence[Finding]) -> list[Finding]:
    """`ordered`, regrouped by severity for outputs read top-down (annotations, a summary table)."""
    return sorted(ordered(findings), key=lambda f: severity_rank(f.effective_severity))
