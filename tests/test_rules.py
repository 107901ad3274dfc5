from pathlib import Path

from scanner.reporters.rules_doc import render_rules_doc
from scanner.rules import RULES, RULES_BY_ID, SEVERITIES

ROOT = Path(__file__).parent.parent


def test_rule_ids_are_unique_and_well_formed() -> None:
    assert len(RULES_BY_ID) == len(RULES)
    for rule in RULES:
        assert rule.id == rule.id.lower() and " " not in rule.id
        assert rule.severity in SEVERITIES
        assert rule.summary and rule.help


def test_docs_are_rendered_from_the_rule_table() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == render_rules_doc(), "run: python -m scanner.reporters.rules_doc > docs/rules.md"
    for rule in RULES:
        assert f"## {rule.id}\n" in doc
