"""Every rule mcp-lock knows, registered once: id, category, default severity, summary, help and docs anchor.

Two kinds of rule share one registry. A *reported* rule is what a finding is filed under (SARIF `ruleId`,
`[rule]` in text output); their texts are data, scanner/model/rules.yaml, loaded here once and in its order
(`RULES`), with a constant below for each one code names. A *check* is one detector: a catalogue entry
(scanner/detectors/catalogue.yaml) or a structural check module in scanner/detectors/. Its findings are filed
under the reported rule it names (`reported_as`) and quote the check's own id, so a check is added without
changing what reporters list.

Every command loads the table before its first server starts, so it is read through its compiled JSON
(scanner.files.packaged_data; `python -m scanner.model.rules` rewrites it), and the same checks build the rules
from either.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scanner.files import packaged_data
from scanner.model.kinds import KIND_BY_KEY, KINDS
from scanner.model.rule_base import SEVERITIES, Category, Rule

RULES_VERSION = 1
CHANGES = ("added", "removed", "changed")  # what a per-kind rule is about, for `definition_rule`
_FIELDS = {"id", "category", "severity", "summary", "help", "blocking"}
_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")  # lower-case, since it is the docs heading's anchor too
SOURCE = Path(__file__).with_name("rules.yaml")


class RulesDataError(ValueError):
    """rules.yaml (or text given in its place) is not a valid rule table."""


def _yaml_value(text: str) -> Any:
    """`text` parsed as YAML by the safe loader (libyaml's parser when PyYAML has it), a key given twice refused."""
    import yaml

    class StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[object] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str) or key in seen:
                    raise RulesDataError(f"line {key_node.start_mark.line + 1}: key {key!r} is not a new string")
                seen.add(key)
            return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError as error:
        raise RulesDataError(f"rule table does not parse: {error}") from None


def table_value(text: str) -> Any:
    """The value of rule table `text`, refused unless its rules build: what its compiled file records."""
    value = _yaml_value(text)
    build_rules(value)
    return value


def parse_rules(text: str) -> tuple[tuple[Rule, ...], dict[tuple[str, str], Rule]]:
    """The reported rules of `text` (rules.yaml's format) in order, and the per-kind ones by (kind key, change)."""
    return build_rules(_yaml_value(text))


def build_rules(data: Any) -> tuple[tuple[Rule, ...], dict[tuple[str, str], Rule]]:
    """The rules of a parsed rule table, checked as `parse_rules` checks them."""
    if not isinstance(data, dict) or data.keys() != {"rules_version", "rules"} or not isinstance(data["rules"], list):
        raise RulesDataError("the rule table has exactly two keys, rules_version and a list of rules")
    if data["rules_version"] != RULES_VERSION:
        raise RulesDataError(f"rules_version {data['rules_version']!r}, expected {RULES_VERSION}")
    rules: list[Rule] = []
    per_kind: dict[tuple[str, str], Rule] = {}
    for entry in data["rules"]:
        if not (isinstance(entry, dict) and entry.keys() == {"per-kind"}):
            rules.append(_rule(entry, None))
            continue
        templates = entry["per-kind"]
        changes = [t.get("change") if isinstance(t, dict) else None for t in templates or ()]
        if per_kind or sorted(changes, key=str) != sorted(CHANGES):
            raise RulesDataError(f"one per-kind entry, with one template for each change of {CHANGES}")
        for kind in KINDS:
            for template in templates:
                names = {"word": kind.word, "noun": kind.noun}
                rule = _rule({k: v for k, v in template.items() if k != "change"}, names)
                per_kind[kind.key, template["change"]] = rule
                rules.append(rule)
    ids = [rule.id for rule in rules]
    if twice := sorted({rule_id for rule_id in ids if ids.count(rule_id) > 1}):
        raise RulesDataError(f"rule ids given twice: {', '.join(twice)}")
    if not per_kind:
        raise RulesDataError("no per-kind entry: every kind of definition needs its added/removed/changed rules")
    return tuple(rules), per_kind


