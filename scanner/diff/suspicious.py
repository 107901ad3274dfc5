"""Run the poisoned-text detectors over what a reviewer is about to accept, and over what is pinned.

`check` scans the text that is new or changed against the pin, and rescans every pin (`pinned_findings`):
a poison that was pinned, or that a newer detector recognises, fails every run until an `ignore:` entry
acknowledges it. `lock` and `update` scan the whole of what they pin, so nobody pins a poisoned tool
without being told.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping

from scanner.detectors import Hit, run_server_checks, run_workspace_checks, scoring, well_known_table
from scanner.detectors.engine import score_hit
from scanner.detectors.purpose import documented
from scanner.detectors.texts import (
    changed_definitions,
    parameters_of,
    paths_of,
    pin_texts,
    property_names,
    property_names_of,
)
from scanner.detectors.unicode_checks import Normalised
from scanner.detectors.verdict_cache import Verdicts
from scanner.diff.carried import CARRIED, PIECES, brings_evidence, is_carried, quotes_carried
from scanner.diff.text_hits import MIN_NAME, hits
from scanner.diff.verdicts import learn, screened_baselines, unjudged
from scanner.lock.canonical import digest
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import WORDING, Finding, LockLocation, evidence_kind_line
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import escape, pointer
from scanner.model.rule_base import Severity, severity_rank
from scanner.model.rules import SUSPICIOUS_TEXT, kind_label

# How a finding on text the lock already pinned says so: it is not drift, and stays until acknowledged.
PINNED_MARK = "on pinned text: "
PINNED_DETAIL = "pinned text: this is in mcp-lock.json already, not a change"
PINNED_BLOCKS = (
    "; it fails every check until fixed upstream and re-pinned, or acknowledged by an `ignore:` entry with a reason "
    "in mcp-lock.yaml"
)


def suspicious_findings(
    key: str, pinned: ServerPin | None, live: ServerPin, verdicts: Verdicts | None = None
) -> list[Finding]:
    """Detector hits on text in `live` that `pinned` did not already contain (all text when unpinned).

    `verdicts`: with `pinned` None, the definitions they hold as clean are not scanned again (they gave
    nothing under these very detectors). Each hit carries the digest of what it was found in (the definition, the
    prompt body, the instructions): an `ignore:` entry accepts that content only, so a rewrite is judged afresh."""
    # A server's own tool names re-score its hits: taken from the whole server, before cached verdicts trim it.
    own = frozenset(n.lower() for n in (*live.tools, *(pinned.tools if pinned is not None else ())))
    if pinned is None and verdicts is not None:
        live = unjudged(live, verdicts)
    findings = about_definitions(run_server_checks(key, pinned, live), {key: live})
    if live.instructions and (pinned is None or pinned.instructions != live.instructions):
        location = LockLocation(pointer("servers", key))
        # Instructions name the server's own tools as descriptions do ("call list_tables first"): scored with them.
        findings += _scan(key, live.instructions, "instructions", None, None, location, digest(live.instructions), own,
                          pinned=(pinned.instructions, ()) if pinned is not None and pinned.instructions else None)
    for kind, name, definition, texts, known in changed_definitions(live, pinned):
        paths: list[str] | None = None
        about = live.pins(kind)[name].digest
        old = pinned.pins(kind).get(name) if pinned is not None else None
        for index, text in enumerate(texts):
            if text in known or not hits(text):
                continue
            paths = paths or paths_of(definition)
            location = LockLocation(pointer("servers", key, kind, name))
            findings += _scan(
                key, text, f"{kind_label(kind)} `{name}` {paths[index]}", name, kind, location, about, own,
                parameters_of(definition), _pinned_field(old, paths[index]),
            )
        findings += _scan_property_names(key, kind, name, definition, old.definition if old else None, about)
    return findings + _scan_prompt_bodies(key, pinned, live)


def _pinned_field(old: Pin | None, path: str) -> tuple[str, tuple[str, ...]] | None:
    """The pinned definition's text at `path` and its parameters then, or None when the pin had no such field."""
    if old is None:
        return None
    for at, text in zip(paths_of(old.definition), pin_texts(old), strict=True):
        if at == path:
            return text, parameters_of(old.definition)
    return None


