"""The text report: findings by server, suppressed ones marked, and what to do next."""

from __future__ import annotations

from dataclasses import replace

from scanner.lock.canonical import digest
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.reporters.locate import Locator
from scanner.reporters.text_report import next_steps, render_text, summary_line
from scanner.sources.declarations import SourceLocation


def test_drift_ends_with_the_update_command_for_its_servers(findings: list[Finding], locator: Locator) -> None:
    # `gone` is pinned but no longer declared: `update gone` drops it from the lock.
    text = render_text(findings, locator)
    steps = text.split("next steps:\n", 1)[1].splitlines()
    assert steps[0] == (
        "  - review the changes above; if they are expected, run `mcp-lock update gone time weather` "
        "and commit mcp-lock.json"
    )
    assert all(line.startswith("  - ") for line in steps)


def test_a_suppressed_finding_is_marked_and_asks_for_nothing(findings: list[Finding], locator: Locator) -> None:
    changed = next(f for f in findings if f.rule.id == "tool-changed")
    suppressed = replace(changed, suppression="reviewed in #12")
    text = render_text([suppressed], locator)
    assert "           suppressed: reviewed in #12\n" in text
    assert "next steps" not in text
    assert summary_line([suppressed]) == "ok: 1 note(s), nothing blocking, 1 suppressed by mcp-lock.yaml"


def test_each_kind_of_problem_has_its_step() -> None:
    where = SourceLocation(".mcp.json", 3)
    boot = Finding(rule("boot-failed"), "github", "github: did not start", where)
    hit = Finding(rule("suspicious-text"), "notes", "notes: ... [MCPL-D012]", where, "search", "tools")
    expired = Finding(rule("ignore-expired"), "notes", "notes: expired", where)
    steps = next_steps([boot, hit, expired])
    assert steps == [
        "review the changes above; if they are expected, run `mcp-lock update notes` and commit mcp-lock.json",
        "to accept a reviewed false positive instead, write its reason into this entry and add it to "
        "mcp-lock.yaml (it accepts that text as it is now, nothing added later):\n"
        "ignore:\n"
        f"  - rule: {(hit.check or hit.rule).id}\n"  # the detector's id once the catalogue is loaded
        '    server: "notes"\n'
        '    tool: "search"\n'
        f"    digest: {digest({'rule': 'suspicious-text', 'message': hit.message, 'details': []})}\n"
        '    reason: ""                   # required: why it is harmless, who reviewed it, when',
        "fix the launch or environment of each server that did not boot, or `skip:` it in mcp-lock.yaml",
        "review the expired ignore entries again, then renew their `until:` or remove them",
    ]
    assert next_steps([]) == []
