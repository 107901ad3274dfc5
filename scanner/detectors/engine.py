"""Catalogue loading and ``scan_text``: each catalogue entry is one registered check, filed as suspicious-text."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from scanner.files import packaged_data
from scanner.model.findings import PAYLOAD, WORDING, EvidenceKind
from scanner.model.rule_base import Severity
from scanner.model.rules import SEVERITIES, SUSPICIOUS_TEXT, Category, Rule, register_check

from . import argument_override, guardrail_banners, scoring
from . import unicode_checks as uc
from .prefilter import FOLD_ASCII, Screen

CATALOGUE = Path(__file__).with_name("catalogue.yaml")

CATALOGUE_VERSION = 1
MAX_HITS_PER_RULE = 3
MAX_EVIDENCE = 200


@dataclass(frozen=True)
class Hit:
    rule_id: str
    severity: Severity
    summary: str
    evidence: str
    evidence_kind: EvidenceKind = PAYLOAD  # a payload quoted, or wording only
    # MCPL-D016's (family, weight, quoted text) of each cue that counted, as scored: what its regrading reads, never
    # parsed back out of `evidence`, whose quotes a cue's own text can hold.
    cues: scoring.Cues = ()


@dataclass(frozen=True)
class CatalogueEntry:
    """One detector of the catalogue: its rule, and how it matches."""

    rule: Rule
    rule_class: str  # the catalogue's finer grouping (invisible, exfiltration…), for the evaluation bench
    evidence_kind: EvidenceKind = PAYLOAD  # whether what it matches is a payload by itself or wording only
    patterns: tuple[re.Pattern[str], ...] = ()
    detector: str | None = None
    examples_match: tuple[str, ...] = ()
    examples_no_match: tuple[str, ...] = ()
    flags: tuple[str, ...] = field(default=())
    preference: frozenset[int] = frozenset()  # patterns (by position) that only promote this tool: medium alone


class CatalogueError(ValueError):
    pass


_DETECTORS = ("unicode_tags", "bidi_controls", "zero_width", "homoglyphs")
_FLAG_NAMES = {"MULTILINE": re.MULTILINE, "CASE_SENSITIVE": 0}


def _parse(data: object) -> tuple[CatalogueEntry, ...]:
    if not isinstance(data, dict) or data.get("catalogue_version") != CATALOGUE_VERSION:
        raise CatalogueError(f"expected catalogue_version: {CATALOGUE_VERSION}")
    rules, seen = [], set()
    for raw in data.get("rules") or []:
        rid = raw["id"]
        if rid in seen:
            raise CatalogueError(f"duplicate rule id {rid}")
        seen.add(rid)
        if raw["severity"] not in SEVERITIES:
            raise CatalogueError(f"{rid}: bad severity {raw['severity']!r}")
        flags = tuple(raw.get("flags") or ())
        reflags = 0 if "CASE_SENSITIVE" in flags else re.IGNORECASE
        for name in flags:
            if name not in _FLAG_NAMES:
                raise CatalogueError(f"{rid}: unknown flag {name}")
            reflags |= _FLAG_NAMES[name]
        detector = raw.get("detector")
        if detector is not None and detector not in _DETECTORS:
            raise CatalogueError(f"{rid}: unknown detector {detector}")
        patterns = tuple(re.compile(p, reflags) for p in raw.get("patterns") or ())
        if bool(patterns) == bool(detector):
            raise CatalogueError(f"{rid}: needs exactly one of patterns / detector")
        examples = raw.get("examples") or {}
        preference = frozenset(raw.get("preference_patterns") or ())
        if not preference <= set(range(len(patterns))):
            raise CatalogueError(f"{rid}: preference_patterns are positions of its patterns")
        rule = Rule(
            rid, Category.POISONING, raw["severity"], raw["summary"], raw["help"], reported_as=SUSPICIOUS_TEXT.id
        )
        if raw.get("evidence") not in (PAYLOAD, WORDING):
            raise CatalogueError(f"{rid}: evidence must be {PAYLOAD} or {WORDING}")
        rules.append(CatalogueEntry(
            rule=rule, rule_class=raw["class"], evidence_kind=raw["evidence"], patterns=patterns, detector=detector,
            examples_match=tuple(examples.get("match") or ()),
            examples_no_match=tuple(examples.get("no_match") or ()), flags=flags, preference=preference,
        ))
    return tuple(rules)


@functools.cache
def load_catalogue() -> tuple[CatalogueEntry, ...]:
    """Load and compile the packaged catalogue once (through its compiled JSON), registering each entry's rule."""
    entries = _parse(packaged_data.value(CATALOGUE, packaged_data.safe_load))
    for entry in entries:
        register_check(entry.rule)
    return entries


def _evidence(text: str, start: int, end: int) -> str:
    frag = uc.render_visible(text[start:end])
    return frag if len(frag) <= MAX_EVIDENCE else frag[: MAX_EVIDENCE - 1] + "…"


def _detector_spans(name: str, text: str) -> list[tuple[int, int, str]]:
    if text.isascii():
        return []
    if name == "unicode_tags":
        out = []
        for s, e, decoded in uc.find_tags(text)[: 4 * MAX_HITS_PER_RULE]:
            a, b = uc._window(text, s, e, 10)
            ev = _evidence(text, a, b)
            out.append((s, e, f'{ev} [decoded: "{decoded[:120]}"]' if decoded else ev))
        return out
    if name == "bidi_controls":
        positions = uc.find_bidi(text)
    elif name == "zero_width":
        positions = uc.find_zero_width(text)
    else:
        spans = uc.find_homoglyphs(text)[: 4 * MAX_HITS_PER_RULE]
        return [(s, e, _evidence(text, s, e)) for s, e in spans]
    # Render evidence only for the first few positions; a text can hold millions.
    return [(p, p + 1, _evidence(text, *uc._window(text, p, p + 1))) for p in positions[: 4 * MAX_HITS_PER_RULE]]