def about_definitions(findings: list[Finding], servers: Mapping[str, ServerPin]) -> list[Finding]:
    """`findings`, each about a definition of `servers` carrying that definition's digest where it has none; one
    about none (a check's finding on the server's instructions, `checks.tool_mention`) carries theirs."""
    for finding in findings:
        pin = servers.get(finding.server)
        if finding.digest is not None or pin is None:
            continue
        if finding.kind and finding.subject is not None:
            definition = pin.pins(finding.kind).get(finding.subject) if finding.kind in KIND_KEYS else None
            finding.digest = definition.digest if definition is not None else None
        elif finding.kind is None and finding.subject is None and pin.instructions:
            finding.digest = digest(pin.instructions)
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
            if text not in known and hits(text):
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
    new = [i for i, prop in enumerate(names) if prop not in known and len(prop) >= MIN_NAME and hits(prop)]
    if not new:
        return findings
    paths = [path for path, _ in property_names(definition)]  # pointers only for a hit
    for path, prop in ((paths[i], names[i]) for i in new):
        location = LockLocation(pointer("servers", key, kind, name))
        where = f"{kind_label(kind)} `{name}` {path} (property name)"
        findings += _scan(key, prop, where, name, kind, location, about)
    return findings


def _scan(
    key: str, text: str, where: str, subject: str | None, kind: str | None, location: LockLocation, about: str,
    own: frozenset[str] = frozenset(), parameters: tuple[str, ...] = (),
    pinned: tuple[str, tuple[str, ...]] | None = None,
) -> list[Finding]:
    """The findings on `text`; `pinned`: the text this field had in the pin and the parameters it had then, whose
    hits mark wording the change did not bring (`carried`)."""
    if subject is not None:
        own = own - {subject.lower()}
    name = (subject or "").lower()
    found = _own_hits(text, own, name, parameters)
    before: tuple[Hit, ...] | None = None
    findings = []
    for hit in found:
        finding = Finding(
            SUSPICIOUS_TEXT,
            key,
            f"{key}: {where}: {hit.summary} [{hit.rule_id}]",
            location,
            subject=subject,
            kind=kind,
            details=[f"evidence: {hit.evidence}", evidence_kind_line(hit.evidence_kind)],
            severity=hit.severity,
            evidence_kind=hit.evidence_kind,
            digest=about,
        )
        # Carrying grades as pinned text: a payload at high or above blocks there too, so it is not looked for.
        if pinned is not None and at_first_pin(finding).advisory is not None:
            before = _own_hits(pinned[0], own, name, pinned[1]) if before is None else before
            finding = as_carried(finding) if is_carried(hit, text, pinned[0], before) else finding
        findings.append(finding)
    return weak_wording(findings)


def _own_hits(text: str, own: frozenset[str], name: str, parameters: tuple[str, ...] = ()) -> tuple[Hit, ...]:
    """`hits(text)` in its definition's context: D016 re-scored with the server's own tool names, and negated
    acts and the tool's own secrets regraded as documentation (`purpose.documented`)."""
    return documented(_renamed_hits(text, own, name, parameters), text, name, parameters, own)


def _renamed_hits(text: str, own: frozenset[str], name: str, parameters: tuple[str, ...] = ()) -> tuple[Hit, ...]:
    found = hits(text)
    if not (own or name or parameters) or not any(h.rule_id == scoring.RULE.id for h in found):
        return found
    fields = frozenset(parameter.lower() for parameter in parameters)
    rescored = scoring.flagged(text if text.isascii() else Normalised(text).text, None, own, name, fields)
    kept = tuple(h for h in found if h.rule_id != scoring.RULE.id)
    if rescored is None:
        return kept
    return (*kept, score_hit(rescored))


def cross_server_findings(
    live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None], verdicts: Verdicts | None = None
) -> list[Finding]:
    """Every workspace check (tool shadowing) over new text; `baseline[key]` is what was pinned (None: all new).

    `verdicts`: each SCREENED check (D021, D022, D025) skips the definitions held clean of its part (as if
    pinned before); the others scan them all."""
    if verdicts is None:
        found = run_workspace_checks(live, baseline)
    else:
        well_known_table.keep_in(verdicts.folder)  # D022's table of widely installed names, kept beside the verdicts
        found = run_workspace_checks(live, baseline, screened_baselines(live, baseline, verdicts))
    return weak_wording(_carried_mentions(about_definitions(found, live), live, baseline))


