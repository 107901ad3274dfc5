"""Findings as a versioned JSON document, for scripts and other tools.

Schema (version 1). Fields are only ever added within a version; a rename or removal bumps it.

    {
      "version": 1,
      "tool": {"name": "mcp-lock", "version": "<scanner.__version__>"},
      "summary": {
        "total": <int>,                       # number of findings
        "blocking": <int>,                    # findings that fail `check`
        "suppressed": <int>,                  # findings an `ignore:` entry of mcp-lock.yaml covers
        "bySeverity": {"critical": <int>, "high": <int>, "medium": <int>, "low": <int>, "info": <int>}
      },
      "findings": [
        {
          "rule": "<rule id, e.g. tool-changed>",
          "check": "<detector id, e.g. MCPL-D020>",  # only for a detector's hit: the check that found it
          "evidenceKind": "payload" | "wording",    # only for a detector's hit: a payload quoted, or wording only
          "advisory": "<why it does not block>",    # only for wording alone on text no change under review brought
          "category": "poisoning" | "capability" | "correctness" | "drift" | "config" | "availability"
                      | "review" | "release",   # the check's category for a detector's hit, else the rule's
          "severity": "critical" | "high" | "medium" | "low" | "info",   # effective severity
          "blocking": <bool>,                        # false for a suppressed finding
          "suppression": "<the ignore entry's reason>" | null,
          "server": "<server key>",
          "subject": "<definition name>" | null,    # null for server-level findings
          "previousSubject": "<pinned name>",       # only for a rename: the name it was pinned under
          "kind": "tools" | "prompts" | "resources" | "resourceTemplates" | null,
          "qualifiedName": "<server>/<subject>" | "<server>",
          "message": "<one line>",
          "details": ["<further line>", ...],
          "location": {"file": "<repo-relative path>", "line": <int >= 1>, "pointer": "<JSON pointer>"},
          "covers": [                                # only for a grouped finding ("7 tools were removed: …"):
            {"subject": "<definition name>", "qualifiedName": "<server>/<name>", "location": {…}}, ...
          ],                                         # every definition it covers, each with its location
          "suppression": "<the ignore: entry's reason>" | null    # set when mcp-lock.yaml accepts it
        }
      ]
    }

`location.pointer` is present only for findings anchored in the lockfile (RFC 6901 pointer into
mcp-lock.json); findings in a config file carry only file and line. `bySeverity` always lists
all five severities, most severe first. Findings are in the report order (`model.findings.ordered`:
server, then severity, most severe first, rule id, subject, kind and message), so the same findings always
give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import scanner
from scanner.model.findings import Finding, Location, LockLocation, ordered
from scanner.model.rules import SEVERITIES
from scanner.reporters.interface import ReportContext
from scanner.reporters.locate import Locator

SCHEMA_VERSION = 1


def build_report(findings: Sequence[Finding], locator: Locator) -> dict[str, Any]:
    """The report as plain data (see the module docstring for the schema)."""
    by_severity = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        by_severity[finding.effective_severity] += 1
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "mcp-lock", "version": scanner.__version__},
        "summary": {
            "total": len(findings),
            "blocking": sum(1 for f in findings if f.blocking),
            "suppressed": sum(1 for f in findings if f.suppression is not None),
            "bySeverity": by_severity,
        },
        "findings": [_finding(f, locator) for f in ordered(findings)],
    }


def render_json(findings: Sequence[Finding], locator: Locator, *, indent: int | None = 2) -> str:
    return json.dumps(build_report(findings, locator), indent=indent, ensure_ascii=False) + "\n"


def render(findings: Sequence[Finding], context: ReportContext) -> str:
    return render_json(findings, context.locator)


def _finding(finding: Finding, locator: Locator) -> dict[str, Any]:
    location = _location(finding.location, locator)
    shown: dict[str, Any] = {
        "rule": finding.rule.id,
        "category": finding.category.value,
        "severity": finding.effective_severity,
        "blocking": finding.blocking,
        "suppression": finding.suppression,
        "server": finding.server,
        "subject": finding.subject,
        "kind": finding.kind,
        "qualifiedName": finding.qualified_name,
        "message": finding.message,
        "details": list(finding.details),
        "location": location,
    }
    if finding.previous_subject is not None:
        shown["previousSubject"] = finding.previous_subject
    if finding.check is not None:
        shown["check"] = finding.check.id
    if finding.evidence_kind is not None:
        shown["evidenceKind"] = finding.evidence_kind
    if finding.advisory is not None:
        shown["advisory"] = finding.advisory
    if finding.covers:
        shown["covers"] = [
            {"subject": name, "qualifiedName": f"{finding.server}/{name}", "location": _location(where, locator)}
            for name, where in finding.covered()
        ]
    return shown


def _location(where: Location, locator: Locator) -> dict[str, Any]:
    file, line = locator.resolve(where)
    location: dict[str, Any] = {"file": file, "line": max(1, line)}
    if isinstance(where, LockLocation):
        location["pointer"] = where.pointer
    return location
