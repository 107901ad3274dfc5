"""The `mcp-lock` subcommands: a thin layer over scanner.run. GitPython waits for the command that needs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from scanner.cli.help_text import command
from scanner.cli.options import (
    LOCK_OPTION,
    REPO_OPTION,
    boot_options,
    boot_settings,
    finish,
    report_options,
    run_action,
    workspace_at,
)
from scanner.lock.summary import pin_status
from scanner.model.kinds import KIND_KEYS
from scanner.model.rules import SEVERITIES
from scanner.policy.suppression import Audit
from scanner.reporters.console import safe
from scanner.run import operations
from scanner.run.offline import BOOT_ONLY_CODES, UNRESOLVED_CODES, check_offline
from scanner.run.shard import Shard, ShardError
from scanner.run.workspace import LOCKFILE_NAME, Workspace, read_lock, read_managed, server_keys
from scanner.sources.declarations import Problem, Server
from scanner.sources.describe import describe_launch


@command("list")
@REPO_OPTION
@LOCK_OPTION
def list_command(repo: Path, lockfile: Path | None) -> None:
    """Show every declared server: its launch, where it is declared, whether it is pinned, and any problem."""
    workspace = workspace_at(repo, lockfile)
    pinned = run_action(lambda: read_lock(workspace, missing_ok=True))
    servers, lock_name = workspace.discovery.servers, workspace.lock_display
    for server in servers:
        template = server.template
        launch = describe_launch(template) if template else "(cannot be launched)"
        transport = template.transport if template else "?"
        skip = workspace.policy.for_server(*server.policy_names).skip
        click.echo(safe(f"{server.key}  [{transport}]  {launch}"))  # repository text: escaped, as everywhere
        for declaration in server.declarations:
            disabled = "  (disabled)" if declaration.disabled else ""
            click.echo(safe(f"    declared at {declaration.location} ({declaration.client}){disabled}"))
        if skip:
            click.echo(safe(f"    skipped by {workspace.policy.path}: {skip}"))
        else:
            click.echo(safe("    " + pin_status(pinned.servers.get(server.key) if pinned else None, lock_name)))
        for problem in _listed_problems(server, skipped=bool(skip)):
            if problem.code in BOOT_ONLY_CODES:  # only a boot needs it: `list` boots nothing, so no failure
                click.echo(safe(f"    to boot it: {problem.message} (or `skip:` it in mcp-lock.yaml)"))
            else:
                click.echo(safe(f"    {problem.severity}: {problem.message}"))
    for config in workspace.discovery.files:
        for problem in config.problems:
            click.echo(safe(f"{problem.severity}: {problem.location}: {problem.message}"), err=True)
    if not servers:
        click.echo("no MCP servers declared in this repository", err=True)
    bad = any(p.severity == "error" for c in workspace.discovery.files for p in c.problems) or any(
        p.severity == "error" and p.code not in BOOT_ONLY_CODES
        for s in servers
        for p in _listed_problems(s, skipped=bool(workspace.policy.for_server(*s.policy_names).skip))
    )
    sys.exit(2 if bad else 0)


def _listed_problems(server: Server, *, skipped: bool) -> list[Problem]:
    """A skipped server is never launched, so a variable or input it lacks is no problem."""
    return [p for p in server.problems if not (skipped and p.code in UNRESOLVED_CODES)]


@command()
@click.argument("servers", nargs=-1)
@REPO_OPTION
@LOCK_OPTION
@boot_options
@report_options
def lock(
    servers: tuple[str, ...],
    repo: Path,
    lockfile: Path | None,
    timeout: float | None,
    concurrency: int | None,
    quiet: bool,
    **report: Any,
) -> None:
    """Boot every declared server (or the named ones) not pinned yet and pin it in mcp-lock.json."""
    workspace = workspace_at(repo, lockfile)
    outcome = run_action(lambda: operations.lock(workspace, boot_settings(timeout, concurrency, quiet), servers))
    finish(workspace, outcome, report)


@command()
@REPO_OPTION
@LOCK_OPTION
@click.option(
    "--offline",
    is_flag=True,
    help="Boot nothing: verify the lock and compare it with the declared servers and their launches "
    "(fast, for pre-commit). Definitions are not compared.",
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    default="info",
    show_default=True,
    help="Fail only on unpinned changes graded at least this severe (the default fails on every one).",
)
@click.option(
    "--shard",
    metavar="I/N",
    callback=lambda _ctx, _param, value: _shard(value),
    help="Check only the I-th of N shares of the servers (a CI matrix job each); "
    "the SARIF category gets a -shard-I-of-N suffix.",
)
@click.option(
    "--base",
    metavar="REF",
    default=None,
    help="Also note what changed since the merge base of REF and HEAD: launches, dependency manifests "
    "and re-pins in mcp-lock.json (notes never fail the run); the detectors' findings on text pinned "
    "since do. The run is judged by mcp-lock.yaml at the merge base: each loosening the change makes "
    "to it is a blocking policy-loosened finding, and only its tightenings apply.",
)
@click.option(
    "--changed-only", is_flag=True, help="With --base: boot only the servers with a change since the base."
)
@click.option(
    "--advisories",
    metavar="osv|URL|DIR",
    envvar="MCP_LOCK_ADVISORIES",
    default=None,
    help="Look up every npm and PyPI package the servers run in OSV: `osv` for OSV's public API, another OSV "
    "API's base URL (a mirror), or a local OSV export directory (offline). A failed lookup fails the run. "
    "Default: $MCP_LOCK_ADVISORIES; unset, no lookup. See docs/advisories.md.",
)
@click.option(
    "--managed-settings",
    metavar="FILE",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="An enterprise managed-settings.json whose allowedMcpServers/deniedMcpServers say which servers may "
    "be declared (default: $MCP_LOCK_MANAGED_SETTINGS; unset, none). A server outside it fails the run.",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="The scheduled question: resolve each pinned launch as it would install today (no package code, no "
    "secret), name every package that would change and screen the new releases. Exit 1 when any would change; "
    "`update --fresh` re-pins. See docs/ci.md.",
)
@click.option(
    "--boot",
    "boot_fresh",
    is_flag=True,
    help="With --fresh: also boot each tree that would change, in the sandbox and without the launch's secrets, "
    "and compare its definitions with the lock (graded, detectors run) as `check` compares a live server.",
)
@boot_options
@report_options
def check(
    repo: Path,
    lockfile: Path | None,
    offline: bool,
    fail_on: str,
    shard: Shard | None,
    base: str | None,
    changed_only: bool,
    advisories: str | None,
    managed_settings: Path | None,
    fresh: bool,
    boot_fresh: bool,
    timeout: float | None,
    concurrency: int | None,
    quiet: bool,
    **report: Any,
) -> None:
    """Boot every declared server and compare what it says with the lock. Exit 1 on any unpinned change."""
    if changed_only and base is None:
        raise click.UsageError("--changed-only needs --base REF")
    if fresh and (base is not None or offline or shard is not None):
        raise click.UsageError("--fresh is its own run: give it without --base, --offline or --shard")
    if boot_fresh and not fresh:
        raise click.UsageError("--boot boots today's trees: give it with --fresh")
    workspace = workspace_at(repo, lockfile)
    if fresh:
        from scanner.run.fresh import check_fresh

        booting = boot_settings(timeout, concurrency, quiet) if boot_fresh else None
        outcome = run_action(lambda: check_fresh(workspace, advisories, booting))
        outcome.fail_on = fail_on
        finish(workspace, outcome, report)
        return
    if managed_settings is not None:
        workspace.managed = run_action(lambda: read_managed(managed_settings))
    options = None
    if not offline:  # offline never touches scanner.run.boot, so no mcp SDK import
        options = boot_settings(timeout, concurrency, quiet)
        options.shard = shard
    if base is not None:
        # GitPython is slow to import, and only --base needs it.
        from scanner.vcs.review import check_with_base

        outcome = run_action(lambda: check_with_base(workspace, base, options, shard=shard, changed_only=changed_only))
    elif options is None:
        outcome = run_action(lambda: check_offline(workspace, shard))
    else:
        outcome = run_action(lambda: operations.check(workspace, options))
    if advisories:
        # urllib.request (with http.client and ssl) is slow to import, and only --advisories needs it.
        from scanner.run.advisory_check import check_advisories

        outcome.findings += check_advisories(workspace, advisories, outcome, shard)
    if not offline or base is not None:
        # Package versions new to a server are screened against their registry (urllib, as above: imported here).
        from scanner.run.release_check import check_releases

        outcome.findings += run_action(lambda: check_releases(workspace, outcome, shard))
    if shard is not None:
        report["category"] = shard.category(report["category"])
        outcome.messages.append(_shard_message(workspace, shard))
    outcome.fail_on = fail_on
    outcome.summarise = True
    outcome.audit = _audit(workspace, offline=offline, shard=shard, partial=changed_only)
    finish(workspace, outcome, report)


def _audit(workspace: Workspace, *, offline: bool, shard: Shard | None, partial: bool) -> Audit:
    """What this check may say about the ignore entries: an unmatched one is stale only if every server ran."""
    owned = None
    if shard is not None:
        lockfile = read_lock(workspace)
        assert lockfile is not None
        owned = shard.select(server_keys(workspace, lockfile))
    return Audit(expiry=True, unmatched=not (offline or partial or shard), servers=owned)


@command()
@click.argument("servers", nargs=-1)
@click.option("--tool", "tools", multiple=True, help="Re-pin only this tool (repeatable).")
@click.option("--rerender", is_flag=True, help="Boot nothing: verify the lock's digests, rewrite it in canonical form.")
@click.option(
    "--fresh",
    is_flag=True,
    help="Re-pin to what each launch resolves to today (the nightly re-pin after `check --fresh`), listing every "
    "package it accepts; without it a launch as pinned keeps the tree its lock records. Every package that "
    "would change is screened (release age, install scripts, provenance), and the lock is not written while "
    "one fails.",
)
@click.option(
    "--advisories",
    metavar="osv|URL|DIR",
    envvar="MCP_LOCK_ADVISORIES",
    default=None,
    help="With --fresh: also look up every package that would change in OSV (as `check --advisories`).",
)
@REPO_OPTION
@LOCK_OPTION
@boot_options
@report_options
def update(
    servers: tuple[str, ...],
    tools: tuple[str, ...],
    rerender: bool,
    fresh: bool,
    advisories: str | None,
    repo: Path,
    lockfile: Path | None,
    timeout: float | None,
    concurrency: int | None,
    quiet: bool,
    **report: Any,
) -> None:
    """Re-pin the named servers (every server when none is named), showing each change accepted."""
    if rerender and (servers or tools):
        raise click.UsageError("--rerender re-renders the whole lock: name no server and no --tool")
    workspace = workspace_at(repo, lockfile)
    if rerender and fresh:
        raise click.UsageError("--rerender boots nothing: give it without --fresh")
    options = None if rerender else boot_settings(timeout, concurrency, quiet)
    if options is not None:
        options.fresh = fresh  # resolve today's tree even where the lock records one
        options.advisories = advisories if fresh else None
    if options is None:
        outcome = run_action(lambda: operations.rerender(workspace))
    else:
        outcome = run_action(lambda: operations.update(workspace, options, servers, tools))
    finish(workspace, outcome, report)


@command()
@click.argument("servers", nargs=-1)
@click.option(
    "--base",
    metavar="REF",
    help="The released state [default: the highest-versioned release tag not on HEAD; see --tag-pattern].",
)
@click.option(
    "--tag-pattern",
    metavar="GLOB",
    help="Which tags are this package's releases, e.g. 'mcp-server-git/*' in a monorepo [default: every tag "
    "with a version in its name, if they are of one package].",
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    default="info",
    show_default=True,
    help="Fail only on findings at least this severe (a missing major bump is high, minor medium, patch low).",
)
@REPO_OPTION
@LOCK_OPTION
@boot_options
@report_options
def semver(servers: tuple[str, ...], base: str | None, tag_pattern: str | None, fail_on: str, repo: Path,
           lockfile: Path | None, timeout: float | None, concurrency: int | None, quiet: bool, **report: Any) -> None:
    """Check each server's version bump since the base against the changes of its live surface."""
    from scanner.release.semver import semver_gate

    if base is not None and tag_pattern is not None:
        raise click.UsageError("--base names the base itself: give --base or --tag-pattern, not both")
    workspace = workspace_at(repo, lockfile)
    options = boot_settings(timeout, concurrency, quiet)
    outcome = run_action(lambda: semver_gate(workspace, options, servers, base, tag_pattern))
    outcome.fail_on = fail_on
    finish(workspace, outcome, report)


