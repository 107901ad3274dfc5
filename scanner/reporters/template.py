"""Findings through a template of the user's: `--format template --template FILE`, as trivy offers templates.

The template is Jinja2, run in Jinja2's ImmutableSandboxedEnvironment: it reads the JSON report's data
(`findings`, `summary`, `tool`, `version`; see json_report) and can call no Python beyond that, change no
value and import nothing. Its output is bounded (MAX_OUTPUT_BYTES) while it is produced.

Server text is hostile, so every `{{ … }}` is escaped for the file type the template's name says, and a
template cannot turn that off for server text:

* `.html`, `.htm`, `.xml`, `.svg`: HTML autoescaping (`|safe` is honoured only for the template's own markup);
* `.md`, `.markdown`: one line, HTML entities, Markdown punctuation backslash-escaped (a link or an image
  in a description stays text);
* `.csv`: each `{{ … }}` is one RFC 4180 field: on one line as for plain text, always in double quotes (a
  quote doubled), and a value starting with `=`, `+`, `-`, `@`, a tab or a carriage return prefixed with `'`
  so a spreadsheet shows it as text rather than running it as a formula;
* anything else: one line, control characters written as escapes, no line a CI runner reads as a command.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import markupsafe
from jinja2 import TemplateError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from scanner.errors import UsageError
from scanner.model.findings import Finding
from scanner.reporters.console import printable, safe
from scanner.reporters.interface import ReportContext
from scanner.reporters.json_report import build_report
from scanner.reporters.markdown_text import escape_cell

MAX_TEMPLATE_BYTES = 256 * 1024
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
HTML_SUFFIXES = frozenset({".html", ".htm", ".xml", ".svg"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
CSV_SUFFIXES = frozenset({".csv"})
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


class TemplateFailed(UsageError):
    """The template cannot be read, compiled or rendered; the message names the file and line."""


# What a template looks like (and what the reporter renders when called without one): one line a finding.
EXAMPLE = "{% for f in findings %}{{ f.severity }} {{ f.qualifiedName }}: {{ f.message }} [{{ f.rule }}]\n{% endfor %}"


class ReportTemplate:
    """A compiled user template and the escaping its file type calls for."""

    def __init__(self, path: Path, text: str | None = None) -> None:
        self.name = path.name
        text = _read(path) if text is None else text
        suffix = Path(path.name.lower().removesuffix(".j2").removesuffix(".jinja")).suffix  # report.md.j2: .md
        self.html = suffix in HTML_SUFFIXES
        escape: Callable[[str], str] = safe
        if suffix in MARKDOWN_SUFFIXES:
            escape = escape_cell
        elif suffix in CSV_SUFFIXES:
            escape = csv_field
        environment = ImmutableSandboxedEnvironment(
            autoescape=self.html,
            finalize=self._finalize_html if self.html else lambda value: _finalize_plain(value, escape),
            keep_trailing_newline=True,
        )
        try:
            self.template = environment.from_string(text)
        except TemplateSyntaxError as error:
            raise TemplateFailed(f"{self.name}: line {error.lineno}: {error.message}") from None

    @staticmethod
    def _finalize_html(value: Any) -> Any:
        if isinstance(value, markupsafe.Markup):
            return value  # the template's own markup; autoescaping escapes every other string
        return printable(value) if isinstance(value, str) else value

    def render(self, findings: Sequence[Finding], context: ReportContext) -> str:
        data = build_report(findings, context.locator)
        output = io.StringIO()
        size = 0
        try:
            for chunk in self.template.generate(**data, report=data):
                size += len(chunk.encode("utf-8"))
                if size > MAX_OUTPUT_BYTES:
                    raise TemplateFailed(f"{self.name}: the output passed {MAX_OUTPUT_BYTES // (1024 * 1024)} MiB")
                output.write(chunk)
        except TemplateError as error:  # the sandbox's SecurityError, an undefined name called, …
            raise TemplateFailed(f"{self.name}: {type(error).__name__}: {printable(str(error))[:300]}") from None
        text = output.getvalue().rstrip("\n")
        return text + "\n" if text else ""  # every reporter: empty, or ending in exactly one newline


def csv_field(text: str) -> str:
    """`text` as one quoted CSV field (RFC 4180) that no spreadsheet runs as a formula."""
    line = safe(text)
    if line.startswith(FORMULA_STARTS):
        line = "'" + line
    return '"' + line.replace('"', '""') + '"'


def _finalize_plain(value: Any, escape: Callable[[str], str]) -> Any:
    return escape(value) if isinstance(value, str) else value


def _read(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TEMPLATE_BYTES + 1)
    except OSError as error:
        raise TemplateFailed(f"{path}: cannot be read: {error.strerror}") from None
    if len(data) > MAX_TEMPLATE_BYTES:
        raise TemplateFailed(f"{path}: larger than {MAX_TEMPLATE_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TemplateFailed(f"{path}: not UTF-8 (byte offset {error.start})") from None


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    template: ReportTemplate = context.template or ReportTemplate(Path("example.txt"), EXAMPLE)
    return template.render(findings, context)
