"""The `mcp-lock` command: a thin layer over scanner.engine. Heavy imports wait for the command that needs them."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from scanner import __version__

if TYPE_CHECKING:
    from scanner.engine import Options, Outcome, Workspace

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcp-lock")
def main() -> None:
    """Pin the tool definitions of every MCP server a repository declares, and check them in CI."""


@main.command("list")
@REPO_OPTION
@LOCK_OPTION
def list_command(repo: Path, lockfile: Path | None) -> None:
    """Show every declared server: name, transport, launch, where it is declared, and any problem."""
    from scanner.reporters.launch import describe_launch

    workspace = _workspace(repo, lockfile)
    servers = workspace.discovery.servers
    for server in servers:
        template = server.template
        launch = describe_launch(template) if template else "(cannot be launched)"
        transport = template.transport if template else "?"
        skip = workspace.policy.for_server(server.key).skip
        click.echo(f"{server.key}  [{transport}]  {launch}")
        for declaration in server.declarations:
            disabled = "  (disabled)" if declaration.disabled else ""
            click.echo(f"    declared at {declaration.location} ({declaration.client}){disabled}")
        if skip:
            click.echo(f"    skipped by {workspace.policy.path}: {skip}")
        for problem in server.problems:
            click.echo(f"    {problem.severity}: {problem.message}")
    for config in workspace.discovery.files:
        for problem in config.problems:
            click.echo(f"{problem.severity}: {problem.location}: {problem.message}", err=True)
    if not servers:
        click.echo("no MCP servers declared in this repository", err=True)
    bad = any(p.severity == "error" for c in workspace.discovery.files for p in c.problems) or any(
        s.errors for s in servers
    )
    sys.exit(2 if bad else 0)


@main.command()
@REPO_OPTION
@LOCK_OPTION
@boot_options
def lock(repo: Path, lockfile: Path | None, timeout: float | None, concurrency: int | None, quiet: bool) -> None:
    """Boot every declared server that is not pinned yet and pin it in mcp-lock.json."""
    from scanner import engine

    workspace = _workspace(repo, lockfile)
    outcome = _run(lambda: engine.lock(workspace, _options(timeout, concurrency, quiet)))
    _finish(workspace, outcome)


@main.command()
@REPO_OPTION
@LOCK_OPTION
@boot_options
def check(repo: Path, lockfile: Path | None, timeout: float | None, concurrency: int | None, quiet: bool) -> None:
    """Boot every declared server and compare what it says with the lock. Exit 1 on any unpinned change."""
    from scanner import engine
    from scanner.reporters.text import summary_line

    workspace = _workspace(repo, lockfile)
    outcome = _run(lambda: engine.check(workspace, _options(timeout, concurrency, quiet)))
    outcome.messages.append(summary_line(outcome.findings))
    _finish(workspace, outcome)


@main.command()
@click.argument("servers", nargs=-1)
@click.option("--tool", "tools", multiple=True, help="Re-pin only this tool (repeatable).")
@REPO_OPTION
@LOCK_OPTION
@boot_options
def update(
    servers: tuple[str, ...],
    tools: tuple[str, ...],
    repo: Path,
    lockfile: Path | None,
    timeout: float | None,
    concurrency: int | None,
    quiet: bool,
) -> None:
    """Re-pin the named servers (every server when none is named), showing each change accepted."""
    from scanner import engine

    workspace = _workspace(repo, lockfile)
    outcome = _run(lambda: engine.update(workspace, _options(timeout, concurrency, quiet), servers, tools))
    _finish(workspace, outcome)


def _workspace(repo: Path, lockfile: Path | None) -> Workspace:
    from scanner.engine import open_workspace

    return _run(lambda: open_workspace(repo, lockfile))


def _options(timeout: float | None, concurrency: int | None, quiet: bool) -> Options:
    from scanner.boot import stderr_progress
    from scanner.engine import Options

    return Options(timeout=timeout, concurrency=concurrency, progress=None if quiet else stderr_progress)


def _run(action: Any) -> Any:
    """Run `action`; a usage or configuration error becomes a one-line message and exit code 2."""
    from scanner.engine import EXIT_ERROR, UsageError

    try:
        return action()
    except UsageError as error:
        click.echo(f"mcp-lock: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        click.echo("mcp-lock: interrupted", err=True)
        sys.exit(130)


def _finish(workspace: Workspace, outcome: Outcome) -> None:
    from scanner.reporters.locate import Locator
    from scanner.reporters.text import render_text

    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    locator = Locator(workspace.lock_path, workspace.lock_display)
    click.echo(render_text(outcome.findings, locator, colour=colour), nl=False)
    for message in outcome.messages:
        click.echo(message)
    sys.exit(outcome.exit_code)
