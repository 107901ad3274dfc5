"""Run the poisoned-text detectors over what a reviewer is about to accept, and over what is pinned.

`check` scans the text that is new or changed against the pin, and rescans every pin (`pinned_findings`):
a poison that was pinned, or that a newer detector recognises, fails every run until an `ignore:` entry
acknowledges it. `lock` and `update` scan the whole of what they pin, so nobody pins a poisoned tool
without being told.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Mapping

from scanner.detectors import Hit, run_server_checks, run_workspace_checks, scan_text, scoring
from scanner.detectors.engine import score_hit
from scanner.detectors.texts import changed_definitions, paths_of, property_names, property_names_of
from scanner.detectors.unicode_checks import Normalised
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import WORDING, Finding, LockLocation, evidence_kind_line
from scanner.model.pointer import escape, pointer
from scanner.model.rule_base import Severity, severity_rank
from scanner.model.rules import SUSPICIOUS_TEXT, kind_label

MIN_NAME = 16  # shorter property names (query, recipient_id) hold no sentence
# How a finding on text the lock already pinned says so: it is not drift, and stays until acknowledged.
PINNED_MARK = "on pinned text: "
PINNED_DETAIL = "pinned text: this is in mcp-lock.json already, not a change"
PINNED_BLOCKS = (
    "; it fails every check until fixed upstream and re-pinned, or acknowledged by an `ignore:` entry with a reason "
    "in mcp-lock.yaml"
)


def suspicious_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Detector hits on text in `live` that `pinned` did not already contain (all text when unpinned)."""
    findings = run_server_checks(key, pinned, live)
    own = frozenset(n.lower() for n in (*live.tools, *(pinned.tools if pinned is not None else ())))
    if live.instructions and (pinned is None or pinned.instructions != live.instructions):
        findings += _scan(key, live.instructions, "instructions", None, None, LockLocation(pointer("servers", key)))
    for kind, name, definition, texts, known in changed_definitions(live, pinned):
        paths: list[str] | None = None
        for index, text in enumerate(texts):
            if text in known or not _hits(text):
                continue
            paths = paths or paths_of(definition)
            location = LockLocation(pointer("servers", key, kind, name))
            findings += _scan(key, text, f"{kind_label(kind)} `{name}` {paths[index]}", name, kind, location, own)
        old = pinned.pins(kind).get(name) if pinned is not None else None
        findings += _scan_property_names(key, kind, name, definition, old.definition if old else None)
    return findings + _scan_prompt_bodies(key, pinned, live)


def _scan_prompt_bodies(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """The text of each `prompts/get` body that is new since the pin: the model reads it like a description."""
    findings: list[Finding] = []
    for name, body in live.prompt_bodies.items():
        old = pinned.prompt_bodies.get(name) if pinned is not None else None
        if old is not None and old.digest == body.digest:
            continue
        known = {text for _, text in _strings(old.definition)} if old is not None else set()
        location = LockLocation(pointer("servers", key, "promptBodies", name))
        for path, text in _strings(body.definition):
            if text not in known and _hits(text):
                findings += _scan(key, text, f"prompt `{name}` prompts/get {path}", name, "prompts", location)
    return findings


def _strings(value: object, path: str = "") -> list[tuple[str, str]]:
    """Every string in `value` with its JSON pointer (keys are not text the model is told)."""
    if isinstance(value, str):
        return [(path or "/", value)]
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in _strings(v, f"{path}/{escape(str(k))}")]
    if isinstance(value, list):
        return [found for i, v in enumerate(value) for found in _strings(v, f"{path}/{i}")]
    return []


def _scan_property_names(key: str, kind: str, name: str, definition: object, old: object) -> list[Finding]:
    """Schema property names are read by the model like any text: scan the new ones (keys are not in `texts_of`)."""
    findings: list[Finding] = []
    known = set(property_names_of(old)) if old is not None else set()
    names = property_names_of(definition)
    new = [i for i, prop in enumerate(names) if prop not in known and len(prop) >= MIN_NAME and _hits(prop)]
    if not new:
        return findings
    paths = [path for path, _ in property_names(definition)]  # pointers only for a hit
    for path, prop in ((paths[i], names[i]) for i in new):
        location = LockLocation(pointer("servers", key, kind, name))
        findings += _scan(key, prop, f"{kind_label(kind)} `{name}` {path} (property name)", name, kind, location)
    return findings


def _scan(
    key: str, text: str, where: str, subject: str | None, kind: str | None, location: LockLocation,
    own: frozenset[str] = frozenset(),
) -> list[Finding]:
    if subject is not None:
        own = own - {subject.lower()}
    return [
        Finding(
            SUSPICIOUS_TEXT,
            key,
            f"{key}: {where}: {hit.summary} [{hit.rule_id}]",
            location,
            subject=subject,
            kind=kind,
            details=[f"evidence: {hit.evidence}", evidence_kind_line(hit.evidence_kind)],
            severity=hit.severity,
            evidence_kind=hit.evidence_kind,
        )
        for hit in _own_hits(text, own, (subject or '').lower())
    ]


