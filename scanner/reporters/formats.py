"""Every output format, by name. A new reporter is its module and one line in REPORTERS.

The CLI takes its `--format` choices from this table, and each reporter with an `also` option gets that
option as well, written besides `--format` in the same run: to a file (`--json FILE`), appended to one
(`--summary FILE`, for $GITHUB_STEP_SUMMARY), or printed on stdout (`--github-annotations`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

from scanner.model.findings import Finding
from scanner.reporters.interface import ReportContext

AlsoTo = Literal["file", "append", "stdout"]


@dataclass(frozen=True)
class Reporter:
    name: str  # the --format choice
    # Its module under scanner.reporters, with a `render(findings, context)`: imported by name when the format
    # is used, so that a format's own dependencies (Jinja2 for `template`) load only in the runs that use it.
    module: str
    also: str | None = None  # the option that also writes this format, e.g. "--json"
    also_to: AlsoTo = "file"
    also_help: str = ""

    def load(self) -> ModuleType:
        return importlib.import_module(f"scanner.reporters.{self.module}")

    def render(self, findings: Sequence[Finding], context: ReportContext) -> str:
        text: str = self.load().render(findings, context)
        return text


REPORTERS: tuple[Reporter, ...] = (
    Reporter("text", "text_report"),
    Reporter("json", "json_report", also="--json", also_help="Also write JSON."),
    Reporter("sarif", "sarif", also="--sarif", also_help="Also write SARIF."),
    Reporter("github", "github", "--github-annotations", "stdout", "Also print GitHub workflow annotations."),
    Reporter("markdown", "markdown", "--summary", "append", "Also append Markdown (e.g. $GITHUB_STEP_SUMMARY)."),
    Reporter("template", "template"),  # a Jinja2 template of the user's, sandboxed: --template FILE
)
REPORTER_BY_NAME: dict[str, Reporter] = {reporter.name: reporter for reporter in REPORTERS}
