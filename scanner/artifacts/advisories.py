"""`known-advisory` findings: OSV advisories about the npm and PyPI versions a lock pins (or a check ran).

A `MAL-` advisory (OSV's malicious-packages database) is critical; another takes the severity its database
gives (`database_specific.severity`, as GitHub's advisories carry it), else the rule's default. A lookup
that fails is an `advisory-lookup-failed` warning, never a silent pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scanner.artifacts.osv import AdvisoryError, Package, lookup, packages_of
from scanner.lock.canonical import digest
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rule_base import Severity
from scanner.model.rules import ADVISORY_LOOKUP_FAILED, KNOWN_ADVISORY

SEVERITY_WORDS: dict[str, Severity] = {
    "CRITICAL": "critical", "HIGH": "high", "MODERATE": "medium", "MEDIUM": "medium", "LOW": "low",
}
SUMMARY_LIMIT = 300
MAX_FIXED = 10  # fixed versions listed, at most


def advisory_findings(
    source: str, pins: Mapping[str, ServerPin], live: Mapping[str, dict[str, Any]] | None = None
) -> list[Finding]:
    """Look up every pinned (and, from a live check, every ran) npm and PyPI version in OSV at `source`."""
    artifacts = {key: [a for a in (pin.artifact, (live or {}).get(key)) if a] for key, pin in pins.items()}
    packages = packages_of(a for found in artifacts.values() for a in found)
    if not packages:
        return []
    try:
        advisories = lookup(source, packages)
    except AdvisoryError as error:
        message = f"advisories were not checked: {error}"
        return [Finding(ADVISORY_LOOKUP_FAILED, "mcp-lock", message, LockLocation(""))]
    findings: list[Finding] = []
    for key, found in artifacts.items():
        for package in packages_of(found):
            for advisory in advisories.get(package, []):
                findings.append(_finding(key, package, advisory))
    return findings


def _finding(key: str, package: Package, advisory: dict[str, Any]) -> Finding:
    advisory_id = str(advisory.get("id"))
    summary = _one_line(advisory.get("summary") or advisory.get("details") or "")
    aliases = [str(a) for a in advisory.get("aliases") or []]
    malicious = any(name.startswith("MAL-") for name in (advisory_id, *aliases))  # OSV's malicious-packages ids
    kind = "a malicious-package advisory" if malicious else "an advisory"
    message = f"{key}: {package.ecosystem} {package.name}@{package.version} has {kind}: {advisory_id}"
    details = [f"summary: {summary}"] if summary else []
    if aliases:
        details.append(f"aliases: {', '.join(aliases)}")
    fixed = fixed_versions(advisory, package)
    details.append(f"fixed in: {', '.join(fixed)}" if fixed else "fixed in: no fixed version is listed")
    return Finding(
        KNOWN_ADVISORY,
        key,
        message + (f" ({summary})" if summary else ""),
        LockLocation(pointer("servers", key, "launch", "artifact")),
        subject=advisory_id,
        details=details,
        # What an `ignore:` entry accepts: this advisory on this version (not its summary or fixed list, which
        # the database edits); another version is judged afresh.
        digest=digest({"advisory": advisory_id, "package": [package.ecosystem, package.name, package.version]}),
        severity="critical" if malicious else _severity(advisory),
    )


def fixed_versions(advisory: dict[str, Any], package: Package) -> list[str]:
    """The `fixed` events of the advisory's ranges for this package, in the order listed, each once."""
    fixed: list[str] = []
    for affected in advisory.get("affected") or []:
        named = affected.get("package") if isinstance(affected, dict) else None
        if not isinstance(named, dict) or named.get("ecosystem") != package.ecosystem:
            continue
        for version_range in affected.get("ranges") or []:
            for event in version_range.get("events") or [] if isinstance(version_range, dict) else []:
                if isinstance(event, dict) and "fixed" in event and str(event["fixed"]) not in fixed:
                    fixed.append(str(event["fixed"]))
    return fixed[:MAX_FIXED]


def _severity(advisory: dict[str, Any]) -> Severity | None:
    specific = advisory.get("database_specific")
    word = specific.get("severity") if isinstance(specific, dict) else None
    return SEVERITY_WORDS.get(str(word).upper()) if word else None


def _one_line(text: Any) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= SUMMARY_LIMIT else line[: SUMMARY_LIMIT - 1] + "…"

