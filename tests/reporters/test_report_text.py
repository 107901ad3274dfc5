"""The text report: findings by server, suppressed ones marked, and what to do next."""

from __future__ import annotations

from dataclasses import replace

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
        "a detector finding on text new since the pin: do not re-pin it; find out who changed the server. "
        "If you reviewed it and it is harmless, acknowledge it with its `ignore:` entry (below)",
        "each reviewed false positive's entry, for mcp-lock.yaml (write the reason; `until:` is optional):\n"
        "      ignore:\n"
        "        - rule: MCPL-D012\n"
        '          server: "notes"\n'
        '          tool: "search"\n'
        '          reason: "reviewed YYYY-MM-DD by NAME: why this text is harmless"',
        "fix the launch or environment of each server that did not boot, or `skip:` it in mcp-lock.yaml",
        "review the expired ignore entries again, then renew their `until:` or remove them",
    ]
    assert next_steps([]) == []


def test_update_is_never_suggested_where_it_would_refuse() -> None:
    where = SourceLocation(".mcp.json", 3)
    drift = Finding(rule("tool-changed"), "mail", "mail: tool `send` changed", where, "send", "tools")
    calm = Finding(rule("tool-changed"), "notes", "notes: tool `add` changed", where, "add", "tools")
    hit = Finding(rule("suspicious-text"), "mail", "mail: tool `send` /description: … [MCPL-D011]", where, "send",
                  "tools", severity="critical")
    steps = next_steps([drift, calm, hit])
    assert steps[0] == "review the changes above; if they are expected, run `mcp-lock update notes` and commit " \
                       "mcp-lock.json"
    assert not any("`mcp-lock update mail`" in step for step in steps)
    assert steps[1].startswith("`mcp-lock update` refuses to re-pin mail while a detector finding")
    assert "        - rule: MCPL-D011\n" in steps[-1] and '          tool: "send"\n' in steps[-1]


def test_a_detector_finding_on_text_nobody_changed_asks_for_upstream_or_the_entry() -> None:
    where = SourceLocation(".mcp.json", 3)
    hit = Finding(rule("suspicious-text"), "notes", "notes: on pinned text: tool `s` /description: … [MCPL-D016]",
                  where, "s", "tools", details=["evidence: …", "pinned text: this is in mcp-lock.json already, not a "
                                                "change; it fails every check until …"])
    steps = next_steps([hit])
    assert steps[0].startswith("a detector finding on text no change of yours brought")
    assert "Report it to the server's maintainers" in steps[0]
    assert not any("mcp-lock update" in step for step in steps)
    assert "        - rule: MCPL-D016\n" in steps[1]


def test_the_printed_entries_quote_names_and_stop_after_a_few() -> None:
    where = SourceLocation(".mcp.json", 3)
    hits = [Finding(rule("suspicious-text"), "odd: name", f"odd: name: tool `t{n}` … [MCPL-D016]", where, f"t{n}",
                    "tools") for n in range(7)]
    (_, entries) = next_steps(hits)
    assert '          server: "odd: name"\n' in entries
    assert entries.count("- rule: MCPL-D016") == 5 and entries.endswith("# and 2 more: one per rule, server and tool "
                                                                       "listed above")
