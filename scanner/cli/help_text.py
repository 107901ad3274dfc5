"""What `--help` shows beyond the options: examples and exit codes per subcommand, and the options grouped
(the subcommand's own, booting, reporting) so the dozen report options do not bury the few that matter."""

from __future__ import annotations

from typing import Any

import click

EXIT_CODES = (
    "Exit codes:\n"
    "  0  every declared server matches the lock (notes may be printed)\n"
    "  1  findings: a change, an unpinned or unbootable server, an expired ignore entry\n"
    "  2  usage or configuration error: a config file, the policy, the lockfile or a missing variable"
)
EXAMPLES = {
    "main": (
        "mcp-lock list", "mcp-lock lock", "mcp-lock check --sarif mcp-lock.sarif", "mcp-lock update notes",
    ),
    "list": ("mcp-lock list", "mcp-lock list --repo path/to/repo"),
    "lock": ("mcp-lock lock", "mcp-lock lock notes github   # only these; others' secrets are not needed"),
    "check": (
        "mcp-lock check",
        "mcp-lock check --offline                 # no boot: config and lock only (pre-commit)",
        "mcp-lock check --base origin/main --sarif mcp-lock.sarif --summary \"$GITHUB_STEP_SUMMARY\"",
    ),
    "update": (
        "mcp-lock update notes",
        "mcp-lock update notes --tool add_note    # re-pin one tool",
        "mcp-lock update --rerender               # boot nothing, rewrite the lock canonically",
    ),
    "semver": ("mcp-lock semver", "mcp-lock semver notes --base v1.2.0"),
    "log": ("mcp-lock log", "mcp-lock log notes/add_note --verbose"),
    "bom": ("mcp-lock bom --output mcp-servers.cdx.json",),
}
LIST_EXIT_CODES = (
    "Exit codes:\n"
    "  0  listed (a variable only a boot would need is named, not an error)\n"
    "  2  a config file or the policy cannot be used"
)
BOM_EXIT_CODES = (
    "Exit codes:\n"
    "  0  written\n"
    "  2  the lockfile is missing or invalid, the bom extra is not installed, or the output cannot be written"
)
BOOT_PARAMS = frozenset({"timeout", "concurrency", "quiet"})
REPORT_PARAMS = frozenset({"output_format", "output", "category", "template", "summary_limit"})


def epilog(command: str) -> str:
    """Examples, then exit codes; `\\b` keeps click from re-wrapping them."""
    examples = "\n".join(f"  {line}" for line in EXAMPLES[command])
    codes = LIST_EXIT_CODES if command == "list" else BOM_EXIT_CODES if command == "bom" else EXIT_CODES
    return f"\b\nExamples:\n{examples}\n\n\b\n{codes}"


def _section(param: click.Parameter) -> str:
    name = param.name or ""
    if name in BOOT_PARAMS:
        return "Boot options"
    if name in REPORT_PARAMS or name.startswith("also_"):
        return "Report options"
    return "Options"


class SectionedCommand(click.Command):
    """A command whose --help lists its own options first, then the boot and report options each under a
    heading of its own."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Options": [], "Boot options": [], "Report options": []}
        params = self.get_params(ctx)
        reports = any(param.name == "output_format" for param in params)  # else an --output is the command's own
        for param in params:
            record = param.get_help_record(ctx)
            if record is not None:
                sections[_section(param) if reports else "Options"].append(record)
        for title, records in sections.items():
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


def command(name: str | None = None, **kwargs: Any) -> Any:
    """`click.command` with the sectioned help and this subcommand's examples and exit codes."""

    def decorate(function: Any) -> click.Command:
        key = name or function.__name__.replace("_command", "")
        return click.command(name, cls=SectionedCommand, epilog=epilog(key), **kwargs)(function)

    return decorate
