"""Rule catalogue loading and ``scan_text``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources

from . import unicode_checks as uc
from .prefilter import FOLD_ASCII, Screen

SEVERITIES = ("critical", "high", "medium", "low", "info")
CATALOGUE_VERSION = 1
MAX_HITS_PER_RULE = 3
MAX_EVIDENCE = 200


@dataclass(frozen=True)
class Hit:
    rule_id: str
    severity: str
    summary: str
    evidence: str


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    rule_class: str
    summary: str
    help: str
    patterns: tuple[re.Pattern[str], ...] = ()
    detector: str | None = None
    examples_match: tuple[str, ...] = ()
    examples_no_match: tuple[str, ...] = ()
    flags: tuple[str, ...] = field(default=())


class CatalogueError(ValueError):
    pass


_DETECTORS = ("unicode_tags", "bidi_controls", "zero_width", "homoglyphs")
_FLAG_NAMES = {"MULTILINE": re.MULTILINE, "CASE_SENSITIVE": 0}


def _parse(data: object) -> tuple[Rule, ...]:
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
        rules.append(Rule(
            id=rid, severity=raw["severity"], rule_class=raw["class"], summary=raw["summary"],
            help=raw["help"], patterns=patterns, detector=detector,
            examples_match=tuple(examples.get("match") or ()),
            examples_no_match=tuple(examples.get("no_match") or ()), flags=flags,
        ))
    return tuple(rules)


@functools.cache
def load_catalogue() -> tuple[Rule, ...]:
    """Load and compile the packaged catalogue once (yaml imported lazily)."""
    import yaml

    text = resources.files(__package__).joinpath("catalogue.yaml").read_text(encoding="utf-8")
    return _parse(yaml.safe_load(text))


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
    """Run every catalogue rule over ``text``; at most a few hits per rule, catalogue order."""
    if not isinstance(text, str):
        raise TypeError("scan_text expects str")
    norm: uc.Normalised | None = None
    if text.isascii():  # Normalised(text) is text itself; the code-point detectors find nothing
        folded = text.lower()
    else:
        norm = uc.Normalised(text)
        folded = norm.text.translate(FOLD_ASCII)
    # Skipping a pattern that cannot match changes nothing: the hits are those of searching every pattern.
    candidates = _screen().candidates(folded)
    if not candidates and norm is None:
        return []
    hits: list[Hit] = []
    index = 0
    for rule in load_catalogue():
        found: list[str] = []
        if rule.detector:
            for _s, _e, ev in _detector_spans(rule.detector, text):
                if ev not in found:
                    found.append(ev)
                if len(found) >= MAX_HITS_PER_RULE:
                    break
        else:
            first, index = index, index + len(rule.patterns)
            for number, pattern in enumerate(rule.patterns, first):
                if number not in candidates:
                    continue
                if norm is None:
                    norm = uc.Normalised(text)
                m = pattern.search(norm.text)
                if m:
                    ev = _evidence(text, *norm.span(m.start(), m.end()))
                    if ev not in found:
                        found.append(ev)
                if len(found) >= MAX_HITS_PER_RULE:
                    break
        hits.extend(Hit(rule.id, rule.severity, rule.summary, ev) for ev in found)
    return hits


@functools.cache
def _screen() -> Screen:
    return Screen.build([pattern for rule in load_catalogue() for pattern in rule.patterns])


def rule_class(rule_id: str) -> str:
    return next(r.rule_class for r in load_catalogue() if r.id == rule_id)