def _rule(raw: object, names: dict[str, str] | None) -> Rule:
    """One rule entry; `names` fills a per-kind template's {word} and {noun}, and is None for a plain rule."""
    if not isinstance(raw, dict):
        raise RulesDataError(f"a rule is a mapping, not {type(raw).__name__}")
    where = f"rule {raw.get('id')!r}"
    if unknown := sorted(raw.keys() - _FIELDS):
        raise RulesDataError(f"{where}: unknown key(s) {', '.join(unknown)}")
    if missing := sorted(_FIELDS - {"blocking"} - raw.keys()):
        raise RulesDataError(f"{where}: missing {', '.join(missing)}")
    texts = {field: raw[field] for field in ("id", "summary", "help")}
    if not all(isinstance(text, str) and text.strip() for text in texts.values()):
        raise RulesDataError(f"{where}: id, summary and help are non-empty strings")
    if names is not None:
        texts = {field: _fill(text, names, where) for field, text in texts.items()}
    if not _ID.fullmatch(texts["id"]):
        raise RulesDataError(f"{where}: an id is lower-case words joined by '-'")
    if raw["category"] not in tuple(Category):
        raise RulesDataError(f"{where}: unknown category {raw['category']!r}")
    if raw["severity"] not in SEVERITIES:
        raise RulesDataError(f"{where}: unknown severity {raw['severity']!r}")
    if not isinstance(blocking := raw.get("blocking", True), bool):
        raise RulesDataError(f"{where}: blocking is true or false")
    return Rule(texts["id"], Category(raw["category"]), raw["severity"], texts["summary"], texts["help"], blocking)


def _fill(template: str, names: dict[str, str], where: str) -> str:
    """`template` with its placeholders filled; only the bare names in `names`, no attributes or formats."""
    for _, field, spec, conversion in string.Formatter().parse(template):
        if field is not None and (field not in names or spec or conversion):
            raise RulesDataError(f"{where}: unknown placeholder {{{field}}}; only {{word}} and {{noun}}")
    return template.format_map(names)


class Registry:
    """Rules by id in registration order; an id names one rule."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule: Rule) -> Rule:
        """Add `rule`; registering the same rule again is a no-op (a reloaded catalogue), a different one fails."""
        if rule.severity not in SEVERITIES:
            raise ValueError(f"rule {rule.id}: unknown severity {rule.severity!r}")
        if rule.reported_as is not None and self._rules.get(rule.reported_as, rule).reported_as is not None:
            raise ValueError(f"rule {rule.id}: reported as {rule.reported_as!r}, which is not a reported rule")
        known = self._rules.setdefault(rule.id, rule)
        if known != rule:
            raise ValueError(f"two different rules with id {rule.id}")
        return rule

    def __getitem__(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(tuple(self._rules.values()))

    def checks(self) -> tuple[Rule, ...]:
        """The registered checks, in registration order."""
        return tuple(rule for rule in self if rule.reported_as is not None)


REGISTRY = Registry()


def register_check(rule: Rule) -> Rule:
    """Register a detector's rule once, beside its code; its `reported_as` must name a reported rule."""
    if rule.reported_as is None:
        raise ValueError(f"check {rule.id}: says no reported rule to file its findings under")
    return REGISTRY.register(rule)


_LOADED = build_rules(packaged_data.value(SOURCE, _yaml_value))  # built once, from either
# The reported rules, in the fixed order reporters list them (SARIF `ruleIndex` is a position in it).
RULES: tuple[Rule, ...] = tuple(REGISTRY.register(rule) for rule in _LOADED[0])
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
# By (kind lock key, "added" | "removed" | "changed").
DEFINITION_RULES: dict[tuple[str, str], Rule] = _LOADED[1]


def rule(rule_id: str) -> Rule:
    """The reported rule with this id, for ids that come from data; code names the constant instead."""
    return RULES_BY_ID[rule_id]


def definition_rule(kind: str, change: str) -> Rule:
    """The rule for a definition of `kind` (a lock key such as "tools") being added/removed/changed."""
    return DEFINITION_RULES[kind, change]


