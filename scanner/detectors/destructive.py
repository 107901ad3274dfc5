"""MCPL-D020: a tool new since the pin that can destroy something, weighed with its own annotations."""

from __future__ import annotations

import re

from scanner.detectors.checks import definition_finding, server_check
from scanner.detectors.lazy_re import lazy
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rule_base import Severity
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D020",
    Category.CAPABILITY,
    "medium",
    "A tool new since the pin can destroy something",
    "A capability note, not a claim of poisoning: its NAME says it deletes, drops, wipes, overwrites or the "
    "like (never a word in its prose). Reported by `check` for tools added since the pin, weighed with the "
    "tool's own annotations: `destructiveHint: true` is low (still worth a look), no hint is medium, and "
    "a tool annotated read-only or non-destructive whose name "
    "says it destroys contradicts itself (high). Measured: fires on 6.7% of 4,965 real tools, each of "
    "them a tool that really deletes or removes (a sample read by hand; bench/detectors/README.md). "
    "Filed as suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)


# A tool whose name says it destroys something. Word-bounded, on the name split at separators and
# camel-case humps, so "undo_delete" and "deleteFile" fire; prose is not read (a description mentioning
# "remove" says nothing about what the tool can do).
DESTRUCTIVE = lazy(
    r"\b(delete|remove|drop|wipe|purge|erase|destroy|truncate|revoke|kill|terminate|overwrite|reset|"
    r"uninstall|deactivate|shutdown|rm)(s|d|ed)?\b",
    re.IGNORECASE,
)


_HUMP = lazy(r"(?<=[a-z0-9])(?=[A-Z])")


@server_check(RULE)
def destructive_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """A tool that is new since the pin and can destroy something, weighed with its own annotations.

    An honest `destructiveHint: true` is still worth a reviewer's look (low); no hint is medium; a tool
    that says it destroys but is annotated read-only or non-destructive contradicts itself (high).
    """
    if pinned is None:
        return []  # `lock` pins what it boots; only a tool added since a pin is news
    findings: list[Finding] = []
    before = pinned.tools
    for name, pin in live.tools.items():
        if name in before:
            continue
        words = _HUMP.sub(" ", name).replace("_", " ").replace("-", " ").replace(".", " ")
        match = DESTRUCTIVE.search(words)
        annotations = pin.definition.get("annotations")
        hints = annotations if isinstance(annotations, dict) else {}
        if match is None:
            continue  # `destructiveHint` defaults to true and many servers set it on every tool: not a key
        verb = match.group(1).lower()
        severity: Severity
        if hints.get("readOnlyHint") is True or hints.get("destructiveHint") is False:
            severity, verdict = "high", "yet annotated read-only or non-destructive"
        elif hints.get("destructiveHint") is True:
            severity, verdict = "low", "and annotated destructiveHint: true"
        else:
            severity, verdict = "medium", "with no destructiveHint annotation"
        message = f"{key}: new tool `{name}` can {verb} things, {verdict} [{RULE.id}]"
        details = [f"evidence: {match.group(0)}", f"annotations: {hints or '(none)'}"]
        findings.append(definition_finding(key, "tools", name, message, details, severity))
    return findings
