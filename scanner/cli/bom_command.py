"""`mcp-lock bom`: the lock as a CycloneDX bill of materials (scanner.artifacts.bom). Boots and fetches nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scanner import __version__
from scanner.cli.help_text import command
from scanner.cli.options import FILE, LOCK_OPTION, REPO_OPTION, run_action, workspace_at, write_report
from scanner.errors import EXIT_ERROR
from scanner.run.workspace import read_lock


@command()
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
        # Never a bare package name: mcp-lock is on no index, so `pip install mcp-lock[bom]` would install
        # whatever someone else publishes under that name. The README installs from the repository at a tag.
        source = f"git+https://github.com/mcp-lock/mcp-lock@v{__version__}"
        click.echo("mcp-lock: error: `mcp-lock bom` needs the bom extra, installed from the repository at the "
                   f"release you run: pip install 'mcp-lock[bom] @ {source}' (see docs/bom.md)", err=True)
        sys.exit(EXIT_ERROR)
    workspace = workspace_at(repo, lockfile)
    lock = run_action(lambda: read_lock(workspace))
    assert lock is not None  # read_lock refuses a missing lock unless told otherwise
    document = bom_json(lock, workspace.repo.resolve().name)
    if output is None:
        click.echo(document, nl=False)
    else:
        write_report(output, document, workspace.repo)
