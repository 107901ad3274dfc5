r"""Which catalogue patterns could match a text: a literal pre-filter, so most texts skip most searches.

Every catalogue pattern is a separate case-insensitive search, about 130 us per text for all of them, and
almost no text matches any. So each pattern's parse tree gives "factors": sets of ASCII literals such that
every match contains one literal of each set (`\b(?:do\s+not|never)\s+tell` needs "do" or "never", and
"tell"). They are looked for in `folded`: the normalised text with ASCII letters lower-cased, 1:1, so that
offsets and word characters stay put, and a pattern literal matching a character case-insensitively is that
character folded. `FOLD_ASCII` also folds the four non-ASCII characters that Python's IGNORECASE matches to
an ASCII letter (tests/detectors/test_prefilter.py checks every code point).

The gate is a trie of the most selective factor of every pattern, as two regexes. `starts` holds the literals
that start a word in every match (after `\b`, `^` or a space): it matches one non-word character and looks
ahead for a literal, so that the search skips word characters at C speed, and every word start is tried (a
match consumes only that character; the text gets a leading space). `anywhere` holds the others. Each
reports, at each position it stops at, one literal; any other gate literal occurring there or starting
inside that match agrees with it on their overlap, so `by_literal(m)` holds every pattern whose gate factor
has such a literal: the patterns worth searching are those of the literals found (and `always`: patterns
without factors). Those are then checked for all their factors (`has_factors`) before their own search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

FOLD_ASCII = {**{ord(c): ord(c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
               0x130: ord("i"), 0x131: ord("i"), 0x17F: ord("s"), 0x212A: ord("k")}

# Words so common in tool descriptions that a factor made of them screens out little.
_COMMON = frozenset((
    "a", "an", "and", "any", "all", "are", "as", "at", "be", "by", "do", "for", "from", "if", "in", "is", "it",
    "its", "of", "on", "or", "the", "this", "that", "to", "use", "used", "user", "with", "you", "your", "not",
    "no", "tool", "tools", "when", "will", "can", "must", "should", "file", "files", "data", "see", "set", "get",
))


@dataclass(frozen=True)
class Screen:
    factors: tuple[tuple[tuple[str, ...], ...], ...]  # per pattern (catalogue order): its factors, rarest first
    starts: re.Pattern[str] | None  # literals at a word start, searched in " " + folded
    anywhere: re.Pattern[str] | None  # the other literals, searched in folded
    gated: dict[int, frozenset[tuple[str, bool]]]  # pattern -> its factor in the gate
    always: frozenset[int]  # patterns without factors: always searched
    known: dict[str, frozenset[int]] = field(default_factory=dict)  # by_literal, filled as literals are found

    @classmethod
    def build(cls, patterns: list[re.Pattern[str]]) -> Screen:
        """The screen of `patterns`, numbered in list order."""
        factors = []
        gated: dict[int, frozenset[tuple[str, bool]]] = {}
        always = set()
        for number, pattern in enumerate(patterns):
            found = sorted(pattern_factors(pattern), key=_selectivity, reverse=True)
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
        return cls(tuple(factors), starts, anywhere, gated, frozenset(always))

    def candidates(self, folded: str) -> set[int]:
        """The patterns that could match the text whose folded form (see FOLD_ASCII) is `folded`."""
        found = self.starts.findall(" " + folded) if self.starts is not None else []
        if self.anywhere is not None:
            found += self.anywhere.findall(folded)
        if not found and not self.always:
            return set()
        candidates = set(self.always)
        for literal in found:
            candidates |= self.by_literal(literal)
        return {n for n in candidates if has_factors(folded, self.factors[n])}

    def by_literal(self, found: str) -> frozenset[int]:
        """The patterns whose gate factor has a literal that can occur where `found` was matched."""
        patterns = self.known.get(found)
        if patterns is None:
            patterns = frozenset(
                n for n, factor in self.gated.items() if any(_overlaps(found, *item) for item in factor)
            )
            self.known[found] = patterns
        return patterns


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


def pattern_factors(pattern: re.Pattern[str]) -> list[frozenset[tuple[str, bool]]]:
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


def has_factors(folded: str, factors: tuple[tuple[str, ...], ...]) -> bool:
    for factor in factors:
        for literal in factor:
            if literal in folded:
                break
        else:
            return False
    return True