def _own_hits(text: str, own: frozenset[str], name: str) -> tuple[Hit, ...]:
    hits = _hits(text)
    if not (own or name) or not any(h.rule_id == scoring.RULE.id for h in hits):
        return hits
    rescored = scoring.flagged(text if text.isascii() else Normalised(text).text, None, own, name)
    kept = tuple(h for h in hits if h.rule_id != scoring.RULE.id)
    if rescored is None:
        return kept
    return (*kept, score_hit(rescored))


@functools.lru_cache(maxsize=65536)
def _hits(text: str) -> tuple[Hit, ...]:
    """`scan_text`, once per distinct text: schemas repeat the same descriptions, types and enum values."""
    return tuple(scan_text(text))


def cross_server_findings(live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]) -> list[Finding]:
    """Every workspace check (tool shadowing) over new text; `baseline[key]` is what was pinned (None: all new)."""
    return run_workspace_checks(live, baseline)


def pinned_findings(
    servers: Mapping[str, ServerPin], scan: Collection[str], before: Mapping[str, ServerPin] | None = None
) -> list[Finding]:
    """Every detector over the whole of each pin in `scan` (keys of `servers`), across all of `servers`.

    A finding on text that `before` already pinned (`before` None: every text) says it is on pinned text;
    one on text new since `before` reads as `suspicious_findings` words it. Nothing is cached in the lock:
    a detector release that recognises a pinned poison fails the next run.
    """
    full = [f for key in sorted(scan) for f in suspicious_findings(key, None, servers[key])]
    full += cross_server_findings(servers, {key: None if key in scan else pin for key, pin in servers.items()})
    if before is None:
        return [on_pinned_text(f) for f in full]
    new = [f for key in sorted(scan) for f in suspicious_findings(key, before.get(key), servers[key])]
    baseline = {key: before.get(key) if key in scan else pin for key, pin in servers.items()}
    new += cross_server_findings(servers, baseline)
    fresh = {_identity(f) for f in new}
    return [on_pinned_text(f) for f in full if _identity(f) not in fresh] + new


def on_pinned_text(finding: Finding) -> Finding:
    """`finding`, saying it is about text the lock already pins (wording only: shown, not blocking)."""
    prefix = f"{finding.server}: "
    message = finding.message
    message = prefix + PINNED_MARK + message[len(prefix):] if message.startswith(prefix) else PINNED_MARK + message
    detail = PINNED_DETAIL + ("" if finding.evidence_kind == WORDING else PINNED_BLOCKS)
    return at_first_pin(dataclasses.replace(finding, message=message, details=[*finding.details, detail]))


# Wording alone, on text no change under review brought, is what honest servers say too (bench/detectors: the
# per-server figures): shown in every report, blocking only when a change brings it.
ADVISORY = (
    "not blocking: wording only, on text no change under review brought (a change that brings "
    "such text blocks)"
)
ADVISORY_SEVERITY: Severity = "medium"


FIRST_PIN_DETAIL = "first pin: the server sent this text when it was first pinned; no change under review brought it"


def first_pinned(finding: Finding) -> Finding:
    """`finding` as `lock` reports it on a server it pins for the first time (see `at_first_pin`)."""
    return at_first_pin(dataclasses.replace(finding, details=[*finding.details, FIRST_PIN_DETAIL]))


def at_first_pin(finding: Finding) -> Finding:
    """`finding` as `lock` grades it on a server it pins for the first time, and `check` on pinned text: a
    payload quoted blocks at its severity; wording only is shown at most medium, without failing the run."""
    if finding.evidence_kind != WORDING or finding.advisory is not None:
        return finding
    severity = min(finding.effective_severity, ADVISORY_SEVERITY, key=lambda s: -severity_rank(s))
    return dataclasses.replace(finding, severity=severity, advisory=ADVISORY, details=[*finding.details, ADVISORY])


def is_on_pinned_text(finding: Finding) -> bool:
    return any(detail.startswith(PINNED_DETAIL) for detail in finding.details)


def is_unchanged_text(finding: Finding) -> bool:
    """Whether a detector finding is on text no change under review brought: pinned already, or first pinned."""
    return is_on_pinned_text(finding) or FIRST_PIN_DETAIL in finding.details


def _identity(finding: Finding) -> tuple[object, ...]:
    return (finding.rule.id, finding.server, finding.subject, finding.kind, finding.message, tuple(finding.details))
