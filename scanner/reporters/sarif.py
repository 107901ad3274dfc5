"""Findings as SARIF 2.1.0, shaped for GitHub code scanning (plain dicts, no object model).

Every run lists every rule of `scanner.rules.RULES`, in that fixed order, so `ruleIndex` is
stable across runs. Each result states its `level` explicitly and carries exactly one physical
location (a repo-relative URI and a 1-based line): GitHub rejects a whole file when any result
lacks one. `automationDetails` is written only when a category is asked for, since it would
otherwise override upload-sarif's own `category` input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import scanner
from scanner.findings import Finding
from scanner.model.findings import ordered
from scanner.model.kinds import KIND_BY_KEY
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator
from scanner.rules import RULES, Rule, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/mcp-lock/mcp-lock"

LEVELS: dict[Severity, str] = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "note",
    "info": "note",
}
# GitHub reads this string as a CVSS-like score; it must be above 0.0, so `info` gets 0.1.
SECURITY_SEVERITY: dict[Severity, str] = {
    "critical": "9.5",
    "high": "8.0",
    "medium": "5.5",
    "low": "2.0",
    "info": "0.1",
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
    index = {rule.id: i for i, rule in enumerate(RULES)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcp-lock",
                "version": scanner.__version__,
                "semanticVersion": scanner.__version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in RULES],
            }
        },
        "results": [_result(f, locator, index, root) for f in ordered(findings)],
        "columnKind": "unicodeCodePoints",
    }
    if category:
        # GitHub reads automationDetails.id as "category/run-id"; a trailing slash means "no run id".
        run["automationDetails"] = {"id": category if category.endswith("/") else category + "/"}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": _pascal(rule.id),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.help},
        "help": {
            "text": f"{rule.summary}.\n\n{rule.help}\n\nSee {rule.help_uri}",
            "markdown": f"**{rule.summary}**\n\n{rule.help}\n\n[Rule documentation]({rule.help_uri})",
        },
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {
            "tags": ["security", "mcp", "blocking" if rule.blocking else "non-blocking"],
            "precision": "very-high",
            "security-severity": SECURITY_SEVERITY[rule.severity],
        },
    }


def _result(finding: Finding, locator: Locator, index: dict[str, int], root: str | Path | None) -> dict[str, Any]:
    file, line = locator.resolve(finding.location)
    severity = finding.effective_severity
    logical: dict[str, Any] = {
        "name": finding.subject or finding.server,
        "fullyQualifiedName": finding.qualified_name,
        "kind": _logical_kind(finding),
    }
    message = finding.message.strip() or finding.rule.summary
    result: dict[str, Any] = {
        "ruleId": finding.rule.id,
        "ruleIndex": index[finding.rule.id],
        "level": LEVELS[severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(file, root)},
                    "region": {"startLine": max(1, line)},
                },
                "logicalLocations": [logical],
            }
        ],
        "properties": {
            "severity": severity,
            "rule": finding.rule.id,
            "blocking": finding.blocking,
            "security-severity": SECURITY_SEVERITY[severity],
        },
    }
    if finding.suppression is not None:  # code scanning shows it as dismissed, with the reason
        result["suppressions"] = [{"kind": "inSource", "status": "accepted", "justification": finding.suppression}]
    return result


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
