"""Findings as a Markdown summary for a reviewer (a PR comment or $GITHUB_STEP_SUMMARY).

Layout: the verdict; counts by severity; what to do next (re-pin or suppress); then one section per
server, the server with the most severe finding first, each finding once, most severe first, with
the re-pin command for that server and its changes in coloured ```diff blocks.

Bounded: the whole document stays within `limit` UTF-8 bytes (60,000 by default, under a PR comment's
65,536 characters; GitHub drops a step summary past 1 MiB). Findings are taken in severity order
across servers, the first of each server before the second of any, so a server flooding the report
with noise cannot push another server's critical finding out; each server shows at most
`SERVER_ROWS`. Rows come before diff blocks. The document always ends by saying how many findings
were left out and where they are. Server text appears only in code (see `markdown_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scanner.model.findings import Finding, unique
from scanner.model.rules import SEVERITIES, Category
from scanner.reporters.acknowledgement import suggested_entries
from scanner.reporters.console import safe_line
from scanner.reporters.headline import change_summary, subject_label
from scanner.reporters.interface import SUMMARY_LIMIT, ReportContext
from scanner.reporters.locate import Locator
from scanner.reporters.markdown_text import code_span, diff_lines, escape_html, fence_for, html_code
from scanner.reporters.order import by_server, fair
from scanner.reporters.text_report import refuses_update, summary_line, update_command

SEVERITY_ICONS = {"critical": "🟥", "high": "🟧", "medium": "🟨", "low": "🟦", "info": "⬜"}
DEFAULT_LIMIT = SUMMARY_LIMIT
MAX_LIMIT = 1_000_000
SERVER_ROWS = 100  # findings listed per server at most, per DEFAULT_LIMIT bytes of summary
DIFF_LINES = 40  # lines of one finding's diff block at most
TOOLS_NAMED = 5  # a re-pin command names up to this many tools, else re-pins the whole server
FOOTER_RESERVE = 400  # bytes kept for the closing line
MORE_RESERVE = 80  # bytes budgeted per server for its "N more finding(s)" line
NUMBER_RESERVE = 8  # bytes budgeted for a row's or block's number beyond its `#N` placeholder
TABLE_HEAD = "| # | Severity | Rule | Subject | Change | Location |\n|---|---|---|---|---|---|\n"
# What an `ignore:` entry may accept instead of a re-pin: a change or a detector's verdict on a definition.
ACKNOWLEDGED = frozenset({Category.DRIFT, Category.POISONING, Category.CAPABILITY, Category.CORRECTNESS})
ENTRIES_SHOWN = 10  # suggested `ignore:` entries in the next step, at most (the rest are counted)


def render_markdown(
    findings: Sequence[Finding], locator: Locator, *, title: str = "mcp-lock", limit: int = DEFAULT_LIMIT
) -> str:
    findings = unique(findings)
    head = _head(findings, title)
    if not findings:
        return head
    per_server = max(SERVER_ROWS, SERVER_ROWS * limit // DEFAULT_LIMIT)
    plan = _plan(findings, locator, limit - _size(head) - FOOTER_RESERVE, per_server)
    body = "".join(_section(server, plan) for server in plan.servers if plan.shown.get(server))
    text = head + body + _footer(len(findings), plan)
    return "".join(safe_line(line) + "\n" for line in text.rstrip("\n").split("\n"))


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_markdown(findings, context.locator, limit=context.summary_limit)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _head(findings: Sequence[Finding], title: str) -> str:
    verdict = ("❌ " if any(f.blocking for f in findings) else "✅ ") + summary_line(findings)
    text = f"## {escape_html(title)}: {verdict}\n"
    if not findings:
        return text
    active = [f for f in findings if f.suppression is None]
    counts = {s: sum(1 for f in active if f.effective_severity == s) for s in SEVERITIES}
    text += "\n| Severity | Findings |\n|---|---:|\n"
    text += "".join(f"| {SEVERITY_ICONS[s]} {s} | {counts[s]} |\n" for s in SEVERITIES)
    suppressed = len(findings) - len(active)
    if suppressed:
        text += f"| suppressed by `ignore:` | {suppressed} |\n"
    servers = len({f.server for f in findings})
    text += f"\n{len(findings)} finding(s) in {servers} server(s).\n"
    if any(f.rule.category == Category.DRIFT and f.blocking for f in active):
        text += (
            "\n**Next step.** Review each change below. If it is expected, re-pin with the `mcp-lock update` "
            "command shown under its server and commit `mcp-lock.json`."
        )
    if any(refuses_update(f) for f in active):
        text += (
            "\n**Detector findings.** A re-pin does not fix them, and `mcp-lock update` refuses to re-pin a server "
            "while a blocking one stands: report the text to the server's maintainers, or, once reviewed, "
            "add its entry (below) to `mcp-lock.yaml`.\n"
        )
    text += _entries([f for f in active if f.blocking and f.category in ACKNOWLEDGED and f.subject is not None])
    return text


def _entries(findings: Sequence[Finding]) -> str:
    """The exact `ignore:` entries that accept `findings` as they are now (their digests), to paste."""
    if not findings:
        return "\n"
    shown = findings[:ENTRIES_SHOWN]
    lines = ["ignore:", *suggested_entries(shown)]
    more = len({(f.server, f.subject) for f in findings}) - len({(f.server, f.subject) for f in shown})
    rest = f"\n{more} more definition(s): see the text report's next steps.\n" if more > 0 else ""
    fence = fence_for(lines)
    return (
        " To accept a finding without re-pinning, write its reason into its entry and add it to `mcp-lock.yaml`; "
        "each accepts the text as it is now, nothing added later:\n\n"
        f"{fence}yaml\n" + "\n".join(lines) + f"\n{fence}\n{rest}"
    )


@dataclass
class _Plan:
    servers: list[str]  # most severe server first
    groups: dict[str, list[Finding]]  # by server, most severe first
    shown: dict[str, list[Finding]] = field(default_factory=dict)
    rows: dict[int, str] = field(default_factory=dict)  # id(finding) -> its table row
    diffs: dict[int, str] = field(default_factory=dict)  # id(finding) -> its diff block
    numbers: dict[int, int] = field(default_factory=dict)


def _plan(findings: Sequence[Finding], locator: Locator, budget: int, per_server: int) -> _Plan:
    """Which findings fit in `budget` bytes: rows first, then diff blocks, in fair severity order."""
    groups = by_server(findings)
    plan = _Plan(list(groups), groups)
    order = fair(findings, per_server)
    for finding in order:
        row = _row(finding, locator)
        cost = _size(row) + NUMBER_RESERVE
        if finding.server not in plan.shown:
            cost += _size(_server_head(finding.server, plan) + _repin_line(finding.server, plan)) + MORE_RESERVE
        if cost > budget:
            break
        budget -= cost
        plan.shown.setdefault(finding.server, []).append(finding)
        plan.rows[id(finding)] = row
    for finding in order:
        if id(finding) not in plan.rows or not finding.details:
            continue
        block = _diff_block(finding)
        if _size(block) + NUMBER_RESERVE > budget:
            break
        budget -= _size(block) + NUMBER_RESERVE
        plan.diffs[id(finding)] = block
    number = 0
    for server in plan.servers:
        rank = {id(f): i for i, f in enumerate(groups[server])}
        plan.shown[server] = sorted(plan.shown.get(server, []), key=lambda f: rank[id(f)])
        for finding in plan.shown[server]:
            number += 1
            plan.numbers[id(finding)] = number
    return plan


def _server_head(server: str, plan: _Plan) -> str:
    """A server's section heading with its counts, and its table's head."""
    group = plan.groups[server]
    counts = ", ".join(
        f"{n} {s}" for s in SEVERITIES if (n := sum(1 for f in group if f.effective_severity == s))
    )
    icon = SEVERITY_ICONS[group[0].effective_severity]
    return f"\n### {icon} {code_span(server, 120)}: {counts}\n\n" + TABLE_HEAD


def _repin_line(server: str, plan: _Plan) -> str:
    command = repin_command(server, plan.groups[server])
    return f"\nAfter review, re-pin: {code_span(command, 2000, in_table=False)}\n" if command else ""


def repin_command(server: str, group: Sequence[Finding]) -> str | None:
    """The `mcp-lock update` that accepts this server's drift, naming its tools when only a few changed."""
    drift = [f for f in group if f.rule.category == Category.DRIFT and f.blocking and f.suppression is None]
    if not drift or any(refuses_update(f) for f in group):  # `update` would refuse: never suggest it
        return None
    if all(f.rule.id == "server-not-pinned" for f in drift):
        return "mcp-lock lock"
    tools = sorted({f.subject for f in drift if f.kind == "tools" and f.subject})
    named = len(tools) <= TOOLS_NAMED and all(f.kind == "tools" and f.subject for f in drift)
    return update_command([server], tools if named else [])


