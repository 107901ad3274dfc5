"""The rule registry lives in `scanner.model.rules`; re-exported for the layers above the model."""

from scanner.model.rules import (
    RULES,
    RULES_BY_ID,
    SEVERITIES,
    Category,
    Rule,
    Severity,
    definition_rule,
    kind_label,
    rule,
    severity_rank,
)

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "SEVERITIES",
    "Category",
    "Rule",
    "Severity",
    "definition_rule",
    "kind_label",
    "rule",
    "severity_rank",
]
