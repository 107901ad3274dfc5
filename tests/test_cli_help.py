"""`--help` shows examples and exit codes, and groups the options: the subcommand's own first, then booting and
reporting under headings of their own (list and log take no report options and show none)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from scanner.cli.main import COMMANDS, main


def help_of(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_shows_examples_and_exit_codes(command: str) -> None:
    shown = help_of(command)
    assert f"Examples:\n    mcp-lock {command}" in shown
    assert "Exit codes:\n    0  " in shown and "\n    2  " in shown


@pytest.mark.parametrize("command", ["check", "lock", "update", "semver"])
def test_report_and_boot_options_are_grouped_after_the_commands_own(command: str) -> None:
    shown = help_of(command)
    own, boot, report = shown.index("Options:"), shown.index("Boot options:"), shown.index("Report options:")
    assert own < boot < report
    assert shown.index("--repo") < boot and boot < shown.index("--timeout") < report
    assert report < shown.index("--format") < shown.index("--sarif FILE") < shown.index("--summary-limit")


@pytest.mark.parametrize("command", ["list", "log", "bom"])
def test_commands_that_report_nothing_show_no_report_options(command: str) -> None:
    shown = help_of(command)
    assert "Report options:" not in shown and "--sarif" not in shown


def test_the_top_level_help_has_examples_and_exit_codes() -> None:
    shown = help_of()
    assert "Examples:\n    mcp-lock list" in shown
    assert "1  findings:" in shown
    assert "list exits 0" not in shown  # list's own codes are on its own page
    assert "a variable only a boot would need" in help_of("list")
