"""Findings as a Markdown summary (for $GITHUB_STEP_SUMMARY or a PR comment).

A verdict heading, a table of findings most severe first, and per finding a collapsed
`<details>` block showing the change in a ```diff fence. Everything a server said is untrusted:
table cells and summaries are escaped so that `|`, newlines, backticks, HTML and Markdown
syntax stay text, and each fence is longer than any backtick run inside it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scanner.findings import Finding
from scanner.model.findings import by_severity
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator
from scanner.reporters.text import summary_line

if TYPE_CHECKING:
    from jinja2 import Template

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")
_NEWLINES = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
SEVERITY_ICONS = {"critical": "🟥", "high": "🟧", "medium": "🟨", "low": "🟦", "info": "⬜"}


def escape_html(text: str) -> str:
    """Text for an HTML context on one line: entities for `&`, `<`, `>`, `"`; newlines become spaces."""
    text = _NEWLINES.sub(" ", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def escape_cell(text: str) -> str:
    """Text for one GFM table cell: HTML-escaped, on one line, Markdown punctuation backslash-escaped."""
    text = escape_html(text)
    # Backslash-escape Markdown syntax (a pipe would end the cell, a backtick open a code span);
    # entities from escape_html hold only `&`, `#`, letters and `;`, and `&` is left alone.
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def fence_for(lines: Sequence[str]) -> str:
    """A backtick fence longer than any backtick run in `lines`, so no line can close it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def diff_lines(details: Sequence[str]) -> list[str]:
    """Detail lines with `- old` / `+ new` markers moved to column 1, so a diff fence colours them."""
    out: list[str] = []
    for detail in details:
        for line in _NEWLINES.split(detail):
            stripped = line.lstrip(" ")
            if stripped[:2] in ("- ", "+ "):
                out.append(stripped)
            else:
                out.append(" " + line)
    return out


def render_markdown(findings: Sequence[Finding], locator: Locator, *, title: str = "mcp-lock") -> str:
    blocking = any(f.blocking for f in findings)
    rows: list[dict[str, Any]] = []
    for number, finding in enumerate(by_severity(findings), 1):
        file, line = locator.resolve(finding.location)
        severity = finding.effective_severity
        body = diff_lines(finding.details)
        rows.append(
            {
                "number": number,
                "severity": f"{SEVERITY_ICONS[severity]} {severity}",
                "blocking": "yes" if finding.blocking else "no",
                "rule": escape_cell(finding.rule.id),
                "subject": escape_cell(finding.qualified_name),
                "where": escape_cell(f"{file}:{max(1, line)}"),
                "message": escape_cell(finding.message),
                "summary": escape_html(f"{number}. {finding.qualified_name}: {finding.message}"),
                "details": body,
                "fence": fence_for(body),
            }
        )
    verdict = ("❌ " if blocking else "✅ ") + summary_line(findings)
    text = _template().render(title=escape_html(title), verdict=verdict, rows=rows)
    return text.rstrip("\n") + "\n"


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_markdown(findings, context.locator)


@functools.cache
def _template() -> Template:
    # jinja2 is imported on first use: `mcp-lock --version` and `check --offline` do not pay for it.
    from jinja2 import Environment, PackageLoader

    return Environment(loader=PackageLoader("scanner.reporters", "templates"), autoescape=False).get_template(
        "summary.md.j2"
    )