def scan_text(text: str) -> list[Hit]:
    """Every detector over ``text``: one hit per rule that fires (quoting up to a few matches), catalogue
    order, then the weighted-cue score (MCPL-D016), then the order checks (`ORDER_CHECKS`)."""
    if not isinstance(text, str):
        raise TypeError("scan_text expects str")
    hits = _catalogue_hits(text)
    plain = text if text.isascii() else uc.Normalised(text).text
    scored = scoring.flagged(plain, _screen())
    if scored is not None:
        hits.append(score_hit(scored))
    for check in ORDER_CHECKS:
        found = check.find(plain)
        if found is not None:
            hits.append(Hit(check.RULE.id, check.RULE.severity, check.RULE.summary, found[0], found[1]))
    return hits


# The checks of one text for the orders real attacks use (issue 38 item 4), each its own module: an order to discard
# the user's arguments or request (MCPL-D026), a banner switching safety off or changing the model's role (D027).
ORDER_CHECKS = (argument_override, guardrail_banners)


def score_hit(scored: scoring.Score) -> Hit:
    """MCPL-D016's hit for a score that reached the threshold."""
    kind = PAYLOAD if scored.quotes_payload() else WORDING
    return Hit(scoring.RULE.id, scoring.RULE.severity, scoring.RULE.summary, scored.explain(), kind, scored.cues)


def _catalogue_hits(text: str) -> list[Hit]:
    norm: uc.Normalised | None = None
    if text.isascii():  # Normalised(text) is text itself; the code-point detectors find nothing
        folded = text.lower()
    else:
        norm = uc.Normalised(text)
        folded = norm.text.translate(FOLD_ASCII)
    # Skipping a pattern that cannot match changes nothing: the hits are those of searching every pattern.
    candidates = _in_catalogue(_screen().candidates(folded))
    if not candidates and norm is None:
        return []
    hits: list[Hit] = []
    index = 0
    for entry in load_catalogue():
        found: list[str] = []
        promotes_only = True  # every match is a pattern that only promotes this tool (`preference_patterns`)
        if entry.detector:
            for _s, _e, ev in _detector_spans(entry.detector, text):
                if ev not in found:
                    found.append(ev)
                if len(found) >= MAX_HITS_PER_RULE:
                    break
        else:
            first, index = index, index + len(entry.patterns)
            for number, pattern in enumerate(entry.patterns, first):
                if number not in candidates:
                    continue
                if norm is None:
                    norm = uc.Normalised(text)
                m = pattern.search(norm.text)
                if m:
                    ev = _evidence(text, *norm.span(m.start(), m.end()))
                    promotes_only = promotes_only and number - first in entry.preference
                    if ev not in found:
                        found.append(ev)
                if len(found) >= MAX_HITS_PER_RULE:
                    break
        if found:  # one finding per detector per text: its matches quoted together
            hits.append(_graded(entry, text, " | ".join(found), promotes_only and bool(entry.preference)))
    return hits


# Zero-width characters that hide or alter text (`unicode_checks.hides_text`) are a payload graded high; stray
# ones (copied vendor documentation) are wording, at the catalogue's medium: shown, never failing a first lock.
HIDING_SEVERITY: Severity = "high"


# "You MUST use this tool BEFORE any search", "when the user wants X, use this instead": a tool promoting itself, with
# no other tool re-programmed and no payload, is what honest servers say of overlapping tools (MCPL-D022 grades the
# same preference medium): shown and explained, blocking neither a first lock nor a change.
PREFERENCE_ONLY = "graded medium: it only promotes this tool (no other tool re-programmed, no payload)"


def _graded(entry: CatalogueEntry, text: str, evidence: str, promotes_only: bool = False) -> Hit:
    rule = entry.rule
    if promotes_only:
        return Hit(rule.id, "medium", f"{rule.summary}; {PREFERENCE_ONLY}", evidence, entry.evidence_kind)
    if entry.detector != "zero_width":
        return Hit(rule.id, rule.severity, rule.summary, evidence, entry.evidence_kind)
    if uc.hides_text(text, uc.find_zero_width(text)):
        return Hit(rule.id, HIDING_SEVERITY, rule.summary + ": they hide or split words", evidence, PAYLOAD)
    return Hit(rule.id, rule.severity, rule.summary + ": stray, beside spaces, punctuation or word boundaries",
               evidence, WORDING)


@functools.cache
def _screen() -> Screen:
    """One pre-filter for the score's cue patterns, then the catalogue's: each text is scanned once for both."""
    return Screen([*scoring.cue_sources(), *(pattern for entry in load_catalogue() for pattern in entry.patterns)])


@functools.lru_cache(maxsize=4096)
def _in_catalogue(candidates: frozenset[int]) -> frozenset[int]:
    """The catalogue's patterns among a screen's candidates, numbered from the catalogue's first pattern."""
    first = len(scoring.cue_sources())
    return frozenset(n - first for n in candidates if n >= first)


def rule_class(rule_id: str) -> str:
    return next(entry.rule_class for entry in load_catalogue() if entry.rule.id == rule_id)


if __name__ == "__main__":  # python -m scanner.detectors.engine: rewrite catalogue.compiled.json
    print(f"wrote {packaged_data.rewrite(CATALOGUE, packaged_data.safe_load)}")