def _shard_message(workspace: Workspace, shard: Shard) -> str:
    """What the shard covered; a shard with no servers (a matrix wider than the repo) says so, and passes."""
    lockfile = run_action(lambda: read_lock(workspace, missing_ok=True))
    keys = {s.key for s in workspace.discovery.servers} | (set(lockfile.servers) if lockfile else set())
    if not shard.select(keys):
        return f"{shard.label}: this shard has no servers ({len(keys)} over {shard.count} shards); nothing checked"
    return f"{shard.label}: checked only this shard's servers"


def _shard(value: str | None) -> Shard | None:
    if value is None:
        return None
    try:
        return Shard.parse(value)
    except ShardError as error:
        raise click.BadParameter(str(error)) from None


@command("log")
@click.argument("target", required=False, metavar="[SERVER[/NAME]]")
@REPO_OPTION
@LOCK_OPTION
@click.option(
    "--kind",
    type=click.Choice(KIND_KEYS),
    default=None,
    help="Only changes to definitions of this kind.",
)
@click.option("--reverse", is_flag=True, help="Oldest commit first (the default is newest first, like git log).")
@click.option("--json", "as_json", is_flag=True, help="Print the log as JSON.")
@click.option("--verbose", "-v", is_flag=True, help="Show the details of each change.")
def log(
    target: str | None, repo: Path, lockfile: Path | None, kind: str | None, reverse: bool, as_json: bool, verbose: bool
) -> None:
    """History of the pins from git: every commit that changed the lockfile, and what it changed."""
    # GitPython is slow to import, and only the log needs it.
    from scanner.vcs.history import pin_log, render_text, to_json

    result = run_action(lambda: pin_log(repo, lockfile or repo / LOCKFILE_NAME, target, kind))
    entries = result.entries[::-1] if reverse else result.entries
    if as_json:
        click.echo(json.dumps(to_json(entries, result.lock_path), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(entries, verbose=verbose), nl=False)
    for message in result.messages:
        click.echo(f"mcp-lock: {message}", err=True)
    if not entries and target and not result.messages:
        click.echo(f"mcp-lock: no commit changed {target} in {result.lock_path}", err=True)
