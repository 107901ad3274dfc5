"""`known-advisory` findings: OSV advisories about the npm and PyPI packages each server runs
(scanner.artifacts.inventory lists them: what the lock pins and what a live check ran).

A `MAL-` advisory (OSV's malicious-packages database), or one aliased to a `MAL-` id, is critical, whether or
not its details could be fetched; another takes the severity its database gives (`database_specific.severity`,
as GitHub's advisories carry it), else the rule's default. A lookup that fails, in whole or in part, is a
blocking `advisory-lookup-failed` finding: the run is never told it passed a check it did not make.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scanner.artifacts.inventory import Package, ServerPackage, distinct
from scanner.artifacts.osv import listed, lookup
from scanner.artifacts.osv_api import AdvisoryError, is_malicious
from scanner.lock.canonical import digest
from scanner.model.findings import Finding, LockLocation
from scanner.model.rule_base import Severity
from scanner.model.rules import ADVISORY_LOOKUP_FAILED, KNOWN_ADVISORY

SEVERITY_WORDS: dict[str, Severity] = {
    "CRITICAL": "critical", "HIGH": "high", "MODERATE": "medium", "MEDIUM": "medium", "LOW": "low",
}
SUMMARY_LIMIT = 300
MAX_FIXED = 10  # fixed versions listed, at most
MAX_ALIASES = 10  # aliases listed, at most
LOOKUP_SERVER = "mcp-lock"  # the server a finding about the lookup itself is filed under


def advisory_findings(source: str, packages: Mapping[str, list[ServerPackage]]) -> list[Finding]:
    """Look up every package of every server (`packages`, by server key) in OSV at `source`."""
    wanted = distinct(entry for entries in packages.values() for entry in entries)
    if not wanted:
        return []
    try:
        found = lookup(source, wanted)
    except AdvisoryError as error:
        return [lookup_failed(str(error))]
    findings = [lookup_failed(problem) for problem in found.problems]
    for key, entries in packages.items():
        for entry in entries:
            for advisory in found.advisories.get(entry.package, []):
                findings.append(advisory_finding(key, entry, advisory, found.unfetched.get(str(advisory.get("id")))))
    return findings


def lookup_failed(reason: str) -> Finding:
    return Finding(
        ADVISORY_LOOKUP_FAILED,
        LOOKUP_SERVER,
        f"advisories were not fully checked: {reason}",
        LockLocation(""),
        details=["next step: run the check again; a runner that cannot reach OSV uses an export: --advisories DIR"],
    )


def advisory_finding(key: str, entry: ServerPackage, advisory: dict[str, Any], unfetched: str | None) -> Finding:
    """The finding for one advisory about one of `key`'s packages; `advisory` is OSV's document as answered
    (any shape: a field of the wrong type is left out) or `{"id"}` alone, `unfetched` why that is."""
    package = entry.package
    advisory_id = str(advisory.get("id"))
    summary = _one_line(advisory.get("summary") or advisory.get("details") or "")
    aliases = [a for a in listed(advisory.get("aliases")) if isinstance(a, str)][:MAX_ALIASES]
    malicious = any(is_malicious(name) for name in (advisory_id, *aliases))
    kind = "a malicious-package advisory" if malicious else "an advisory"
    clause = entry.pulled_in_by()
    message = f"{key}: {package}{f' ({clause})' if clause else ''} has {kind}: {advisory_id}"
    details = [f"summary: {summary}"] if summary else []
    if entry.via is not None and entry.via.chain and not entry.direct:
        details.append(f"in the tree: {entry.via.shown(package.spec)}")
    if unfetched:
        details.append(unfetched)
    if aliases:
        details.append(f"aliases: {', '.join(aliases)}")
    fixed = fixed_versions(advisory, package)
    details.append(f"fixed in: {', '.join(fixed)}" if fixed else "fixed in: no fixed version is listed")
    details.append(_next_step(key, entry, advisory_id, fixed, malicious))
    return Finding(
        KNOWN_ADVISORY,
        key,
        message + (f" ({summary})" if summary else ""),
        LockLocation(entry.location),
        subject=advisory_id,
        details=details,
        # What an `ignore:` entry accepts: this advisory on this version (not its summary or fixed list, which
        # the database edits); another version is judged afresh.
        digest=digest({"advisory": advisory_id, "package": [package.ecosystem, package.name, package.version]}),
        severity="critical" if malicious else _severity(advisory),
    )


def _next_step(key: str, entry: ServerPackage, advisory_id: str, fixed: list[str], malicious: bool) -> str:
    package = entry.package
    parent = entry.via.parent() if entry.via is not None and not entry.direct else None
    other = f" (or a version of {parent} that does not pull it in)" if parent else ""
    if malicious:
        return (f"next step: stop running {package.spec} (remove the server or pin a version the advisory does not "
                f"list{other}), and treat the machines that ran it as compromised")
    move = (f"pin a fixed version ({fixed[0]})" if fixed else "pin a version the advisory does not list") + other
    return (f"next step: {move}, then `mcp-lock update {key}`; or accept the risk with an `ignore:` entry "
            f"(rule: known-advisory, server: {key}, tool: {advisory_id}, reason, until)")


def fixed_versions(advisory: dict[str, Any], package: Package) -> list[str]:
    """The `fixed` events of the advisory's ranges for this package, in the order listed, each once."""
    fixed: list[str] = []
    for affected in listed(advisory.get("affected")):
        named = affected.get("package") if isinstance(affected, dict) else None
        if not isinstance(named, dict) or named.get("ecosystem") != package.ecosystem:
            continue
        for version_range in listed(affected.get("ranges")):
            events = listed(version_range.get("events")) if isinstance(version_range, dict) else []
            for event in events:
                value = event.get("fixed") if isinstance(event, dict) else None
                shown = _one_line(value, 40)
                if shown and shown not in fixed:
                    fixed.append(shown)
    return fixed[:MAX_FIXED]


def _severity(advisory: dict[str, Any]) -> Severity | None:
    specific = advisory.get("database_specific")
    word = specific.get("severity") if isinstance(specific, dict) else None
    return SEVERITY_WORDS.get(word.upper()) if isinstance(word, str) else None


def _one_line(text: Any, limit: int = SUMMARY_LIMIT) -> str:
    line = " ".join(str(text).split()) if isinstance(text, str | int | float) else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
