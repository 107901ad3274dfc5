"""What every `mcp-lock` subcommand shares: its options, running an operation with one-line errors, and
writing the reports it asks for."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from scanner.errors import EXIT_ERROR, UsageError
from scanner.files.safe_read import RefusedFile
from scanner.files.safe_write import write_file
from scanner.model.findings import Finding
from scanner.policy.suppression import apply_ignores, today_utc
from scanner.reporters.console import safe, stderr_progress
from scanner.reporters.formats import REPORTER_BY_NAME, REPORTERS, Reporter
from scanner.reporters.interface import SUMMARY_LIMIT, ReportContext
from scanner.run.outcome import Outcome
from scanner.run.workspace import Options, Workspace, open_workspace

if TYPE_CHECKING:  # loaded by name, with Jinja2, only when --format template is used (reporters.formats)
    from scanner.reporters.template import ReportTemplate

REPO_OPTION = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository whose declared MCP servers are pinned.",
)
LOCK_OPTION = click.option(
    "--lockfile",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Lockfile path [default: REPO/mcp-lock.json].",
)


FILE = click.Path(dir_okay=False, path_type=Path)
MIN_SUMMARY, MAX_SUMMARY = 4_000, 1_000_000  # room for the counts and one finding; under a step summary's 1 MiB


def report_options(function: Any) -> Any:
    """Output options: one format on stdout (or --output), and any others written to files in the same run."""
    options = [
        click.option(
            "--format", "output_format", type=click.Choice(list(REPORTER_BY_NAME)), default="text", show_default=True
        ),
        click.option("--output", type=FILE, help="Write --format here."),
    ]
    for reporter in sorted(REPORTERS, key=lambda r: r.also_to == "stdout"):  # files first, as in also_report
        if reporter.also is None:
            continue
        kind: dict[str, Any] = {"is_flag": True} if reporter.also_to == "stdout" else {"type": FILE}
        options.append(click.option(reporter.also, also_name(reporter), help=reporter.also_help, **kind))
    options.append(click.option("--category", default=None, help="SARIF run category (automationDetails.id)."))
    options.append(
        click.option(
            "--template",
            type=FILE,
            help="With --format template: a Jinja2 template of the JSON report, rendered sandboxed, server text "
            "escaped for the template's file type (.html/.xml, .md, .csv, other); see docs/templates.md.",
        )
    )
    options.append(
        click.option(
            "--summary-limit",
            type=click.IntRange(min=MIN_SUMMARY, max=MAX_SUMMARY),
            default=SUMMARY_LIMIT,
            show_default=True,
            help="Size of the Markdown summary in bytes (a PR comment holds 65,536; a step summary 1 MiB); "
            "findings past it are counted, not shown.",
        )
    )
    for option in reversed(options):  # click lists the option applied last first: this keeps the order above
        function = option(function)

    @functools.wraps(function)  # keeps the options click attached
    def with_template(*args: Any, **kwargs: Any) -> Any:
        kwargs["compiled_template"] = compiled_template(kwargs)  # a bad template stops the run before anything boots
        return function(*args, **kwargs)

    return with_template


def also_name(reporter: Reporter) -> str:
    """The parameter name of a reporter's `also` option."""
    return f"also_{reporter.name}"


def boot_options(function: Any) -> Any:
    for option in (
        click.option(
            "--timeout", type=click.FloatRange(min=0.1), default=None, help="Seconds per server [default: 90]."
        ),
        click.option(
            "--concurrency", type=click.IntRange(min=1), default=None, help="Servers booted at once [default: 8]."
        ),
        click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr."),
    ):
        function = option(function)
    return function


def workspace_at(repo: Path, lockfile: Path | None) -> Workspace:
    return run_action(lambda: open_workspace(repo, lockfile))


def boot_settings(timeout: float | None, concurrency: int | None, quiet: bool) -> Options:
    return Options(timeout=timeout, concurrency=concurrency, progress=None if quiet else stderr_progress)


def run_action(action: Any) -> Any:
    """Run `action`; a usage or configuration error becomes a one-line message and exit code 2."""
    try:
        return action()
    except UsageError as error:
        click.echo(f"mcp-lock: error: {safe(str(error))}", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        click.echo("mcp-lock: interrupted", err=True)
        sys.exit(130)


def compiled_template(report: dict[str, Any]) -> ReportTemplate | None:
    """The compiled --template, read and checked before anything boots; --format template needs one."""
    if report["template"] is None:
        if report["output_format"] == "template":
            raise click.UsageError("--format template needs --template FILE")
        return None
    if report["output_format"] != "template":
        raise click.UsageError("--template is for --format template")
    reporter = REPORTER_BY_NAME["template"].load()
    template: ReportTemplate = run_action(lambda: reporter.ReportTemplate(report["template"]))
    return template


def finish(workspace: Workspace, outcome: Outcome, report: dict[str, Any]) -> None:
    # The report's modules load while the servers boot (scanner.run.analysis), not before the first spawn.
    from scanner.reporters.locate import Locator
    from scanner.reporters.text_report import summary_line

    # The one place ignore entries apply: before the exit code and every reporter.
    outcome.findings = apply_ignores(outcome.findings, workspace.policy.ignores, outcome.audit, today_utc())
    if outcome.summarise:
        outcome.messages.append(summary_line(outcome.findings, outcome.fails))
    colour = report["output"] is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    context = ReportContext(
        Locator(workspace.lock_path, workspace.lock_display, workspace.repo),
        category=report["category"],
        colour=colour,
        summary_limit=report["summary_limit"],
        template=report["compiled_template"],
    )
    reporter = REPORTER_BY_NAME[report["output_format"]]
    rendered = run_action(lambda: reporter.render(outcome.findings, context))
    if report["output"] is not None:
        write_report(report["output"], rendered, workspace.repo)
    else:
        click.echo(rendered, nl=False)
    also_report(outcome.findings, context, report, workspace.repo)
    if report["output_format"] == "text" or report["output"] is not None:
        for message in outcome.messages:
            click.echo(safe(message))
    else:
        for message in outcome.messages:
            click.echo(f"mcp-lock: {safe(message)}", err=True)
    sys.exit(outcome.exit_code)


def also_report(findings: list[Finding], context: ReportContext, report: dict[str, Any], repo: Path) -> None:
    """The formats asked for besides --format: files first, then what goes to stdout (once only)."""
    wanted = [reporter for reporter in REPORTERS if reporter.also and report[also_name(reporter)]]
    for reporter in wanted:
        if reporter.also_to != "stdout":
            text = reporter.render(findings, context)
            write_report(report[also_name(reporter)], text, repo, append=reporter.also_to == "append")
    for reporter in wanted:
        if reporter.also_to == "stdout" and reporter.name != report["output_format"]:
            click.echo(reporter.render(findings, context), nl=False)


def write_report(path: Path, text: str, repo: Path, *, append: bool = False) -> None:
    """A report file, written like the lock: never through a link, only over a regular file."""
    try:
        write_file(path, text.encode("utf-8"), repo, append=append)
    except RefusedFile as error:
        click.echo(f"mcp-lock: error: {safe(f'cannot write {error}')}", err=True)
        sys.exit(2)
    except OSError as error:
        click.echo(f"mcp-lock: error: cannot write {path}: {error.strerror}", err=True)
        sys.exit(2)
