"""Rule catalogue loading and ``scan_text``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from . import unicode_checks as uc

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
    screen = _screen()
    norm: uc.Normalised | None = None
    if text.isascii():  # Normalised(text) is text itself; the code-point detectors find nothing
        folded = text.lower()
    else:
        norm = uc.Normalised(text)
        folded = norm.text.translate(_FOLD_ASCII)
    found = screen.starts.findall(" " + folded) if screen.starts is not None else []
    if screen.anywhere is not None:
        found += screen.anywhere.findall(folded)
    candidates: set[int] = set()
    if found or screen.always:
        candidates.update(screen.always)
        for literal in found:
            candidates |= screen.by_literal(literal)
        # Skipping a pattern that cannot match changes nothing: the hits are those of searching every pattern.
        candidates = {n for n in candidates if _has_factors(folded, screen.factors[n])}
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


def _has_factors(folded: str, factors: tuple[tuple[str, ...], ...]) -> bool:
    for factor in factors:
        for literal in factor:
            if literal in folded:
                break
        else:
            return False
    return True


# --- pre-filter ------------------------------------------------------------------------------------
#
# Every catalogue pattern is a separate case-insensitive search, about 130 us per text for all of them, and
# almost no text matches any. So each pattern's parse tree gives "factors": sets of ASCII literals such that
# every match contains one literal of each set (`\b(?:do\s+not|never)\s+tell` needs "do" or "never", and
# "tell"). They are looked for in `folded`: the normalised text with ASCII letters lower-cased, 1:1, so that
# offsets and word characters stay put, and a pattern literal matching a character case-insensitively is that
# character folded. `_FOLD_ASCII` also folds the four non-ASCII characters that Python's IGNORECASE matches to
# an ASCII letter (tests/detectors/test_prefilter.py checks every code point).
#
# The gate is a trie of the most selective factor of every pattern, as two regexes. `starts` holds the literals
# that start a word in every match (after `\b`, `^` or a space): it matches one non-word character and looks
# ahead for a literal, so that the search skips word characters at C speed, and every word start is tried (a
# match consumes only that character; the text gets a leading space). `anywhere` holds the others. Each
# reports, at each position it stops at, one literal; any other gate literal occurring there or starting
# inside that match agrees with it on their overlap, so `by_literal(m)` holds every pattern whose gate factor
# has such a literal: the patterns worth searching are those of the literals found (and `always`: patterns
# without factors). Those are then checked for all their factors (`_has_factors`) before their own search.

_FOLD_ASCII = {**{ord(c): ord(c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
               0x130: ord("i"), 0x131: ord("i"), 0x17F: ord("s"), 0x212A: ord("k")}

# Words so common in tool descriptions that a factor made of them screens out little.
_COMMON = frozenset((
    "a", "an", "and", "any", "all", "are", "as", "at", "be", "by", "do", "for", "from", "if", "in", "is", "it",
    "its", "of", "on", "or", "the", "this", "that", "to", "use", "used", "user", "with", "you", "your", "not",
    "no", "tool", "tools", "when", "will", "can", "must", "should", "file", "files", "data", "see", "set", "get",
))


@dataclass(frozen=True)
class _Screen:
    factors: tuple[tuple[tuple[str, ...], ...], ...]  # per pattern (catalogue order): its factors, rarest first
    starts: re.Pattern[str] | None  # literals at a word start, searched in " " + folded
    anywhere: re.Pattern[str] | None  # the other literals, searched in folded
    gated: dict[int, frozenset[tuple[str, bool]]]  # pattern -> its factor in the gate
    always: frozenset[int]  # patterns without factors: always searched
    known: dict[str, frozenset[int]] = field(default_factory=dict)  # by_literal, filled as literals are found

    def by_literal(self, found: str) -> frozenset[int]:
        """The patterns whose gate factor has a literal that can occur where `found` was matched."""
        patterns = self.known.get(found)
        if patterns is None:
            patterns = frozenset(
                n for n, factor in self.gated.items() if any(_overlaps(found, *item) for item in factor)
            )
            self.known[found] = patterns
        return patterns


@functools.cache
def _screen() -> _Screen:
    factors = []
    gated: dict[int, frozenset[tuple[str, bool]]] = {}
    always = set()
    for number, pattern in enumerate(p for rule in load_catalogue() for p in rule.patterns):
        found = sorted(_pattern_factors(pattern), key=_selectivity, reverse=True)
        factors.append(tuple(tuple(sorted({literal for literal, _ in f})) for f in found))
        if found:
            gated[number] = found[0]
        else:
            always.add(number)
    words = {item for factor in gated.values() for item in factor}
    loose = sorted({w for w, anchored in words if not anchored})
    anchored = sorted({w for w, is_anchored in words if is_anchored} - set(loose))
    starts = re.compile(r"\W(?=(" + _trie(anchored) + "))") if anchored else None
    anywhere = re.compile(_trie(loose)) if loose else None
    return _Screen(tuple(factors), starts, anywhere, gated, frozenset(always))


def _overlaps(found: str, literal: str, anchored: bool) -> bool:
    """Whether `literal` can occur where `found` was matched, or start inside it: they agree where they overlap,
    and an anchored literal (which starts with a word character) starts inside only after a non-word one."""
    return any(
        (found[k:].startswith(literal) or literal.startswith(found[k:]))
        and not (anchored and k and _is_word(found[k - 1]))
        for k in range(len(found))
    )


def _selectivity(factor: frozenset[tuple[str, bool]]) -> tuple[int, int]:
    """How rarely a factor's weakest literal should occur in ordinary text (higher: rarer)."""
    def weight(item: tuple[str, bool]) -> int:
        literal, anchored = item
        return len(literal) + (2 if anchored else 0) - (4 if literal.strip() in _COMMON else 0)

    return min(map(weight, factor)), -len(factor)


