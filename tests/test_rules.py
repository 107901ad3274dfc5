from pathlib import Path

import pytest

from scanner.detectors import register_all
from scanner.model.rules import REGISTRY, RULES, RULES_BY_ID, SEVERITIES, Category, Rule, register_check
from scanner.reporters.rules_doc import render_rules_doc

ROOT = Path(__file__).parent.parent


def test_rule_ids_are_unique_and_well_formed() -> None:
    assert len(RULES_BY_ID) == len(RULES)
    for rule in RULES:
        assert rule.id == rule.id.lower() and " " not in rule.id
        assert rule.severity in SEVERITIES
        assert isinstance(rule.category, Category)
        assert rule.summary and rule.help
        assert rule.reported_as is None


def test_every_detector_is_a_registered_check() -> None:
    register_all()
    checks = {rule.id: rule for rule in REGISTRY.checks()}
    # The catalogue's entries and the two structural checks, each with its own id.
    assert {"MCPL-D001", "MCPL-D010", "MCPL-D015", "MCPL-D020", "MCPL-D021"} <= checks.keys()
    assert checks["MCPL-D020"].category is Category.CAPABILITY
    for rule in checks.values():
        assert rule.reported_as in RULES_BY_ID
        assert rule.severity in SEVERITIES and isinstance(rule.category, Category)
        assert rule.summary and rule.help
        assert rule.help_uri.endswith("#" + rule.id.lower())


def test_an_id_names_one_rule() -> None:
    clash = Rule("MCPL-D020", Category.CAPABILITY, "low", "another", "another", reported_as="suspicious-text")
    with pytest.raises(ValueError, match="MCPL-D020"):
        register_all()
        register_check(clash)
    with pytest.raises(ValueError, match="reported rule"):
        register_check(Rule("MCPL-X999", Category.POISONING, "low", "x", "x", reported_as="no-such-rule"))


def test_docs_are_rendered_from_the_rule_table() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == render_rules_doc(), "run: python -m scanner.reporters.rules_doc > docs/rules.md"
    for rule in RULES:
        assert f"## {rule.id}\n" in doc
    for rule in REGISTRY.checks():
        assert f"### {rule.id}\n" in doc
