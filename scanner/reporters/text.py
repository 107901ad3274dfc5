"""Findings for people: grouped by server, most severe first, with the change shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby

from scanner.console import safe
from scanner.findings import Finding
from scanner.model.findings import ordered
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator

COLOURS = {"critical": "1;31", "high": "31", "medium": "33", "low": "36", "info": "2"}


def render_text(findings: Sequence[Finding], locator: Locator, *, colour: bool = False) -> str:
    if not findings:
        return ""

    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if colour else text

    lines: list[str] = []
    for server, group in groupby(ordered(findings), key=lambda f: f.server):
        lines.append(paint(safe(server), "1"))
        for finding in group:
            severity = finding.effective_severity
            file, line = locator.resolve(finding.location)
            label = paint(f"{severity.upper():<8}", COLOURS[severity])
            suppressed = f" (suppressed: {safe(finding.suppression)})" if finding.suppression is not None else ""
            lines.append(f"  {label} {safe(finding.message)}  [{finding.rule.id}]{suppressed}")
            lines.append(f"           at {safe(file)}:{line}")
            lines += [f"           {safe(detail)}" for detail in finding.details]
    return "\n".join(lines) + "\n"


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_text(findings, context.locator, colour=context.colour)


def summary_line(findings: Sequence[Finding], fails: Callable[[Finding], bool] = lambda f: f.blocking) -> str:
    blocking = [f for f in findings if fails(f)]
    if not findings:
        return "ok: every declared server matches the lock"
    servers = len({f.server for f in blocking})
    if not blocking:
        below = sum(1 for f in findings if f.blocking)
        held = f", {below} unpinned change(s) below the --fail-on threshold" if below else ""
        return f"ok: {len(findings)} note(s), nothing blocking{held}"
    return f"{len(blocking)} blocking finding(s) in {servers} server(s)"
