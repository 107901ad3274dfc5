"""Findings as GitHub Actions workflow commands, which the runner shows as annotations.

One line per finding, most severe first (GitHub keeps only 10 of each kind per step):

    ::error file=mcp-lock.json,line=12,title=mcp-lock tool-changed::time: tool get_current_time changed…

`error` for blocking high/critical findings, `warning` for other blocking ones, `notice` for
non-blocking ones. Server text is untrusted: it is escaped so it can neither end the command
(a newline) nor smuggle in properties (`,` or `:` in a property value).
"""

from __future__ import annotations

from collections.abc import Sequence

from scanner.findings import Finding
from scanner.model.findings import by_severity
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator


def escape_data(text: str) -> str:
    """Escape a command's message (the part after `::`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (file, title, …)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command_for(finding: Finding) -> str:
    if not finding.blocking:
        return "notice"
    return "error" if finding.effective_severity in ("critical", "high") else "warning"


def render_github(findings: Sequence[Finding], locator: Locator) -> str:
    lines: list[str] = []
    for finding in by_severity(findings):
        file, line = locator.resolve(finding.location)
        title = f"mcp-lock {finding.rule.id}: {finding.rule.summary}"
        properties = f"file={escape_property(file)},line={max(1, line)},title={escape_property(title)}"
        message = "\n".join([finding.message, *finding.details])
        lines.append(f"::{command_for(finding)} {properties}::{escape_data(message)}")
    return "".join(line + "\n" for line in lines)


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_github(findings, context.locator)
