"""Findings as GitHub Actions workflow commands, which the runner shows as annotations.

    ::error file=mcp-lock.json,line=12,col=9,endColumn=23,title=mcp-lock tool-changed…::notes: tool …

`error` for blocking high/critical findings, `warning` for other blocking ones, `notice` for
non-blocking ones. GitHub shows 10 annotations of each type per step (50 per job) and drops the rest
without a word, so at most that many are written, most severe first and fair across servers (see
`order`), and a closing `::notice::` says how many were left out and where they are. Paths are from
the repository root, as GitHub reads them. Server text is untrusted: it is escaped so it can neither
end the command (a newline) nor smuggle in properties (`,` or `:` in a property value).
"""

from __future__ import annotations

from collections.abc import Sequence

from scanner.model.findings import Finding, unique
from scanner.reporters.headline import headline
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator
from scanner.reporters.order import fair

PER_TYPE = 10  # annotations GitHub shows per type and step
PER_JOB = 50  # annotations GitHub shows per job
DETAIL_LINES = 20  # detail lines in one annotation


def escape_data(text: str) -> str:
    """Escape a command's message (the part after `::`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (file, title, …)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command_for(finding: Finding) -> str:
    if not finding.blocking or finding.suppression is not None:
        return "notice"
    return "error" if finding.effective_severity in ("critical", "high") else "warning"


def annotation(finding: Finding, locator: Locator) -> str:
    file, region = locator.region(finding.location)
    properties = f"file={escape_property(locator.from_root(file))},line={max(1, region.line)}"
    if region.start_column is not None and region.end_column is not None:
        properties += f",col={region.start_column},endColumn={region.end_column}"
    filed = finding.check or finding.rule  # a detector's hit: its check, as in SARIF
    title = f"mcp-lock {filed.id}: {filed.summary}"
    lines = [headline(finding)]
    if finding.message.strip() and finding.message.strip() != lines[0]:
        lines.append(finding.message)
    lines += finding.details[:DETAIL_LINES]
    if len(finding.details) > DETAIL_LINES:
        more = len(finding.details) - DETAIL_LINES
        lines.append(f"… {more} more lines in the step summary and the SARIF/JSON report")
    if finding.suppression is not None:
        lines.append(f"suppressed: {finding.suppression}")
    return f"::{command_for(finding)} {properties},title={escape_property(title)}::{escape_data(chr(10).join(lines))}"


def render_github(findings: Sequence[Finding], locator: Locator) -> str:
    findings = unique(findings)
    budget = {"error": PER_TYPE, "warning": PER_TYPE, "notice": PER_TYPE}
    lines: list[str] = []
    for finding in fair(findings):
        command = command_for(finding)
        # One notice is kept for the closing line whenever something is left out.
        reserve = 1 if command == "notice" and len(findings) > PER_TYPE else 0
        if budget[command] > reserve and len(lines) < PER_JOB - 1:
            budget[command] -= 1
            lines.append(annotation(finding, locator))
    if len(lines) < len(findings):
        left = len(findings) - len(lines)
        lines.append(
            f"::notice title=mcp-lock::{left} more finding(s) not shown as annotations (GitHub shows "
            f"{PER_TYPE} per type and step): see the step summary, or the SARIF/JSON report"
        )
    return "".join(line + "\n" for line in lines)


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_github(findings, context.locator)