def _trie(words: list[str]) -> str:
    """A regex alternation of `words` sharing prefixes, so that each position tries one branch per letter."""
    if "" in words:
        rest = [w for w in words if w]
        return "(?:" + _trie(rest) + ")?" if rest else ""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0], []).append(word[1:])
    branches = [re.escape(head) + (_trie(tails) if tails != [""] else "") for head, tails in sorted(heads.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _pattern_factors(pattern: re.Pattern[str]) -> list[frozenset[tuple[str, bool]]]:
    """Factors of `pattern`: sets of (folded literal, starts a word), each of which every match contains one of."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - the layout before Python 3.11
        return []
    try:
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # pragma: no cover - compiled already, so it parses; anything odd: no pre-filter
        return []
    factors, _ = _Factors(sre).sequence(list(tree), False)  # a match may start anywhere, even mid-word
    if pattern.flags & (re.ASCII | re.LOCALE) or _SCOPED_ASCII.search(pattern.pattern):
        # Its `\b` and `\W` are not the gate's (Unicode) ones: no literal is known to start a word.
        factors = [frozenset((literal, False) for literal, _ in factor) for factor in factors]
    return factors


_SCOPED_ASCII = re.compile(r"\(\?[aiLmsux-]*[aL]")


class _Factors:
    """Walks a parse tree. `start` is True where a word character, if one comes next, begins a word (the
    previous character is not a word character, or there is none): after `\b`, `^`, a space."""

    def __init__(self, sre: Any) -> None:
        self.c = sre

    def sequence(self, items: list[Any], start: bool) -> tuple[list[frozenset[tuple[str, bool]]], bool]:
        c = self.c
        factors: list[frozenset[tuple[str, bool]]] = []
        run, run_start = "", False
        for op, av in items:
            if op is c.LITERAL and av < 0x80:
                char = chr(av)
                if not run:
                    run_start = start and _is_word(char)
                run += char.lower()
                start = not _is_word(char)
                continue
            if run:
                factors.append(frozenset({(run, run_start)}))
                run = ""
            inner, start = self.element(op, av, start)
            factors += inner
        if run:
            factors.append(frozenset({(run, run_start)}))
        return factors, start

    def element(self, op: Any, av: Any, start: bool) -> tuple[list[frozenset[tuple[str, bool]]], bool]:
        """Factors of one element, and `start` after it."""
        c = self.c
        if op is c.AT:
            if av in (c.AT_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING, c.AT_BEGINNING_LINE):
                return [], True
            return [], start if av is not c.AT_NON_BOUNDARY else False
        if op is c.SUBPATTERN:
            return self.sequence(list(av[-1]), start)
        if op is c.BRANCH:
            # One literal of the best factor of each alternative; none when some alternative has no factor.
            union: set[tuple[str, bool]] = set()
            every, ends = True, True
            for alternative in av[1]:
                inner, end = self.sequence(list(alternative), start)
                ends = ends and end
                every = every and bool(inner)
                if inner:
                    union |= max(inner, key=_selectivity)
            return ([frozenset(union)] if every else []), ends
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)):
            low, high, body = av
            if high == 0:
                return [], start
            inner, first = self.sequence(list(body), start)
            end = first if high == 1 else first and self.sequence(list(body), False)[1]
            if low == 0:
                return [], start and end
            return inner, end
        if op in (c.ASSERT, c.ASSERT_NOT):
            return [], start
        if op is c.IN:
            return [], self._never_word(av)
        if op is c.LITERAL:  # non-ASCII: IGNORECASE may match other characters (even a letter for U+0345)
            return [], False
        return [], False  # ANY, NOT_LITERAL, CATEGORY, GROUPREF...: may be a word character

    def _never_word(self, items: list[Any]) -> bool:
        c = self.c
        for op, av in items:
            if op is c.LITERAL and av < 0x80 and not _is_word(chr(av)):  # no other character matches it
                continue
            if op is c.CATEGORY and av in (c.CATEGORY_SPACE, c.CATEGORY_NOT_WORD):
                continue
            return False
        return True


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def rule_class(rule_id: str) -> str:
    return next(r.rule_class for r in load_catalogue() if r.id == rule_id)