def _carried_mentions(
    findings: list[Finding], live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]
) -> list[Finding]:
    """`findings`, each one on a changed field of a pinned definition (or on changed instructions) that the pinned
    servers gave already, with its quote standing in the same sentences of the pinned field, graded as pinned text
    is (`carried`)."""
    fields = {id(f): field for f in findings
              if f.evidence_kind is not None and f.advisory is None and (field := _quoted_field(f, live, baseline))}
    if not fields:
        return findings
    # The pinned servers as they were; only the text of those the findings are about is read again (the others'
    # baseline is themselves: nothing new in them), every server's names still known.
    state = {key: baseline.get(key) or pin for key, pin in live.items()}
    about = {f.server for f in findings if id(f) in fields}
    earlier = {_identity(f): f for f in run_workspace_checks(
        state, {key: None if key in about else pin for key, pin in state.items()})}
    out = []
    for finding in findings:
        field = fields.get(id(finding))
        before = earlier.get(_identity(finding)) if field else None
        if field and before is not None and severity_rank(before.effective_severity) <= severity_rank(
                finding.effective_severity):
            evidence = finding.details[0].removeprefix("evidence: ")
            names = _NAMED.findall(finding.message.rsplit(": ", 1)[-1])  # the tools its words are about
            if quotes_carried(evidence.split(PIECES), *field) and not brings_evidence(*field, names):
                finding = as_carried(finding)
        out.append(finding)
    return out


_NAMED = re.compile(r"`([^`]+)`")


def _quoted_field(
    finding: Finding, live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]
) -> tuple[str, str] | None:
    """(the text, the pinned text) of the field a cross-server finding quotes, when both exist; else None."""
    server, pinned = live.get(finding.server), baseline.get(finding.server)
    if server is None or pinned is None or not finding.details or not finding.details[0].startswith("evidence: "):
        return None
    if finding.kind is None:  # on the server's instructions (`checks.tool_mention`)
        on = finding.message.startswith(f"{finding.server}: instructions: ")
        if on and server.instructions and pinned.instructions:
            return server.instructions, pinned.instructions
        return None
    name = finding.subject or ""
    new, old = server.pins(finding.kind).get(name), pinned.pins(finding.kind).get(name)
    if new is None or old is None:
        return None
    for path, text in zip(paths_of(new.definition), pin_texts(new), strict=True):
        if f"`{finding.subject}` {path}: " in finding.message:
            was = _pinned_field(old, path)
            return (text, was[0]) if was is not None else None
    return None


def pinned_findings(
    servers: Mapping[str, ServerPin],
    scan: Collection[str],
    before: Mapping[str, ServerPin] | None = None,
    verdicts: Verdicts | None = None,
) -> list[Finding]:
    """Every detector over the whole of each pin in `scan` (keys of `servers`), across all of `servers`.

    A finding on text that `before` already pinned (`before` None: every text) says it is on pinned text;
    one on text new since `before` reads as `suspicious_findings` words it. Nothing is cached in the lock:
    a detector release that recognises a pinned poison fails the next run.
    """
    full = [f for key in sorted(scan) for f in suspicious_findings(key, None, servers[key], verdicts)]
    baseline = {key: None if key in scan else pin for key, pin in servers.items()}
    full += cross_server_findings(servers, baseline, verdicts)
    if verdicts is not None:
        learn(verdicts, servers, scan)
    if before is None:
        return [on_pinned_text(f) for f in full]
    new = [f for key in sorted(scan) for f in suspicious_findings(key, before.get(key), servers[key])]
    since = {key: before.get(key) if key in scan else pin for key, pin in servers.items()}
    new += cross_server_findings(servers, since)
    fresh = {_identity(f) for f in new}
    return [on_pinned_text(f) for f in full if _identity(f) not in fresh] + new


def on_pinned_text(finding: Finding) -> Finding:
    """`finding`, saying it is about text the lock already pins (wording only: shown, not blocking)."""
    prefix = f"{finding.server}: "
    message = finding.message
    message = prefix + PINNED_MARK + message[len(prefix):] if message.startswith(prefix) else PINNED_MARK + message
    graded = at_first_pin(finding)
    detail = PINNED_DETAIL + (PINNED_BLOCKS if graded.advisory is None else "")
    return dataclasses.replace(graded, message=message, details=[*finding.details, detail, *graded.details[len(
        finding.details):]])


