"""Findings as SARIF 2.1.0, shaped for GitHub code scanning (plain dicts, no object model).

What GitHub reads, and so what this writes:
- `security-severity` only from the rule, never from a result. A finding graded away from its rule's
  default severity is filed under a severity variant of the rule, `<rule-id>/<severity>` (a
  hierarchical ruleId, SARIF §3.27.5), listed with the same help and that severity's score, so each
  finding shows its own grade.
- Alerts are matched across runs by `partialFingerprints.primaryLocationLineHash`; computed by the
  upload from the flagged line's text, two different drifts of one tool would be one alert. Each
  result carries its own, from server, kind, subject, rule and what the finding is about (the live
  definition's digest, else its evidence): stable when lines move, different for a different drift.
- Paths from the repository root (the git top-level above `--repo`), one physical location per result
  (a result without one makes GitHub reject the file), the key's columns on the lockfile line.
- One rule per detector: a detector's hit is filed under its check's id (`MCPL-D020`, or a severity
  variant such as `MCPL-D020/high`), tagged with that check's own category, so a capability note never
  carries the `poisoning` tag of the rule (`suspicious-text`) its finding is reported under elsewhere.
  Each descriptor also says its category in `properties.category`; `result_category` reads it back.
- A grouped finding ("7 tools were removed: …") names every definition it covers as a related location,
  each linked from the message, since code scanning shows related locations only through such links.

Every run lists every rule of `scanner.model.rules.RULES` first, in that fixed order, then every
registered check by id, then rules of other findings and the severity variants in use.
`automationDetails` is written only when a category is asked for, since it would otherwise override
upload-sarif's own `category` input.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import scanner
from scanner.detectors import register_all
from scanner.diff.words import visible
from scanner.model.findings import Finding, ordered, unique
from scanner.model.kinds import KIND_BY_KEY
from scanner.model.rule_base import HELP_BASE, Severity, severity_rank
from scanner.model.rules import REGISTRY, RULES, Rule
from scanner.reporters.headline import headline
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator, Region
from scanner.reporters.order import fair

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = HELP_BASE.split("/blob/", 1)[0]  # the project's repository
FINGERPRINT = "mcpLock/v1"
DETAIL_LINES = 20  # detail lines quoted in a result's message after its headline
MAX_RESULTS = 25_000  # results per run GitHub accepts
MAX_RELATED = 1_000  # locations per result GitHub accepts

LEVELS: dict[Severity, str] = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "note",
    "info": "note",
}
# GitHub's bands: critical >= 9.0, high 7.0-8.9, medium 4.0-6.9, low 0.1-3.9. `info` has no score: a
# score must be above 0.0, and any score would show an informational note as a low security alert.
SECURITY_SEVERITY: dict[Severity, str | None] = {
    "critical": "9.5",
    "high": "8.0",
    "medium": "5.5",
    "low": "2.5",
    "info": None,
}


def render_sarif(
    findings: Sequence[Finding],
    locator: Locator,
    *,
    category: str | None = None,
    root: str | Path | None = None,
    indent: int | None = 2,
) -> str:
    return json.dumps(build_sarif(findings, locator, category=category, root=root), indent=indent) + "\n"


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_sarif(findings, context.locator, category=context.category)


def build_sarif(
    findings: Sequence[Finding],
    locator: Locator,
    *,
    category: str | None = None,
    root: str | Path | None = None,
) -> dict[str, Any]:
    """The SARIF log as plain data. `root` makes absolute file paths under it repo-relative."""
    kept = unique(ordered(findings))
    omitted = len(kept) - MAX_RESULTS
    if omitted > 0:  # GitHub rejects a run of more: keep the most severe, fair across servers
        chosen = {id(f) for f in fair(kept)[:MAX_RESULTS]}
        kept = [f for f in kept if id(f) in chosen]
    rules = rule_descriptors(kept)
    index = {descriptor["id"]: i for i, descriptor in enumerate(rules)}
    results: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for finding in kept:
        result = _result(finding, locator, index, root)
        key = (result["ruleId"], json.dumps(result["locations"][0]["physicalLocation"]), result["message"]["text"])
        if key not in seen:  # the same rule, place and words twice is one result
            seen.add(key)
            results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcp-lock",
                "version": scanner.__version__,
                "semanticVersion": scanner.__version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if omitted > 0:
        note = f"{omitted} more findings are not in this run (GitHub accepts {MAX_RESULTS:,}): see the JSON report"
        notification = {"level": "warning", "message": {"text": note}}
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [notification]}]
    if category:
        # GitHub reads automationDetails.id as "category/run-id"; a trailing slash means "no run id".
        run["automationDetails"] = {"id": category if category.endswith("/") else category + "/"}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def sarif_rule(finding: Finding) -> Rule:
    """The rule a finding's result is filed under in SARIF: its detector's check, else its own rule."""
    return finding.check or finding.rule


def rule_id(finding: Finding) -> str:
    """The ruleId a finding is filed under: its rule's, or the variant for its own severity."""
    rule, severity = sarif_rule(finding), finding.effective_severity
    return rule.id if severity == rule.severity else f"{rule.id}/{severity}"