def _row(finding: Finding, locator: Locator) -> str:
    file, line = locator.resolve(finding.location)
    severity = finding.effective_severity
    label = f"{SEVERITY_ICONS[severity]} {severity}" + (" (suppressed)" if finding.suppression is not None else "")
    subject = subject_label(finding).split(" `")[0]
    subject_cell = f"{subject} {code_span(finding.subject, 120)}" if finding.subject else "server"
    filed = finding.check or finding.rule  # a detector's hit: its check, as in SARIF
    rule = f"[`{filed.id}`]({filed.help_uri})"
    where = code_span(f"{file}:{max(1, line)}", 200)
    # `#N` becomes the row's number once the rows are chosen (NUMBER_RESERVE budgets for it).
    return f"| #N | {label} | {rule} | {subject_cell} | {code_span(change_summary(finding))} | {where} |\n"


def _diff_block(finding: Finding) -> str:
    lines = diff_lines(finding.details)
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f" … {len(lines) - DIFF_LINES} more lines in the SARIF/JSON report"]
    fence = fence_for(lines)
    subject = html_code(finding.subject or finding.server)
    return (
        f"\n<details><summary>#N {escape_html(subject_label(finding).split(' `')[0])} {subject}</summary>\n\n"
        f"{fence}diff\n" + "".join(line + "\n" for line in lines) + f"{fence}\n\n</details>\n"
    )


def _section(server: str, plan: _Plan) -> str:
    shown = plan.shown[server]
    rows = "".join(plan.rows[id(f)].replace("#N", f"#{plan.numbers[id(f)]}", 1) for f in shown)
    hidden = len(plan.groups[server]) - len(shown)
    more = f"\n_{hidden} more finding(s) of this server are not shown here._\n" if hidden else ""
    diffs = "".join(
        plan.diffs[id(f)].replace("#N", f"#{plan.numbers[id(f)]}", 1) for f in shown if id(f) in plan.diffs
    )
    return _server_head(server, plan) + rows + more + _repin_line(server, plan) + diffs


def _footer(total: int, plan: _Plan) -> str:
    shown = sum(len(group) for group in plan.shown.values())
    if shown == total:
        return f"\nAll {total} finding(s) are shown; the SARIF and JSON reports hold the same.\n"
    servers = sum(1 for server in plan.servers if not plan.shown.get(server))
    where = f" (including {servers} server(s) not listed)" if servers else ""
    return (
        f"\n**{total - shown} more finding(s) in the SARIF/JSON report**{where}: this summary fits a size "
        "budget (`--summary-limit`) and lists a bounded number per server.\n"
    )
