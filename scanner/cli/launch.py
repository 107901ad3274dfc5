"""The `mcp-lock` executable. `mcp-lock --version` is answered before click is imported, which is about half
of the command's start-up (the pre-commit hook and CI's version checks run it); every other command goes to
the click group, loaded by name as its subcommands are (scanner.cli.main)."""

from __future__ import annotations

import importlib
import sys

from scanner import __version__

VERSION_LINE = f"mcp-lock, version {__version__}"  # click's version_option wording, as `main` prints it


def run() -> None:
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(VERSION_LINE + "\n")
        return
    importlib.import_module("scanner.cli.main").main()