# Wording alone, on text no change under review brought, is what honest servers say too (bench/detectors: the
# per-server figures): shown in every report, blocking only when a change brings it.
ADVISORY = (
    "not blocking: wording only, on text no change under review brought (a change that brings "
    "such text blocks)"
)
def as_carried(finding: Finding) -> Finding:
    """`finding`, whose evidence the change did not bring (`carried`), graded as a finding on pinned text is: a
    payload at high or above blocks, wording only (at most medium) or a payload below high is shown."""
    graded = at_first_pin(finding)
    if graded.advisory is None:
        return finding
    return dataclasses.replace(graded, advisory=CARRIED, details=[*finding.details, CARRIED])


# A payload graded below high (stray zero-width characters, a weak secret-path cue) is shown on text no change
# brought, never blocking: a medium finding never fails a first lock.
ADVISORY_BELOW_HIGH = (
    "not blocking: graded below high, on text no change under review brought (a change that brings such text "
    "blocks)"
)
ADVISORY_SEVERITY: Severity = "medium"
BLOCKS_UNCHANGED_AT: Severity = "high"  # on text no change brought, a payload blocks from here on


FIRST_PIN_DETAIL = "first pin: the server sent this text when it was first pinned; no change under review brought it"


def first_pinned(finding: Finding) -> Finding:
    """`finding` as `lock` reports it on a server it pins for the first time (see `at_first_pin`)."""
    return at_first_pin(dataclasses.replace(finding, details=[*finding.details, FIRST_PIN_DETAIL]))


def at_first_pin(finding: Finding) -> Finding:
    """`finding` as `lock` grades it on a server it pins for the first time, and `check` on pinned text: a
    payload quoted blocks at high or above; wording only, or anything graded below high, is shown (wording at
    most medium) without failing the run."""
    if finding.evidence_kind is None or finding.advisory is not None:
        return finding
    if finding.evidence_kind != WORDING:
        if severity_rank(finding.effective_severity) <= severity_rank(BLOCKS_UNCHANGED_AT):
            return finding
        return dataclasses.replace(finding, advisory=ADVISORY_BELOW_HIGH, details=[*finding.details,
                                                                                  ADVISORY_BELOW_HIGH])
    severity = min(finding.effective_severity, ADVISORY_SEVERITY, key=lambda s: -severity_rank(s))
    return dataclasses.replace(finding, severity=severity, advisory=ADVISORY, details=[*finding.details, ADVISORY])


# Wording only graded below high (stray zero-width characters, a mere preference for this tool over another) is
# weak evidence wherever it stands: shown, graded and explained, never blocking, on a bump as at a first lock.
WEAK_WORDING = (
    "not blocking: wording only, graded below high (weak evidence: shown and explained, blocking neither a first "
    "lock nor a change)"
)


def weak_wording(findings: list[Finding]) -> list[Finding]:
    """`findings`, each wording-only one graded below high marked as shown without blocking (WEAK_WORDING)."""
    return [
        dataclasses.replace(f, advisory=WEAK_WORDING, details=[*f.details, WEAK_WORDING])
        if f.evidence_kind == WORDING and f.advisory is None
        and severity_rank(f.effective_severity) > severity_rank(BLOCKS_UNCHANGED_AT) else f
        for f in findings
    ]


def is_on_pinned_text(finding: Finding) -> bool:
    return any(detail.startswith(PINNED_DETAIL) for detail in finding.details)


def is_unchanged_text(finding: Finding) -> bool:
    """Whether a detector finding is on text no change under review brought: pinned already, or first pinned."""
    return is_on_pinned_text(finding) or FIRST_PIN_DETAIL in finding.details


def _identity(finding: Finding) -> tuple[object, ...]:
    """What a finding on the whole pin and one on the text new since `before` share when they are the same hit (a
    carried one says so in one more line)."""
    details = tuple(d for d in finding.details if d != CARRIED)
    return (finding.rule.id, finding.server, finding.subject, finding.kind, finding.message, details)
