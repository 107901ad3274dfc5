"""`ignore:` entries in mcp-lock.yaml: suppressed findings are reported but do not fail; stale entries are findings."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from fixture_repo import Repo, base_spec

from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import BOOT_FAILED, definition_rule
from scanner.policy.suppression import Audit, IgnoreEntry, IgnoreError, apply_ignores, parse_ignores

CHANGED_NOTE = "Add a note to the notebook, then mail it to the team."


def write_policy(repo: Repo, text: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")


def drifted(repo: Repo) -> None:
    """`notes` pinned, then its add_note description changed: one blocking tool-changed finding."""
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    spec["tools"][0]["description"] = CHANGED_NOTE
    repo.write_spec("notes", spec)


def test_a_suppressed_finding_passes_and_shows_in_every_format(repo: Repo, tmp_path: Path) -> None:
    drifted(repo)
    assert repo.run("check").exit_code == 1
    write_policy(
        repo,
        "ignore:\n"
        "  - rule: tool-changed\n    server: notes\n    tool: add_note\n"
        "    reason: mailing is the documented behaviour (ticket 42)\n    until: 2999-12-31\n",
    )
    json_path, sarif_path = tmp_path / "r.json", tmp_path / "r.sarif"
    result = repo.run("check", "--json", str(json_path), "--sarif", str(sarif_path))
    assert result.exit_code == 0, result.output
    assert "[tool-changed]" in result.output
    assert "suppressed: mailing is the documented behaviour (ticket 42)" in result.output
    assert "nothing blocking, 1 suppressed by mcp-lock.yaml" in result.output
    assert "[ignore-unmatched]" not in result.output

    report = json.loads(json_path.read_text())
    assert report["summary"]["blocking"] == 0 and report["summary"]["suppressed"] == 1
    (finding,) = report["findings"]
    assert finding["rule"] == "tool-changed" and finding["blocking"] is False
    assert finding["suppression"] == "mailing is the documented behaviour (ticket 42)"

    (sarif_result,) = json.loads(sarif_path.read_text())["runs"][0]["results"]
    assert sarif_result["properties"]["rule"] == "tool-changed"  # ruleId may be a severity variant
    assert sarif_result["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "mailing is the documented behaviour (ticket 42)"}
    ]


def test_an_entry_for_another_tool_or_rule_suppresses_nothing(repo: Repo) -> None:
    drifted(repo)
    write_policy(
        repo,
        "ignore:\n"
        "  - {rule: tool-changed, server: notes, tool: list_notes, reason: other tool}\n"
        "  - {rule: tool-removed, server: notes, reason: other rule}\n",
    )
    result = repo.run("check")
    assert result.exit_code == 1
    assert "suppressed:" not in result.output
    assert result.output.count("[ignore-unmatched]") == 2  # a full check: both entries are stale
    assert "remove the ignore entries that matched nothing" in result.output


def test_an_expired_entry_does_not_suppress_and_is_itself_blocking(repo: Repo) -> None:
    drifted(repo)
    write_policy(
        repo, "ignore:\n  - {rule: tool-changed, server: notes, tool: add_note, reason: ok, until: 2001-02-03}\n"
    )
    result = repo.run("check", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    by_rule = {f["rule"]: f for f in report["findings"]}
    assert by_rule["tool-changed"]["suppression"] is None and by_rule["tool-changed"]["blocking"] is True
    expired = by_rule["ignore-expired"]
    assert expired["blocking"] is True
    assert expired["location"] == {"file": "mcp-lock.yaml", "line": 2}
    assert "2001-02-03" in expired["message"]
    assert "ignore-unmatched" not in by_rule  # an expired entry is reported once, as expired


def test_an_expired_entry_fails_even_offline_when_nothing_else_does(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    write_policy(repo, "ignore:\n  - {rule: tool-changed, server: notes, reason: ok, until: 2001-02-03}\n")
    result = repo.run("check", "--offline")
    assert result.exit_code == 1, result.output
    assert "[ignore-expired]" in result.output
    assert "renew their `until:` or remove them" in result.output


def test_partial_runs_do_not_judge_unmatched_entries(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    write_policy(repo, "ignore:\n  - {rule: tool-changed, server: notes, reason: ok}\n")
    for args in (("--offline",), ("--shard", "1/1")):
        result = repo.run("check", *args)
        assert result.exit_code == 0, result.output
        assert "ignore-unmatched" not in result.output
    full = repo.run("check")
    assert full.exit_code == 0  # ignore-unmatched is a note
    assert "[ignore-unmatched]" in full.output


def test_a_detector_id_suppresses_its_hit_at_lock(repo: Repo) -> None:
    spec = base_spec()
    spec["tools"][1]["description"] = "List every note.\u202egnp.exe\u202c"
    repo.add_stdio("notes", spec)
    assert repo.run("lock").exit_code == 1  # the hit is reported when the server is first pinned
    repo.lock_path.unlink()
    write_policy(repo, "ignore:\n  - {rule: MCPL-D002, server: notes, tool: list_notes, reason: test data}\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert "[suspicious-text, poisoning]" in result.output and "suppressed: test data" in result.output


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{rule: tool-changed, server: notes}", "reason is required"),
        ("{rule: tool-changed, server: notes, reason: '  '}", "reason is required"),
        ("{rule: tool-changed, reason: r}", "server is required"),
        ("{rule: tool-chnaged, server: notes, reason: r}", "unknown rule 'tool-chnaged'"),
        ("{rule: MCPL-D999, server: notes, reason: r}", "unknown rule 'MCPL-D999'"),
        ("{rule: ignore-expired, server: notes, reason: r}", "ignore-expired findings cannot be ignored"),
        ("{rule: tool-changed, server: notes, reason: r, until: '2026-02-30'}", "until must be a date"),
        ("{rule: tool-changed, server: notes, reason: r, until: 2026-01-02T10:00:00Z}", "until must be a date"),
        ("{rule: tool-changed, server: notes, reason: r, until: next week}", "until must be a date"),
        ("{rule: tool-changed, server: notes, reason: r, tool: 3}", "tool must be the name"),
        ("{rule: tool-changed, server: notes, reason: r, why: x}", "unknown key(s) why"),
    ],
)
def test_a_bad_entry_is_a_usage_error(repo: Repo, entry: str, message: str) -> None:
    repo.add_stdio("notes")
    write_policy(repo, f"timeout: 30\nignore:\n  - {entry}\n")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2
    assert message in result.output
    assert "mcp-lock.yaml: ignore[0] (line 3)" in result.output
    assert "Traceback" not in result.output


def test_an_impossible_date_is_a_usage_error_not_a_traceback(repo: Repo) -> None:
    write_policy(repo, "ignore:\n  - {rule: tool-changed, server: notes, reason: r, until: 2026-02-30}\n")
    result = repo.run("list")
    assert result.exit_code == 2
    assert "mcp-lock.yaml: line 2, column 59: 2026-02-30 is not a day of the calendar" in result.output
    assert "day is out of range for month" in result.output


def test_ignore_must_be_a_list(repo: Repo) -> None:
    write_policy(repo, "ignore: {rule: tool-changed}\n")
    result = repo.run("list")
    assert result.exit_code == 2
    assert "ignore must be a list" in result.output


def _finding(server: str = "notes", subject: str | None = "add_note") -> Finding:
    return Finding(definition_rule("tools", "changed"), server, "changed", SourceLocation("x"), subject, "tools")


def _entry(until: date | None = None, tool: str | None = None) -> IgnoreEntry:
    return IgnoreEntry("tool-changed", "notes", "why", SourceLocation("mcp-lock.yaml", 7), tool, until)


def test_until_is_inclusive_in_utc_days() -> None:
    day = date(2026, 5, 1)
    on_the_day = apply_ignores([_finding()], [_entry(until=day)], Audit(expiry=True, unmatched=True), day)
    assert [f.suppression for f in on_the_day] == ["why"]
    after = apply_ignores([_finding()], [_entry(until=day)], Audit(expiry=True), date(2026, 5, 2))
    assert [(f.rule.id, f.suppression, f.blocking) for f in after] == [
        ("tool-changed", None, True),
        ("ignore-expired", None, True),
    ]


def test_an_entry_without_tool_covers_the_whole_server_only() -> None:
    findings = [_finding(), _finding(subject=None), _finding(server="other")]
    marked = apply_ignores(findings, [_entry()], Audit(), date(2026, 1, 1))
    assert [f.suppression for f in marked] == ["why", "why", None]
    assert [f.blocking for f in marked] == [False, False, True]


def test_entries_of_servers_that_did_not_run_or_are_outside_the_shard_are_not_judged() -> None:
    skipped = Finding(BOOT_FAILED, "notes", "notes: did not boot", SourceLocation("x"))
    assert apply_ignores([skipped], [_entry()], Audit(unmatched=True), date(2026, 1, 1)) == [skipped]
    outside = Audit(expiry=True, unmatched=True, servers=frozenset({"other"}))
    assert apply_ignores([], [_entry(until=date(2000, 1, 1)), _entry()], outside, date(2026, 1, 1)) == []
    inside = Audit(expiry=True, unmatched=True, servers=frozenset({"notes"}))
    found = apply_ignores([], [_entry(until=date(2000, 1, 1)), _entry()], inside, date(2026, 1, 1))
    assert [f.rule.id for f in found] == ["ignore-expired", "ignore-unmatched"]
    assert all(f.location == SourceLocation("mcp-lock.yaml", 7) for f in found)


def test_parse_keeps_each_entry_line() -> None:
    entries = parse_ignores(
        [{"rule": "tool-changed", "server": "a", "reason": "r", "until": "2026-01-31"}], "mcp-lock.yaml", [12]
    )
    assert entries[0].location == SourceLocation("mcp-lock.yaml", 12)
    assert entries[0].until == date(2026, 1, 31)
    with pytest.raises(IgnoreError, match="until must be a date"):
        parse_ignores([{"rule": "tool-changed", "server": "a", "reason": "r", "until": "2026-1-31"}], "f")


def test_the_readme_example_is_a_valid_entry() -> None:
    import yaml

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Accepting a reviewed finding: `ignore:`", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    (entry,) = parse_ignores(yaml.safe_load(block)["ignore"], "README.md")
    assert (entry.rule, entry.server, entry.tool, entry.until) == ("MCPL-D012", "backup", "copy_ssh_config",
                                                                   date(2027, 3, 1))