def kind_label(kind: str) -> str:
    return KIND_BY_KEY[kind].noun


# The rules code files findings under by name; a missing id fails the import, not a later run.
BOOT_FAILED = rule("boot-failed")
CONFIG_ERROR = rule("config-error")
SERVER_NOT_PINNED = rule("server-not-pinned")
SERVER_NOT_DECLARED = rule("server-not-declared")
LAUNCH_CHANGED = rule("launch-changed")
ARTIFACT_CHANGED = rule("artifact-changed")
ARTIFACT_BUMPED = rule("artifact-bumped")
LOCAL_CODE_CHANGED = rule("local-code-changed")
ARTIFACT_UNRECORDED = rule("artifact-unrecorded")
TREE_CHANGED = rule("tree-changed")
PACKAGE_CONTENT_CHANGED = rule("package-content-changed")
TREE_UNRECORDED = rule("tree-unrecorded")
CODE_UNPINNED = rule("code-unpinned")
INSTALL_SCRIPT_FAILED = rule("install-script-failed")
KNOWN_ADVISORY = rule("known-advisory")
ADVISORY_LOOKUP_FAILED = rule("advisory-lookup-failed")
RELEASE_TOO_YOUNG = rule("release-too-young")
INSTALL_SCRIPT_ADDED = rule("install-script-added")
MCP_NAME_MISMATCH = rule("mcp-name-mismatch")
PACKAGE_METADATA_FAILED = rule("package-metadata-failed")
LICENSE_CHANGED = rule("license-changed")
PROVENANCE_LOST = rule("provenance-lost")
PROVENANCE_SOURCE_CHANGED = rule("provenance-source-changed")
PROVENANCE_INVALID = rule("provenance-invalid")
PROVENANCE_TRUST_ROOT_UNUSABLE = rule("provenance-trust-root-unusable")
INSTRUCTIONS_CHANGED = rule("instructions-changed")
DEFINITION_INVALID = rule("definition-invalid")
SCHEMA_INVALID = rule("schema-invalid")
SUSPICIOUS_TEXT = rule("suspicious-text")
SERVER_INFO_CHANGED = rule("server-info-changed")
SERVER_NOTE = rule("server-note")
SERVER_SKIPPED = rule("server-skipped")
SECRETS_WITHHELD = rule("secrets-withheld")
LOCK_WEAKENED = rule("lock-weakened")
CLOSURE_CHANGED = rule("closure-changed")
CHANGED_SINCE_BASE = rule("changed-since-base")
DEPENDENCY_CHANGED = rule("dependency-changed")
CODE_CHANGED = rule("code-changed")
REPIN_ACCEPTED = rule("repin-accepted")
NEWLY_PINNED = rule("newly-pinned")
BASE_LOCK_INVALID = rule("base-lock-invalid")
POLICY_LOOSENED = rule("policy-loosened")
POLICY_CHANGED = rule("policy-changed")
VERSION_BUMP_TOO_SMALL = rule("version-bump-too-small")
VERSION_MISMATCH = rule("version-mismatch")
VERSION_NOT_SEMVER = rule("version-not-semver")
UNPINNED_LAUNCH = rule("unpinned-launch")
SANDBOX_BIND_REFUSED = rule("sandbox-bind-refused")
SANDBOX_LIMIT_HIT = rule("sandbox-limit-hit")
CONFIG_WARNING = rule("config-warning")
IGNORE_EXPIRED = rule("ignore-expired")
IGNORE_UNMATCHED = rule("ignore-unmatched")
IGNORE_UNBOUND = rule("ignore-unbound")
LOCK_DIFF_HIDDEN = rule("lock-diff-hidden")
SERVER_NOT_ALLOWED = rule("server-not-allowed")
SANDBOX_KEPT = rule("sandbox-kept")


if __name__ == "__main__":  # python -m scanner.model.rules: rewrite rules.compiled.json from rules.yaml
    print(f"wrote {packaged_data.rewrite(SOURCE, table_value)}")