def rule_descriptors(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """RULES in their fixed order, every check by id, then rules only findings name, then the severity variants."""
    register_all()
    checks = sorted(REGISTRY.checks(), key=lambda rule: rule.id)
    known = {rule.id for rule in (*RULES, *checks)}
    filed = [(f, sarif_rule(f)) for f in findings]
    extra = sorted({r.id: r for _, r in filed if r.id not in known}.values(), key=lambda r: r.id)
    base = [*RULES, *checks, *extra]
    position = {rule.id: i for i, rule in enumerate(base)}
    variants = sorted(
        {(r.id, f.effective_severity): r for f, r in filed if f.effective_severity != r.severity}.items(),
        key=lambda item: (position[item[0][0]], severity_rank(item[0][1])),
    )
    return [_rule(rule, rule.severity, rule.id) for rule in base] + [
        _rule(rule, severity, f"{rule.id}/{severity}") for (_, severity), rule in variants
    ]


def result_category(log: dict[str, Any], result: dict[str, Any], run: int = 0) -> str:
    """The category (`poisoning`, `capability`, `correctness`, `drift`, …) of `result`, read from its rule
    descriptor in `log` as a SARIF consumer reads it."""
    rules = log["runs"][run]["tool"]["driver"]["rules"]
    descriptor = rules[result["ruleIndex"]]
    if descriptor["id"] != result["ruleId"]:
        raise ValueError(f"result's ruleIndex {result['ruleIndex']} is not rule {result['ruleId']}")
    category: str = descriptor["properties"]["category"]
    return category


def _rule(rule: Rule, severity: Severity, descriptor_id: str) -> dict[str, Any]:
    graded = "" if severity == rule.severity else f" ({severity})"
    properties: dict[str, Any] = {
        "tags": ["security", "mcp", rule.category.value, "blocking" if rule.blocking else "non-blocking"],
        "category": rule.category.value,
        "precision": "very-high",
    }
    score = SECURITY_SEVERITY[severity]
    if score is not None:
        properties["security-severity"] = score
    return {
        "id": descriptor_id,
        "name": _pascal(descriptor_id),
        "shortDescription": {"text": rule.summary + graded},
        "fullDescription": {"text": rule.help[:1024]},
        "help": {
            "text": f"{rule.summary}.\n\n{rule.help}\n\nSee {rule.help_uri}",
            "markdown": f"**{rule.summary}**\n\n{rule.help}\n\n[Rule documentation]({rule.help_uri})",
        },
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": properties,
    }


def _result(finding: Finding, locator: Locator, index: dict[str, int], root: str | Path | None) -> dict[str, Any]:
    file, region = locator.region(finding.location)
    severity = finding.effective_severity
    logical: dict[str, Any] = {
        "name": finding.subject or finding.server,
        "fullyQualifiedName": finding.qualified_name,
        "kind": _logical_kind(finding),
    }
    fingerprint = fingerprint_of(finding, file)
    result: dict[str, Any] = {
        "ruleId": rule_id(finding),
        "ruleIndex": index[rule_id(finding)],
        "level": LEVELS[severity],
        "message": {"text": message_text(finding) + _covered_links(finding) + _renamed_link(finding)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(locator.from_root(file), root)},
                    "region": _region(region),
                },
                "logicalLocations": [logical],
            }
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint, "primaryLocationLineHash": fingerprint},
        "properties": {
            "severity": severity,
            "rule": finding.rule.id,
            "category": finding.category.value,
            "blocking": finding.blocking,
        },
    }
    if finding.check is not None:
        result["properties"]["check"] = finding.check.id
    if finding.evidence_kind is not None:
        result["properties"]["evidenceKind"] = finding.evidence_kind
    if finding.covers:
        result["relatedLocations"] = _related(finding, locator, root)
    elif finding.previous_subject is not None:
        result["relatedLocations"] = [_renamed_from(finding, file, region, root, locator)]
    if finding.suppression is not None:
        result["suppressions"] = [  # an `ignore:` entry in mcp-lock.yaml: code scanning shows it as dismissed
            {"kind": "external", "status": "accepted", "justification": finding.suppression}
        ]
    return result


