"""What every reporter is: one `render(findings, context) -> str`.

A reporter returns the whole document: empty, or text ending in exactly one newline, so the caller
writes it as it is (to stdout, a file, or appended to a step summary).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scanner.model.findings import Finding

if TYPE_CHECKING:  # the CLI reads SUMMARY_LIMIT before anything boots; the locator and its lock lines come after
    from scanner.reporters.locate import Locator

SUMMARY_LIMIT = 60_000  # the Markdown summary's default size in UTF-8 bytes (a PR comment holds 65,536)


@dataclass(frozen=True)
class ReportContext:
    """What a reporter may need besides the findings."""

    locator: Locator
    category: str | None = None  # SARIF run category (automationDetails.id)
    colour: bool = False  # ANSI colours, for a terminal
    summary_limit: int = SUMMARY_LIMIT  # the Markdown summary's size in UTF-8 bytes
    template: Any = None  # `--format template`: the compiled --template (reporters.template.ReportTemplate)


class Render(Protocol):
    def __call__(self, findings: Sequence[Finding], context: ReportContext) -> str: ...


