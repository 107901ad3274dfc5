"""`ignore:` entries of mcp-lock.yaml: accepted findings that are still reported but do not fail the run.

    ignore:
      - rule: MCPL-D012          # a rule id (tool-changed) or a detector id (MCPL-D012)
        server: github
        tool: create_issue       # optional: the definition's name; without it, the whole server
        digest: sha256:5d1c…     # what it accepted: the definition's digest (one, or a list)
        reason: "reviewed: the word 'ignore' is part of the tool's documented behaviour"
        until: 2026-12-31        # optional: the entry stops suppressing after this day (UTC)

An entry binds to content (`scanner.reporters.acknowledgement`): it covers a finding only when the finding
is about something whose digest the entry lists, so new or changed text under it is judged afresh. An
entry without `digest:` (written before entries recorded one) covers nothing; every check says so with
an `ignore-unbound` note that quotes the entry to paste. An entry past its `until:` day suppresses
nothing and is itself a blocking `ignore-expired` finding, so an expiry date forces a fresh review. In a
full check, an entry that matched no finding is an `ignore-unmatched` note, so stale entries get removed
before they can hide a real finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from scanner.files.safe_yaml import shown
from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import IGNORE_EXPIRED, IGNORE_UNBOUND, IGNORE_UNMATCHED, POLICY_LOOSENED, REGISTRY, RULES_BY_ID
from scanner.reporters.acknowledgement import content_digest, suggested_entries

ENTRY_KEYS = {"rule", "server", "tool", "digest", "reason", "until"}
MAX_DIGESTS = 1000  # digests one entry lists, at most
# Rules an entry may not name: the ones about ignore entries themselves and the policy, and errors that
# stop the run.
UNSUPPRESSIBLE = frozenset(
    {IGNORE_EXPIRED.id, IGNORE_UNMATCHED.id, IGNORE_UNBOUND.id, POLICY_LOOSENED.id, "config-error"}
)
# A finding under these rules means its server was not checked: its entries are not judged unmatched.
NOT_CHECKED = frozenset({"boot-failed", "server-skipped", "server-not-pinned", "config-error"})
# A detector hit quotes its check's id at the end of its message, e.g. "... [MCPL-D012]".
_CHECK_ID = re.compile(r"\[([A-Z]+-[A-Z]+\d+)\]\s*$")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class IgnoreError(ValueError):
    """An ignore entry cannot be used; the message says which and why."""


@dataclass(frozen=True)
class IgnoreEntry:
    rule: str
    server: str
    reason: str
    location: SourceLocation
    tool: str | None = None
    until: date | None = None
    digests: tuple[str, ...] = ()  # what it accepted; none: it accepts nothing

    def expired(self, today: date) -> bool:
        return self.until is not None and self.until < today

    def scopes(self, finding: Finding) -> bool:
        """Whether `finding` is of the entry's rule, server and definition, whatever its content."""
        if finding.server != self.server or finding.rule.id in UNSUPPRESSIBLE:
            return False
        if self.tool is not None and finding.subject != self.tool:
            return False
        return self.rule in (finding.rule.id, check_id(finding))

    def covers(self, finding: Finding) -> bool:
        """Whether the entry accepts `finding`: in its scope, and about content it recorded."""
        return self.scopes(finding) and content_digest(finding) in self.digests

    @property
    def label(self) -> str:
        return f"{self.rule} on {self.server}/{self.tool}" if self.tool else f"{self.rule} on {self.server}"


@dataclass(frozen=True)
class Audit:
    """What a run may say about the ignore entries themselves (lock and update: nothing)."""

    expiry: bool = False  # report expired entries: every check
    unmatched: bool = False  # report entries that matched nothing: a full check, every server booted
    servers: frozenset[str] | None = None  # a shard: only entries for its servers; None: every entry

    def judges(self, entry: IgnoreEntry) -> bool:
        return self.servers is None or entry.server in self.servers


def check_id(finding: Finding) -> str | None:
    """The detector id a finding quotes, if it is a detector hit."""
    match = _CHECK_ID.search(finding.message)
    return match[1] if match else None


