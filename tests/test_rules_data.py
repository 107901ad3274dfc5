"""scanner/model/rules.yaml: the loader refuses a malformed table, and the packaged one is today's rule table."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from importlib import resources
from pathlib import Path

import pytest
import yaml

from scanner.files import packaged_data
from scanner.model import rules
from scanner.model.rule_base import Category
from scanner.model.rules import DEFINITION_RULES, RULES, RULES_BY_ID, RulesDataError, definition_rule, parse_rules

ROOT = Path(__file__).parent.parent

# The smallest valid table: one plain rule and the per-kind block. Each refusal below changes one thing in it.
VALID = """\
rules_version: 1
rules:
  - id: boot-failed
    category: availability
    severity: high
    summary: A declared server could not be booted
    help: >-
      Fix the cause
      shown.
  - per-kind:
      - change: added
        id: "{word}-added"
        category: drift
        severity: high
        summary: A {noun} was added
        help: Review the {noun}.
      - change: removed
        id: "{word}-removed"
        category: drift
        severity: medium
        summary: A {noun} was removed
        help: Re-pin.
        blocking: false
      - change: changed
        id: "{word}-changed"
        category: drift
        severity: high
        summary: A {noun} changed
        help: Re-pin.
"""


def _load(tmp_path: Path, text: str) -> tuple[tuple[rules.Rule, ...], dict[tuple[str, str], rules.Rule]]:
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    return parse_rules(path.read_text(encoding="utf-8"))


def test_a_valid_table_loads_in_order_with_the_kinds_filled_in(tmp_path: Path) -> None:
    loaded, per_kind = _load(tmp_path, VALID)
    assert [rule.id for rule in loaded] == [
        "boot-failed",
        "tool-added", "tool-removed", "tool-changed",
        "prompt-added", "prompt-removed", "prompt-changed",
        "resource-added", "resource-removed", "resource-changed",
        "resource-template-added", "resource-template-removed", "resource-template-changed",
    ]  # fmt: skip
    assert loaded[0] == rules.Rule(
        "boot-failed", Category.AVAILABILITY, "high", "A declared server could not be booted", "Fix the cause shown."
    )
    removed = per_kind["resourceTemplates", "removed"]
    assert (removed.id, removed.summary, removed.blocking) == (
        "resource-template-removed", "A resource template was removed", False
    )
    assert per_kind["tools", "added"].help == "Review the tool."


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("    severity: high\n    summary: A declared", "    severity: severe\n    summary: A declared",
         "unknown severity 'severe'"),
        ("category: availability", "category: availabilty", "unknown category 'availabilty'"),
        ("    severity: high\n    summary: A declared", "    severity: high\n    sevrity: low\n    summary: A declared",
         "unknown key.*sevrity"),
        ("        help: Re-pin.\n        blocking: false", "        help: Re-pin.\n        blocking: 'false'",
         "blocking is true or false"),
        ("  - id: boot-failed\n    category", "  - id: boot-failed\n    id: config-error\n    category",
         "key 'id' is not a new"),
        ("  - per-kind:", "  - id: tool-added\n    category: drift\n    severity: high\n    summary: s\n    help: h\n"
         "  - per-kind:", "given twice: tool-added"),
        ("    summary: A declared server could not be booted\n", "", "missing summary"),
        ("Review the {noun}.", "Review the {kind.key}.", r"unknown placeholder \{kind.key\}"),
        ("Review the {noun}.", "Review the {label}.", r"unknown placeholder \{label\}"),
        ("change: changed", "change: renamed", "one template for each change"),
        ("id: boot-failed", "id: Boot Failed", "lower-case"),
        ("rules_version: 1", "rules_version: 2", "rules_version 2"),
        ("rules_version: 1", "rules_version: 1\nextra: true", "exactly two keys"),
        ("summary: A {noun} changed", "summary: [A, list]", "non-empty strings"),
    ],
)
def test_the_loader_refuses_a_malformed_table(tmp_path: Path, old: str, new: str, problem: str) -> None:
    assert VALID.count(old) == 1, old
    with pytest.raises(RulesDataError, match=problem):
        _load(tmp_path, VALID.replace(old, new))


def test_the_loader_refuses_two_rules_with_one_id(tmp_path: Path) -> None:
    twice = VALID.replace("rules:\n", "rules:\n  - id: boot-failed\n    category: config\n    severity: low\n"
                                      "    summary: s\n    help: h\n")
    with pytest.raises(RulesDataError, match="given twice: boot-failed"):
        _load(tmp_path, twice)


def test_the_loader_refuses_a_table_without_the_per_kind_rules(tmp_path: Path) -> None:
    with pytest.raises(RulesDataError, match="no per-kind entry"):
        _load(tmp_path, VALID[: VALID.index("  - per-kind:")])
    with pytest.raises(RulesDataError, match="does not parse"):
        _load(tmp_path, VALID + "  - [unclosed\n")


def test_the_packaged_table_lists_the_reported_rules_in_their_fixed_order() -> None:
    # SARIF ruleIndex and docs/rules.md follow this order; it is the order of the table before it became data.
    assert [rule.id for rule in RULES] == [
        "boot-failed", "config-error", "server-not-pinned", "server-not-declared", "launch-changed",
        "artifact-changed", "artifact-bumped", "local-code-changed", "artifact-unrecorded", "tree-changed",
        "package-content-changed", "tree-unrecorded", "code-unpinned", "install-script-failed", "build-refused",
        "dependency-source-refused", "known-advisory", "advisory-lookup-failed", "release-too-young",
        "install-script-added", "mcp-name-mismatch",
        "package-metadata-failed", "license-changed", "provenance-lost", "provenance-source-changed",
        "provenance-invalid", "provenance-trust-root-unusable", "instructions-changed", "definition-invalid",
        "schema-invalid", "suspicious-text",
        "client-dependent-listing",
        "tool-added", "tool-removed", "tool-changed", "prompt-added", "prompt-removed", "prompt-changed",
        "resource-added", "resource-removed", "resource-changed",
        "resource-template-added", "resource-template-removed", "resource-template-changed",
        "server-info-changed", "server-note", "second-listing-failed", "server-skipped", "secrets-withheld",
        "changed-since-base",
        "dependency-changed", "code-changed", "repin-accepted", "newly-pinned", "base-lock-invalid",
        "policy-loosened", "policy-changed", "version-bump-too-small", "version-mismatch", "version-not-semver",
        "unpinned-launch", "sandbox-bind-refused", "sandbox-limit-hit", "config-warning", "ignore-expired",
        "ignore-unmatched", "lock-weakened", "closure-changed", "tree-changed-since-base", "tree-repinned",
        "tree-would-change",
        "fresh-resolve-failed",
        "server-not-allowed", "lock-diff-hidden",
        "ignore-unbound", "sandbox-kept", "listing-varies",
    ]  # fmt: skip


def test_the_packaged_rules_keep_their_fields() -> None:
    assert RULES_BY_ID["boot-failed"] == rules.Rule(
        "boot-failed",
        Category.AVAILABILITY,
        "high",
        "A declared server could not be booted",
        "mcp-lock could not start the server or list its definitions, so nothing about it can be verified. Fix the "
        "cause shown, or skip the server with a reason in mcp-lock.yaml.",
    )
    assert RULES_BY_ID["server-not-pinned"].help == (
        "Run `mcp-lock lock` to pin the new server and commit mcp-lock.json."
    )
    bumped = RULES_BY_ID["artifact-bumped"]
    assert (bumped.category, bumped.severity, bumped.blocking) == (Category.SUPPLY_CHAIN, "info", False)
    expired = RULES_BY_ID["ignore-expired"]
    assert (expired.summary, expired.severity, expired.blocking) == (
        "An ignore entry in mcp-lock.yaml is past its until: date", "medium", True
    )
    assert RULES_BY_ID["policy-loosened"].help.endswith(
        "It cannot be ignored, and `--fail-on` does not let it pass."
    )
    assert RULES_BY_ID["tool-changed"].summary == "A pinned tool's definition changed"
    removed = definition_rule("resourceTemplates", "removed")
    assert (removed.id, removed.category, removed.severity, removed.blocking) == (
        "resource-template-removed", Category.DRIFT, "medium", True
    )
    assert removed.help == (
        "The server stopped offering a pinned resource template. Re-pin with `mcp-lock update` once the removal is "
        "expected. A rename (same schema, near-identical description) is reported as one `resource-template-changed` "
        "finding instead. More than five resource templates removed at once are one finding that lists them."
    )
    assert rules.kind_label("resourceTemplates") == "resource template"
    assert rules.rule("server-note") is rules.SERVER_NOTE


def test_every_rule_in_the_data_is_reachable_by_id() -> None:
    raw = yaml.safe_load(resources.files("scanner.model").joinpath("rules.yaml").read_text(encoding="utf-8"))
    plain = [entry for entry in raw["rules"] if "per-kind" not in entry]
    for entry in plain:
        rule = RULES_BY_ID[entry["id"]]
        assert (rule.category, rule.severity, rule.summary, rule.help, rule.blocking) == (
            entry["category"], entry["severity"], entry["summary"], entry["help"], entry.get("blocking", True)
        )
    assert len(RULES_BY_ID) == len(RULES) == len(plain) + 4 * 3
    assert set(DEFINITION_RULES.values()) == set(RULES) - {RULES_BY_ID[entry["id"]] for entry in plain}


def test_each_named_constant_is_the_rule_of_its_id() -> None:
    constants = {name: value for name, value in vars(rules).items() if isinstance(value, rules.Rule)}
    # issue 29 added four supply-chain screens; issue 27 closure-changed, lock-weakened, server-not-allowed,
    # lock-diff-hidden, ignore-unbound and sandbox-kept; issue 28 five install rules; issue 37 license-changed and
    # the four provenance rules
    assert len(constants) == 56
    for name, value in constants.items():
        assert name == value.id.upper().replace("-", "_")
        assert RULES_BY_ID[value.id] is value


def test_the_rule_table_is_package_data(tmp_path: Path) -> None:
    """The wheel (uv's own build backend, as the action installs it) holds every file of the `scanner` folder."""
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["uv"]["build-backend"]
    assert backend == {"module-name": "scanner", "module-root": ""}
    uv = Path(sys.executable).parent / "uv"
    built = subprocess.run([uv, "build", "--no-config", "--offline", "--wheel", "--out-dir", tmp_path, ROOT],
                           capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("mcp_lock-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "scanner").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert "scanner/model/rules.yaml" in names and sources <= names, sorted(sources - names)[:5]
    assert (ROOT / "scanner" / "model" / "__init__.py").is_file()
    assert (ROOT / "scanner" / "model" / "rules.yaml").is_file()


def test_the_rule_table_is_read_through_its_compiled_file_and_checked_as_the_yaml_is() -> None:
    """A compiled value that records the right digest still goes through every check the YAML's value does."""
    compiled = packaged_data.compiled_text(VALID.encode(), rules.table_value)
    assert rules.build_rules(packaged_data.value_of(VALID.encode(), compiled, rules.table_value)) == parse_rules(VALID)
    broken = compiled.replace('"severity": "high"', '"severity": "severe"', 1)
    with pytest.raises(RulesDataError, match="unknown severity 'severe'"):
        rules.build_rules(packaged_data.value_of(VALID.encode(), broken, rules.table_value))
    with pytest.raises(RulesDataError, match="unknown severity"):
        packaged_data.compiled_text(VALID.replace("severity: high", "severity: severe", 1).encode(), rules.table_value)
    with pytest.raises(RulesDataError, match="key 'id' is not a new"):
        packaged_data.compiled_text(VALID.replace("  - id: boot-failed\n", "  - id: boot-failed\n    id: x\n").encode(),
                                    rules.table_value)
