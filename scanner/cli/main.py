"""The `mcp-lock` command group. A subcommand's module is imported only when that subcommand runs, so
`mcp-lock --version` starts without loading the engine (the pattern of click's "lazily loading subcommands")."""

from __future__ import annotations

import gc
import importlib
import os
import sys

import click

from scanner import __version__
from scanner.cli.help_text import epilog
from scanner.cli.launch import GC_THRESHOLDS  # set again here for callers of `main` itself (tests, benches)
from scanner.files import cache_key

# Subcommand name -> "module:attribute" of its click command.
COMMANDS = {
    "bom": "scanner.cli.bom_command:bom",
    "check": "scanner.cli.commands:check",
    "list": "scanner.cli.commands:list_command",
    "lock": "scanner.cli.commands:lock",
    "log": "scanner.cli.commands:log",
    "semver": "scanner.cli.commands:semver",
    "update": "scanner.cli.commands:update",
}



class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=epilog("main"))
@click.version_option(__version__, prog_name="mcp-lock")
def main() -> None:
    """Pin the tool definitions of every MCP server a repository declares, and check them in CI."""
    gc.set_threshold(*GC_THRESHOLDS)
    # Before any subcommand starts a server or a package manager (scanner.files.cache_key).
    try:
        cache_key.load(os.environ)
    except cache_key.CacheKeyError as error:
        click.echo(f"mcp-lock: error: {error}", err=True)
        sys.exit(2)