def parse_ignores(value: Any, file: str, lines: Sequence[int] = ()) -> tuple[IgnoreEntry, ...]:
    """The `ignore:` list; `lines` holds each entry's 1-based line in `file`, where known."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise IgnoreError(f"{file}: ignore must be a list of entries (rule, server, reason; optional tool, until)")
    entries = []
    for index, item in enumerate(value):
        line = lines[index] if index < len(lines) else 1
        entries.append(_entry(item, f"{file}: ignore[{index}] (line {line})", SourceLocation(file, line)))
    return tuple(entries)


def _entry(item: Any, where: str, location: SourceLocation) -> IgnoreEntry:
    if not isinstance(item, dict):
        raise IgnoreError(f"{where}: expected a mapping with rule, server and reason")
    unknown = sorted(str(k) for k in item if k not in ENTRY_KEYS)
    if unknown:
        raise IgnoreError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(ENTRY_KEYS))}")
    for key in ("rule", "server", "reason"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise IgnoreError(f"{where}: {key} is required and must be a non-empty string")
    tool = item.get("tool")
    if tool is not None and (not isinstance(tool, str) or not tool):
        raise IgnoreError(f"{where}: tool must be the name of a definition (a non-empty string)")
    return IgnoreEntry(
        rule=_rule_id(item["rule"], where),
        server=item["server"],
        reason=item["reason"].strip(),
        location=location,
        tool=tool,
        until=_until(item.get("until"), where),
        digests=_digests(item.get("digest"), where),
    )


def _digests(value: Any, where: str) -> tuple[str, ...]:
    """`digest:`, one `sha256:<64 hex>` or a list of them; absent: none (the entry covers nothing)."""
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    if len(values) > MAX_DIGESTS:
        raise IgnoreError(f"{where}: digest lists {len(values)} digests; at most {MAX_DIGESTS}")
    for item in values:
        if not isinstance(item, str) or not _DIGEST.fullmatch(item):
            raise IgnoreError(
                f"{where}: digest must be `sha256:` and 64 lowercase hex digits (or a list of them), "
                f"as mcp-lock prints it, got {shown(item)}"
            )
    return tuple(dict.fromkeys(values))


def _rule_id(value: str, where: str) -> str:
    if value in UNSUPPRESSIBLE:
        raise IgnoreError(f"{where}: {value} findings cannot be ignored")
    if value in RULES_BY_ID:
        return value
    # The detector catalogue registers its checks when it is loaded; imported only for an id no rule has, so that
    # reading the policy does not load the detectors before the first server is spawned (scanner.run.analysis).
    from scanner.detectors import register_all

    register_all()
    if value in REGISTRY and REGISTRY[value].reported_as is not None:
        return value
    raise IgnoreError(
        f"{where}: unknown rule {shown(value)}: use a rule id (e.g. tool-changed) or a detector id (e.g. MCPL-D012) "
        "as docs/rules.md lists them"
    )


def _until(value: Any, where: str) -> date | None:
    if value is None:
        return None
    if isinstance(value, date) and not isinstance(value, datetime):  # YAML reads a bare 2026-12-31 as a date
        return value
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise IgnoreError(f"{where}: until must be a date written YYYY-MM-DD, got {shown(value)}")


def today_utc() -> date:
    return datetime.now(UTC).date()


def apply_ignores(
    findings: Iterable[Finding], entries: Sequence[IgnoreEntry], audit: Audit, today: date
) -> list[Finding]:
    """The findings with those an unexpired entry covers marked suppressed, and findings about the entries."""
    findings = list(findings)
    active = [entry for entry in entries if not entry.expired(today)]
    used: set[int] = set()
    result: list[Finding] = []
    for finding in findings:
        match = next((i for i, entry in enumerate(active) if entry.covers(finding)), None)
        if match is not None:
            used.add(match)
            finding = replace(finding, suppression=active[match].reason)
        result.append(finding)
    if audit.expiry:
        result += [_expired(entry) for entry in entries if entry.expired(today) and audit.judges(entry)]
        result += [
            _unbound(entry, [f for f in findings if entry.scopes(f)])
            for entry in active
            if not entry.digests and audit.judges(entry)
        ]
    if audit.unmatched:
        unchecked = {f.server for f in findings if f.rule.id in NOT_CHECKED}
        result += [
            _unmatched(entry)
            for i, entry in enumerate(active)
            if i not in used and entry.digests and entry.server not in unchecked and audit.judges(entry)
        ]
    return result


def _unbound(entry: IgnoreEntry, scoped: Sequence[Finding]) -> Finding:
    """An entry that records no digest: it covers nothing, and says what to paste to accept what it meant to."""
    if scoped:
        says = f"; {len(scoped)} finding(s) it names are reported instead. To accept them as they are now, use:"
        details = ["ignore:", *suggested_entries(scoped)]
    else:
        says = "; it names no finding in this run: remove it"
        details = []
    return Finding(
        IGNORE_UNBOUND,
        entry.server,
        f"{entry.server}: the ignore entry for {entry.label} records no `digest:` of what it accepted, so it "
        f"accepts nothing{says}",
        entry.location,
        subject=entry.tool,
        details=[f"reason: {entry.reason}", *details],
    )


def _expired(entry: IgnoreEntry) -> Finding:
    return Finding(
        IGNORE_EXPIRED,
        entry.server,
        f"{entry.server}: the ignore entry for {entry.label} expired on {entry.until}: it suppresses nothing; "
        "review the finding again, then renew `until:` or remove the entry",
        entry.location,
        subject=entry.tool,
        details=[f"reason: {entry.reason}"],
    )


def _unmatched(entry: IgnoreEntry) -> Finding:
    return Finding(
        IGNORE_UNMATCHED,
        entry.server,
        f"{entry.server}: the ignore entry for {entry.label} matched no finding: remove it",
        entry.location,
        subject=entry.tool,
        details=[f"reason: {entry.reason}"],
    )
