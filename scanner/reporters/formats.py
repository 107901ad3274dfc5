"""Every output format, by name. A new reporter is its module and one line in REPORTERS.

The CLI takes its `--format` choices from this table, and each reporter with an `also` option gets that
option as well, written besides `--format` in the same run: to a file (`--json FILE`), appended to one
(`--summary FILE`, for $GITHUB_STEP_SUMMARY), or printed on stdout (`--github-annotations`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scanner.reporters import github, json_report, markdown, sarif, template, text_report
from scanner.reporters.interface import Render

AlsoTo = Literal["file", "append", "stdout"]


@dataclass(frozen=True)
class Reporter:
    name: str  # the --format choice
    render: Render
    also: str | None = None  # the option that also writes this format, e.g. "--json"
    also_to: AlsoTo = "file"
    also_help: str = ""


REPORTERS: tuple[Reporter, ...] = (
    Reporter("text", text_report.render),
    Reporter("json", json_report.render, also="--json", also_help="Also write JSON."),
    Reporter("sarif", sarif.render, also="--sarif", also_help="Also write SARIF."),
    Reporter("github", github.render, "--github-annotations", "stdout", "Also print GitHub workflow annotations."),
    Reporter("markdown", markdown.render, "--summary", "append", "Also append Markdown (e.g. $GITHUB_STEP_SUMMARY)."),
    Reporter("template", template.render),  # a Jinja2 template of the user's, sandboxed: --template FILE
)
REPORTER_BY_NAME: dict[str, Reporter] = {reporter.name: reporter for reporter in REPORTERS}
