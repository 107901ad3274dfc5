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

from scanner.detectors import Hit, run_server_checks, run_workspace_checks, scan_text
from scanner.detectors.texts import changed_definitions, paths_of, property_names, property_names_of
from scanner.lock.canonical import digest
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import escape, pointer
from scanner.model.rules import SUSPICIOUS_TEXT, kind_label

MIN_NAME = 16  # shorter property names (query, recipient_id) hold no sentence
# How a finding on text the lock already pinned says so: it is not drift, and stays until acknowledged.
PINNED_MARK = "on pinned text: "
PINNED_DETAIL = (
    "pinned text: this is in mcp-lock.json already, not a change; it fails every check until fixed "
    "upstream and re-pinned, or acknowledged by an `ignore:` entry with a reason in mcp-lock.yaml"
)


def suspicious_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Detector hits on text in `live` that `pinned` did not already contain (all text when unpinned).

    Each hit carries the digest of what it was found in (the definition, the prompt body, the instructions):
    an `ignore:` entry accepts that content only, so a rewrite of it is judged afresh."""
    findings = about_definitions(run_server_checks(key, pinned, live), {key: live})
    if live.instructions and (pinned is None or pinned.instructions != live.instructions):
        location = LockLocation(pointer("servers", key))
        findings += _scan(key, live.instructions, "instructions", None, None, location, digest(live.instructions))
    for kind, name, definition, texts, known in changed_definitions(live, pinned):
        paths: list[str] | None = None
        about = live.pins(kind)[name].digest
        for index, text in enumerate(texts):
            if text in known or not _hits(text):
                continue
            paths = paths or paths_of(definition)
            location = LockLocation(pointer("servers", key, kind, name))
            findings += _scan(key, text, f"{kind_label(kind)} `{name}` {paths[index]}", name, kind, location, about)
        old = pinned.pins(kind).get(name) if pinned is not None else None
        findings += _scan_property_names(key, kind, name, definition, old.definition if old else None, about)
    return findings + _scan_prompt_bodies(key, pinned, live)


def about_definitions(findings: list[Finding], servers: Mapping[str, ServerPin]) -> list[Finding]:
    """`findings`, each about a definition of `servers` carrying that definition's digest where it has none."""
    for finding in findings:
        pin = servers.get(finding.server)
        if finding.digest is None and pin is not None and finding.kind and finding.subject is not None:
            definition = pin.pins(finding.kind).get(finding.subject) if finding.kind in KIND_KEYS else None
            finding.digest = definition.digest if definition is not None else None
    return findings


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
                where = f"prompt `{name}` prompts/get {path}"
                findings += _scan(key, text, where, name, "prompts", location, body.digest)
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


def _scan_property_names(
    key: str, kind: str, name: str, definition: object, old: object, about: str
) -> list[Finding]:
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
        where = f"{kind_label(kind)} `{name}` {path} (property name)"
        findings += _scan(key, prop, where, name, kind, location, about)
    return findings


def _scan(
    key: str, text: str, where: str, subject: str | None, kind: str | None, location: LockLocation, about: str
) -> list[Finding]:
    return [
        Finding(
            SUSPICIOUS_TEXT,
            key,
            f"{key}: {where}: {hit.summary} [{hit.rule_id}]",
            location,
            subject=subject,
            kind=kind,
            details=[f"evidence: {hit.evidence}"],
            severity=hit.severity,
            digest=about,
        )
        for hit in _hits(text)
    ]


@functools.lru_cache(maxsize=65536)
def _hits(text: str) -> tuple[Hit, ...]:
    """`scan_text`, once per distinct text: schemas repeat the same descriptions, types and enum values."""
    return tuple(scan_text(text))


def cross_server_findings(live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]) -> list[Finding]:
    """Every workspace check (tool shadowing) over new text; `baseline[key]` is what was pinned (None: all new)."""
    return about_definitions(run_workspace_checks(live, baseline), live)


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
    """`finding`, saying it is about text the lock already pins."""
    prefix = f"{finding.server}: "
    message = finding.message
    message = prefix + PINNED_MARK + message[len(prefix):] if message.startswith(prefix) else PINNED_MARK + message
    return dataclasses.replace(finding, message=message, details=[*finding.details, PINNED_DETAIL])


def is_on_pinned_text(finding: Finding) -> bool:
    return PINNED_DETAIL in finding.details


def _identity(finding: Finding) -> tuple[object, ...]:
    return (finding.rule.id, finding.server, finding.subject, finding.kind, finding.message, tuple(finding.details))