def _related(finding: Finding, locator: Locator, root: str | Path | None) -> list[dict[str, Any]]:
    """A grouped finding's definitions, one related location each (ids from 1, as the message links them)."""
    related = []
    for number, (name, location) in enumerate(finding.covered()[:MAX_RELATED], 1):
        file, region = locator.region(location)
        logical = {"name": name, "fullyQualifiedName": f"{finding.server}/{name}", "kind": _logical_kind(finding)}
        related.append(
            {
                "id": number,
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(locator.from_root(file), root)},
                    "region": _region(region),
                },
                "logicalLocations": [logical],
                "message": {"text": name},
            }
        )
    return related


def _renamed_from(
    finding: Finding, file: str, region: Region, root: str | Path | None, locator: Locator
) -> dict[str, Any]:
    """A renamed definition's old name, as a related location: code scanning shows the new name as the result's."""
    old = finding.previous_subject or ""
    return {
        "id": 1,
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(locator.from_root(file), root)},
            "region": _region(region),
        },
        "logicalLocations": [
            {"name": old, "fullyQualifiedName": f"{finding.server}/{old}", "kind": _logical_kind(finding)}
        ],
        "message": {"text": f"previously named {old}"},
    }


def _renamed_link(finding: Finding) -> str:
    """The message's line linking a renamed definition's old name (its related location)."""
    if finding.covers or finding.previous_subject is None:
        return ""
    return f"\nRenamed from [{_link_text(finding.previous_subject)}](1)"


def _covered_links(finding: Finding) -> str:
    """The message's line linking each related location: code scanning shows them only when linked."""
    if not finding.covers:
        return ""
    names = finding.covers[:MAX_RELATED]
    links = ", ".join(f"[{_link_text(name)}]({number})" for number, name in enumerate(names, 1))
    more = len(finding.covers) - len(names)
    return f"\nEach one: {links}" + (f" and {more} more (see the JSON report)" if more > 0 else "")


def _link_text(text: str) -> str:
    """Link text with the characters SARIF's embedded links give meaning escaped (§3.11.6)."""
    return visible(text).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def message_text(finding: Finding) -> str:
    """The headline (GitHub's alert title), then the finding's message and detail lines."""
    lines = [headline(finding)]
    message = finding.message.strip()
    if message and message != lines[0]:
        lines.append(message)
    shown = finding.details[:DETAIL_LINES]
    lines += shown
    if len(finding.details) > len(shown):
        lines.append(f"… {len(finding.details) - len(shown)} more detail lines")
    return "\n".join(lines)


def fingerprint_of(finding: Finding, file: str) -> str:
    """What the finding is about, hashed: no line number, so it holds when the lock's lines move."""
    about = finding.digest or "\n".join([finding.message, *finding.details])
    parts = [finding.server, finding.kind or "", finding.subject or "", finding.rule.id, file, about]
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _region(region: Region) -> dict[str, int]:
    out = {"startLine": max(1, region.line)}
    if region.start_column is not None and region.end_column is not None:
        out |= {"startColumn": region.start_column, "endLine": out["startLine"], "endColumn": region.end_column}
    return out


def artifact_uri(file: str, root: str | Path | None = None) -> str:
    """A percent-encoded POSIX URI for a display path: repo-relative unless absolute outside `root`."""
    path = file.replace("\\", "/")
    if root is not None:
        base = str(root).replace("\\", "/").rstrip("/") + "/"
        if path.startswith(base):
            path = path[len(base) :]
    if path.startswith("/"):
        # Outside `root`: GitHub makes absolute file URIs relative to the checkout itself.
        return "file://" + quote(path, safe="/-._~")
    parts = [p for p in PurePosixPath(path).parts if p != "."]
    return quote("/".join(parts) or ".", safe="/-._~")


def _pascal(rule_id: str) -> str:
    return "".join(word.capitalize() for word in re.split(r"[^A-Za-z0-9]+", rule_id) if word)


def _logical_kind(finding: Finding) -> str:
    if not finding.subject:
        return "module"
    kind = KIND_BY_KEY.get(finding.kind or "")
    return kind.sarif_kind if kind else "resource"
