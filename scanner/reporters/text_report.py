"""Findings for people: grouped by server, most severe first, with the change shown."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Sequence
from itertools import groupby

from scanner.diff.suspicious import is_unchanged_text
from scanner.model.environment import UNLAUNCHABLE
from scanner.model.findings import Finding, detector_blocks, ordered
from scanner.model.rules import SUSPICIOUS_TEXT, Category
from scanner.reporters.acknowledgement import suggested_entries
from scanner.reporters.console import safe
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator

COLOURS = {"critical": "1;31", "high": "31", "medium": "33", "low": "36", "info": "2"}


def render_text(findings: Sequence[Finding], locator: Locator, *, colour: bool = False) -> str:
    if not findings:
        return ""

    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if colour else text

    lines: list[str] = []
    for server, group in groupby(ordered(summarised_repins(findings)), key=lambda f: f.server):
        lines.append(paint(safe(server), "1"))
        for finding in group:
            severity = finding.effective_severity
            file, line = locator.resolve(finding.location)
            label = paint(f"{severity.upper():<8}", COLOURS[severity])
            suppressed = f" (suppressed: {safe(finding.suppression)})" if finding.suppression is not None else ""
            lines.append(f"  {label} {safe(finding.message)}  [{_filed(finding)}]{suppressed}")
            lines.append(f"           at {safe(file)}:{line}")
            if finding.suppression is not None:
                lines.append(f"           suppressed: {safe(finding.suppression)}")
            lines += [f"           {safe(detail)}" for detail in finding.details]
    steps = next_steps(findings)
    if steps:
        lines += ["", "next steps:", *(f"  - {step}".replace("\n", "\n      ") for step in steps)]
    return "\n".join(lines) + "\n"


def _filed(finding: Finding) -> str:
    """The rule, and for a detector's hit the category of its check (the message quotes the check's id)."""
    return f"{finding.rule.id}, {finding.category}" if finding.check is not None else finding.rule.id


# `check --base` notes on what the pull request pinned; past this many for one server a green run counts them.
REPIN_NOTES = frozenset({"repin-accepted", "newly-pinned"})
REPINS_LISTED = 3
SUBJECTS_NAMED = 5


def summarised_repins(findings: Sequence[Finding]) -> list[Finding]:
    """With nothing blocking, a server's many re-pin notes as one line with a count: the reviewer already
    accepted them in the lockfile diff. Every one stays in the JSON, SARIF and Markdown reports."""
    if any(f.blocking for f in findings):
        return list(findings)
    notes: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.rule.id in REPIN_NOTES and finding.suppression is None:
            notes.setdefault(finding.server, []).append(finding)
    many = {server: group for server, group in notes.items() if len(group) > REPINS_LISTED}
    kept = [f for f in findings if not (f.rule.id in REPIN_NOTES and f.server in many and f.suppression is None)]
    for server, group in many.items():
        subjects = sorted({f.subject for f in group if f.subject})
        more = len(subjects) - SUBJECTS_NAMED
        named = ", ".join(subjects[:SUBJECTS_NAMED]) + (f" and {more} more" if more > 0 else "")
        message = f"{server}: {len(group)} re-pinned changes accepted in the lock" + (f" ({named})" if named else "")
        kept.append(
            dataclasses.replace(
                ordered(group)[0],
                message=message,
                subject=None,
                details=["each change: `--format json` (or --json FILE), or the Markdown summary"],
            )
        )
    return kept


# Findings about what the servers say, which `update` accepts once a person has reviewed them.
_ACCEPTABLE = {Category.DRIFT, Category.POISONING, Category.CAPABILITY, Category.CORRECTNESS}
# Screens of a package version, whose next step is about that version: wait, pin another, or accept it.
_PACKAGE_SCREENS = {"known-advisory", "release-too-young", "install-script-added", "mcp-name-mismatch"}
# Detector verdicts, where a reviewed false positive is worth an `ignore:` entry.
_DETECTED = {Category.POISONING, Category.CAPABILITY, Category.CORRECTNESS}
ENTRIES_PRINTED = 5  # `ignore:` entries printed in full; the rest are counted


def next_steps(findings: Sequence[Finding]) -> list[str]:
    """What to do about the blocking findings, one short line per kind of problem: drift is reviewed and re-pinned;
    a detector finding is not fixed by a re-pin, so it is reported upstream or acknowledged with the printed
    `ignore:` entry; `update` is never suggested for a server where it would refuse."""
    blocking = [f for f in findings if f.blocking]
    rules = {f.rule.id for f in blocking}
    categories = {f.category for f in blocking}
    steps: list[str] = []
    config = [f for f in blocking if f.rule.id == "config-error"]
    unset = sorted({f.server for f in config if UNLAUNCHABLE in f.message})
    if any(UNLAUNCHABLE not in f.message for f in config):
        steps.append("fix the config files at the lines shown")
    if unset:  # the config is fine: the value is missing where mcp-lock runs
        steps.append(
            f"set the variables or inputs named above where mcp-lock runs (in CI, a secret passed in `env:`) for "
            f"{safe(shlex.join(unset))}, or `skip:` each such server in mcp-lock.yaml with a reason"
        )
    unpinned = sorted({f.server for f in blocking if f.rule.id == "server-not-pinned"})
    if unpinned:  # `update` would not help: nothing of theirs is pinned yet
        steps.append(
            f"pin {safe(shlex.join(unpinned))} with `mcp-lock lock` (give each the variables or inputs it needs "
            "first), or `skip:` it in mcp-lock.yaml with a reason"
        )
    detected = [f for f in blocking if f.rule.id == SUSPICIOUS_TEXT.id]  # every detector files its hits there
    # Where a blocking detector finding stands, `update` refuses: it is not the way out there.
    refusing = {f.server for f in detected if refuses_update(f)}
    drifted = sorted({f.server for f in blocking if f.rule.id not in (SUSPICIOUS_TEXT.id, "server-not-pinned")
                      and f.category in _ACCEPTABLE})
    # Server names are the repository's: quoted, so that the command shown is the command run.
    accepted = [server for server in drifted if server not in refusing]
    if accepted:
        steps.append(
            f"review the changes above; if they are expected, run `{safe(update_command(accepted))}` "
            "and commit mcp-lock.json"
        )
    held = [server for server in drifted if server in refusing]
    if held:
        steps.append(
            f"`mcp-lock update` refuses to re-pin {safe(shlex.join(held))} while a detector finding it would fail on "
            "stands on its text: settle those first (below), then review and re-pin the changes"
        )
    unchanged = [f for f in detected if is_unchanged_text(f)]
    changed = [f for f in detected if not is_unchanged_text(f)]
    if changed:
        steps.append(
            "a detector finding on text new since the pin: do not re-pin it; find out who changed the server. "
            "If you reviewed it and it is harmless, acknowledge it with its `ignore:` entry (below)"
        )
    if unchanged:
        steps.append(
            "a detector finding on text no change of yours brought (the server sent it when first pinned, or the "
            "lock already holds it): a re-pin does not fix it. Report it to the server's maintainers, or, once "
            "reviewed, acknowledge it with its `ignore:` entry (below)"
        )
    acknowledgeable = [f for f in blocking if f.category in _DETECTED]
    if acknowledgeable:
        # The exact entries: each accepts the text as it is now (its digest), so a later change is judged again.
        steps.append(
            "each reviewed false positive's entry, for mcp-lock.yaml: write its reason into it (it accepts that text "
            f"as it is now, nothing added later; `until:` is optional):\n{entry_block(acknowledgeable)}"
        )
    advisories = [f for f in blocking if f.rule.id == "known-advisory"]
    if advisories:
        steps.append(
            "move to a version no advisory lists; or, to accept the risk of this version, write the reason into "
            f"this entry and add it to mcp-lock.yaml:\n{entry_block(advisories)}"
        )
    if rules & _PACKAGE_SCREENS:
        steps.append(
            "for each package version named above: wait until the date it names and run the check again, pin "
            "another version, or add an `ignore:` entry bound to it (rule, server, tool: NAME@VERSION or the "
            "advisory id, reason) to mcp-lock.yaml"
        )
    if "boot-failed" in rules:
        steps.append("fix the launch or environment of each server that did not boot, or `skip:` it in mcp-lock.yaml")
    if Category.RELEASE in categories:
        steps.append("raise the version numbers as the findings above say, then release")
    if "ignore-expired" in rules:
        steps.append("review the expired ignore entries again, then renew their `until:` or remove them")
    if any(f.rule.id == "ignore-unbound" for f in findings):
        steps.append(
            "review again what each ignore entry without `digest:` names, then replace it with the entry its "
            "`ignore-unbound` note quotes (or remove it)"
        )
    if any(f.rule.id == "ignore-unmatched" for f in findings):
        steps.append("remove the ignore entries that matched nothing from mcp-lock.yaml")
    return steps


def refuses_update(finding: Finding) -> bool:
    """Whether `update` would refuse to re-pin this finding's server while it stands (`detector_blocks`: what
    `check` fails on; a wording-only finding on unchanged text, or one graded below high, does not block), or a
    package whose bytes changed under the same version (scanner.run.tree_accept)."""
    if finding.rule.id == "package-content-changed":
        return finding.blocking
    return detector_blocks(finding)


def entry_block(findings: Sequence[Finding]) -> str:
    """The `ignore:` entries that acknowledge `findings` (scanner.reporters.acknowledgement), shown through `safe`:
    the first ENTRIES_PRINTED in full, the rest counted."""
    lines = suggested_entries(findings)
    starts = [index for index, line in enumerate(lines) if line.startswith("  - ")]
    block = ["ignore:", *(lines[: starts[ENTRIES_PRINTED]] if len(starts) > ENTRIES_PRINTED else lines)]
    if len(starts) > ENTRIES_PRINTED:
        block.append(f"# and {len(starts) - ENTRIES_PRINTED} more: one per rule, server and tool listed above")
    return "\n".join(safe(line) for line in block)  # the text report indents a step's lines under it


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_text(findings, context.locator, colour=context.colour)


def summary_line(findings: Sequence[Finding], fails: Callable[[Finding], bool] = lambda f: f.blocking) -> str:
    blocking = [f for f in findings if fails(f)]
    if not findings:
        return "ok: every declared server matches the lock"
    servers = len({f.server for f in blocking})
    suppressed = sum(1 for f in findings if f.suppression is not None)
    accepted = f", {suppressed} suppressed by mcp-lock.yaml" if suppressed else ""
    if not blocking:
        below = sum(1 for f in findings if f.blocking)
        held = f", {below} unpinned change(s) below the --fail-on threshold" if below else ""
        return f"ok: {len(findings)} note(s), nothing blocking{held}{accepted}"
    return f"{len(blocking)} blocking finding(s) in {servers} server(s){accepted}"


def update_command(servers: Sequence[str], tools: Sequence[str] = ()) -> str:
    """The `mcp-lock update` that re-pins `servers` (only `tools`, if named), shell-quoted: server names are
    the repository's, and one that starts with a dash comes after `--`, so it is never read as an option."""
    options = [word for tool in tools for word in ("--tool", tool)]
    if any(server.startswith("-") for server in servers):
        return shlex.join(["mcp-lock", "update", *options, "--", *servers])
    return shlex.join(["mcp-lock", "update", *servers, *options])
