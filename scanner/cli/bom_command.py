"""`mcp-lock bom`: the lock as a CycloneDX bill of materials (scanner.artifacts.bom). Boots and fetches nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scanner.cli.options import FILE, LOCK_OPTION, REPO_OPTION, run_action, workspace_at, write_report
from scanner.errors import EXIT_ERROR
from scanner.run.workspace import read_lock


@click.command()
@REPO_OPTION
@LOCK_OPTION
@click.option("--output", type=FILE, help="Write the document here (replaced atomically) instead of stdout.")
def bom(repo: Path, lockfile: Path | None, output: Path | None) -> None:
    """Print a CycloneDX 1.6 bill of materials of every server the lock pins: its launch, the packages it runs
    with their hashes, and the digest of every pinned tool, prompt and resource. Boots nothing."""
    try:
        # The CycloneDX library is the `bom` extra, and only this command needs it.
        from scanner.artifacts.bom import bom_json
    except ImportError:
        click.echo("mcp-lock: error: `mcp-lock bom` needs the bom extra: pip install 'mcp-lock[bom]' (see docs/bom.md)",
                   err=True)
        sys.exit(EXIT_ERROR)
    workspace = workspace_at(repo, lockfile)
    lock = run_action(lambda: read_lock(workspace))
    assert lock is not None  # read_lock refuses a missing lock unless told otherwise
    document = bom_json(lock, workspace.repo.resolve().name)
    if output is None:
        click.echo(document, nl=False)
    else:
        write_report(output, document, workspace.repo)
