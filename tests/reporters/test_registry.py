from __future__ import annotations

import json
import re

from click.testing import CliRunner

from scanner.cli.main import main
from scanner.model.findings import by_severity, ordered
from scanner.reporters.formats import REPORTER_BY_NAME, REPORTERS
from scanner.reporters.interface import ReportContext
from scanner.reporters.json_report import render_json
from scanner.reporters.text_report import render_text


def test_every_reporter_ends_in_one_newline(findings, locator):
    context = ReportContext(locator, category="ci")
    for reporter in REPORTERS:
        for given in (findings, []):
            text = reporter.render(given, context)
            assert text == "" or (text.endswith("\n") and not text.endswith("\n\n")), reporter.name


def test_cli_options_come_from_the_registry():
    result = CliRunner().invoke(main, ["check", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert f"--format [{'|'.join(REPORTER_BY_NAME)}]" in result.output
    options = set(re.findall(r"--[a-z-]+", result.output))
    assert {reporter.also for reporter in REPORTERS if reporter.also} <= options
    assert {"--json", "--sarif", "--summary", "--github-annotations"} <= options


def test_text_and_json_show_findings_in_the_same_order(findings, locator):
    text_rules = re.findall(r"\[([a-z-]+)\]$", render_text(findings, locator), re.M)
    json_rules = [f["rule"] for f in json.loads(render_json(findings, locator))["findings"]]
    assert text_rules == json_rules == [f.rule.id for f in ordered(findings)]
    assert len(json_rules) == 6


def test_most_severe_first_keeps_the_report_order_within_a_severity(findings):
    regrouped = by_severity(list(reversed(findings)))
    assert [f.effective_severity for f in regrouped] == ["critical", "high", "high", "medium", "low", "info"]
    highs = [f for f in regrouped if f.effective_severity == "high"]
    assert highs == [f for f in ordered(findings) if f.effective_severity == "high"]
    assert [f.rule.id for f in highs] == ["tool-added", "tool-changed"]


def test_a_format_s_dependencies_load_only_with_it():
    """Jinja2 (and markupsafe) load only when `--format template` is used: every other run skips their import."""
    import subprocess
    import sys

    probe = (
        "import sys, scanner.cli.commands, scanner.run.operations, scanner.run.offline\n"
        "from scanner.reporters.formats import REPORTER_BY_NAME as by_name\n"
        "[by_name[name].load() for name in by_name if name != 'template']\n"
        "print(sorted(m for m in ('jinja2', 'markupsafe') if m in sys.modules))\n"
        "by_name['template'].load()\n"
        "print(sorted(m for m in ('jinja2', 'markupsafe') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "['jinja2', 'markupsafe']"]
