r"""Which patterns could match a text: a literal pre-filter, so most texts skip most searches.

Each pattern's parse tree gives "factors": sets of ASCII literals such that every match contains one literal of
each set (`\b(?:do\s+not|never)\s+tell` needs "do" or "never", and "tell"). They are looked for in `folded`: the
normalised text with ASCII letters lower-cased, 1:1, so that offsets and word characters stay put, and a pattern
literal matching a character case-insensitively is that character folded. `FOLD_ASCII` also folds the four
non-ASCII characters that Python's IGNORECASE matches to an ASCII letter (tests/detectors/test_prefilter.py
checks every code point).

A screen cuts each literal into "pieces" without whitespace: a part of a literal that every match contains is in
every match too, and a part after whitespace starts a word. A one-literal factor gives a factor per piece; a
factor of several literals keeps the best piece of each. A piece thus lies within one token of `folded.split()`,
so the pieces in a text are the union of those in its tokens: each distinct token is scanned once (`_Tokens`).
The candidates are then worked out once per distinct set of the pieces that decide them (`_Gates`,
`_Decisions`). A pattern is skipped only when one of its factors has no piece in the text, which no match of it
allows; a pattern without a factor is always searched.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from scanner.detectors.lazy_re import lazy

FOLD_ASCII = {**{ord(c): ord(c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
               0x130: ord("i"), 0x131: ord("i"), 0x17F: ord("s"), 0x212A: ord("k")}

# Words so common in tool descriptions that a factor made of them screens out little.
_COMMON = frozenset((
    "a", "an", "and", "any", "all", "are", "as", "at", "be", "by", "do", "for", "from", "if", "in", "is", "it",
    "its", "of", "on", "or", "the", "this", "that", "to", "use", "used", "user", "with", "you", "your", "not",
    "no", "tool", "tools", "when", "will", "can", "must", "should", "file", "files", "data", "see", "set", "get",
))
_MAX_CACHED = 1 << 17  # distinct tokens, and distinct piece sets, remembered before starting afresh

Item = tuple[str, bool]  # a piece, and whether it starts a token or follows a non-word character in it


class Source(NamedTuple):
    """A pattern's source and flags: all a screen reads of it, so a pattern searched only in an alternation with
    others (the score's cue alternatives) need not be compiled alone to be screened."""

    pattern: str
    flags: int


class Screen:
    """The screen of some patterns, numbered in list order."""

    def __init__(self, patterns: Sequence[re.Pattern[str] | Source]) -> None:
        numbered: dict[Item, int] = {}
        factors = []
        for pattern in patterns:
            chosen = _screened_factors(pattern)
            factors.append(tuple(frozenset(numbered.setdefault(item, len(numbered)) for item in f) for f in chosen))
        self.items = tuple(numbered)  # every piece screened for, numbered
        self.factors = tuple(factors)  # per pattern: its screened factors (item numbers), rarest first
        self.always = frozenset(n for n, screened in enumerate(factors) if not screened)  # no usable factor
        self.gated_by: dict[int, frozenset[int]] = {}  # item -> the patterns whose rarest factor holds it
        for number, screened in enumerate(factors):
            for item in screened[0] if screened else ():
                self.gated_by[item] = self.gated_by.get(item, _NONE) | {number}
        self.gate_items = frozenset(self.gated_by)
        # per pattern, as bit masks: the items of its factors after the rarest, and each of those factors
        self.others = tuple(_mask(_NONE.union(*screened[1:])) for screened in factors)
        self.rest = tuple(tuple(map(_mask, screened[1:])) for screened in factors)  # its factors after the rarest
        self.single = frozenset(n for n, screened in enumerate(factors) if len(screened) == 1)
        pieces = sorted({self.items[item][0] for item in self.gate_items})
        # Where each pattern's rarest factor has a piece, wherever it lies: one search answers `may_match`.
        self._gate = re.compile(_trie(pieces)) if pieces and not self.always else None
        # A token's value packs three masks: bits [0, W) its items; [W, 2W) the items of the other factors of the
        # patterns its rare items gate; from 2W those patterns. OR-ing a text's token values gives the same three
        # for the text, since the gated patterns of a union are the union of each part's.
        self.width = len(self.items)
        self.item_field = (1 << self.width) - 1
        gates = {
            item: (_mask(patterns) << 2 * self.width)
            | (functools.reduce(operator.or_, map(self.others.__getitem__, patterns), 0) << self.width)
            for item, patterns in self.gated_by.items()
        }
        self.tokens = _Tokens(self.items, gates)
        self.decisions = _Decisions(self)
        self._last: tuple[str | None, frozenset[int]] = (None, _NONE)

    def candidates(self, folded: str) -> frozenset[int]:
        """The patterns that could match the text whose folded form (see FOLD_ASCII) is `folded`.

        First the patterns whose rarest factor has a piece in the text (few distinct sets of rare pieces occur),
        then those of them whose other factors have one too, from only the pieces those factors hold. The last
        text's answer is kept: the catalogue and the score ask about the same text in turn.
        """
        if folded == self._last[0]:
            return self._last[1]
        value = functools.reduce(operator.or_, map(self.tokens.__getitem__, folded.split()), 0)
        width, field = self.width, self.item_field
        result = self.decisions[value >> 2 * width, value & (value >> width) & field]
        self._last = (folded, result)
        return result

    def may_match(self, folded: str) -> bool:
        """Whether any pattern could match, from one search: cheaper than `candidates` when most texts have
        none of the pieces."""
        return self._gate is None or self._gate.search(folded) is not None

    def found(self, folded: str) -> frozenset[int]:
        """The items whose pieces occur in `folded` (an anchored piece: at a token start or after a non-word
        character)."""
        return _bits(self.found_mask(folded))

    def found_mask(self, folded: str) -> int:
        """`found(folded)` as a bit mask (bit n: item n): OR-ing the tokens' masks costs less than uniting sets."""
        return functools.reduce(operator.or_, map(self.tokens.__getitem__, folded.split()), 0) & self.item_field


_NONE: frozenset[int] = frozenset()


def _mask(items: Sequence[int] | frozenset[int]) -> int:
    return sum(1 << item for item in set(items))


def _bits(mask: int) -> frozenset[int]:
    """The item numbers set in `mask`."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return frozenset(out)


class _Cache(dict[Any, Any]):
    """Computes each missing value once, and starts afresh past `_MAX_CACHED` entries."""

    def __missing__(self, key: Any) -> Any:
        if len(self) >= _MAX_CACHED:
            self.clear()
        value = self[key] = self.compute(key)
        return value

    def compute(self, key: Any) -> Any:
        raise NotImplementedError


class _Tokens(_Cache):
    """token -> the items found in it, as a bit mask, with what its gate items gate (see `Screen.width`)."""

    def __init__(self, items: tuple[Item, ...], gates: dict[int, int]) -> None:
        super().__init__()
        number = {item: n for n, item in enumerate(items)}
        scans = []
        for anchored in (True, False):
            pieces = sorted({piece for piece, a in items if a == anchored})
            if pieces:
                # The trie is greedy, so at each position it reports the longest piece: the others there are its
                # prefixes. Anchored pieces are tried after every non-word character of " " + token, the others
                # at every position.
                head = r"\W(?=(" if anchored else "(?=("
                # each piece's prefixes among the pieces, shortest first (the pieces are sorted)
                known = set(pieces)
                prefixes = {
                    p: _mask([number[p[:k], anchored] for k in range(1, len(p) + 1) if p[:k] in known]) for p in pieces
                }
                scans.append((re.compile(head + _trie(pieces) + "))"), prefixes, " " if anchored else ""))
        self.scans = tuple(scans)
        self.gates = gates

    def compute(self, token: str) -> int:
        found = 0
        for scan, prefixes, lead in self.scans:
            for piece in scan.findall(lead + token):
                found |= prefixes[piece]
        gates = self.gates
        return functools.reduce(operator.or_, [gates[item] for item in _bits(found) if item in gates], found)


class _Interning(_Cache):
    """A cache whose values are shared between keys when equal: the answers are few, and large."""

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.screen = screen
        self.interned: dict[frozenset[int], frozenset[int]] = {}

    def intern(self, value: frozenset[int]) -> frozenset[int]:
        if len(self.interned) >= _MAX_CACHED:
            self.interned.clear()
        return self.interned.setdefault(value, value)


class _Decisions(_Interning):
    """(gated patterns, found items of their other factors), as masks -> the patterns each factor of which is
    found."""

    def compute(self, key: tuple[int, int]) -> frozenset[int]:
        gated_mask, found = key
        gated = _bits(gated_mask)
        rest, single = self.screen.rest, self.screen.single
        return self.intern(
            self.screen.always | (gated & single) | {n for n in gated - single if all(f & found for f in rest[n])}
        )


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (outside groups and character classes)."""
    parts, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*parts, pattern[start:]]


def _screened_factors(pattern: re.Pattern[str] | Source) -> list[frozenset[Item]]:
    """The factors of `pattern` in pieces (see the module's docstring), rarest first."""
    factors = set()
    for factor in pattern_factors(pattern):
        if len(factor) == 1:  # every match holds each of its pieces: one factor each
            factors.update(frozenset({piece}) for piece in _pieces(*next(iter(factor))))
            continue
        pieces = [_pieces(*item) for item in factor]
        if all(pieces):  # else a literal of whitespace only, which holds nothing to look for
            factors.add(frozenset(max(each, key=_weight) for each in pieces))
    # A factor one of whose pieces is a single letter or digit is in almost every text: it screens out nothing.
    useful = [f for f in factors if not any(len(piece) == 1 and piece.isalnum() for piece, _ in f)]
    return sorted(useful, key=lambda f: (_selectivity(f), sorted(f)), reverse=True)


def _pieces(literal: str, anchored: bool) -> list[Item]:
    """The parts of a literal between whitespace; a part after whitespace starts a token."""
    return [(m.group(), anchored if m.start() == 0 else True) for m in _NO_SPACE.finditer(literal)]


_NO_SPACE = lazy(r"[^\t\n\x0b\x0c\r\x1c-\x1f ]+")  # what str.split() never splits: no ASCII whitespace


def _weight(item: tuple[str, bool]) -> int:
    literal, anchored = item
    return len(literal) + (2 if anchored else 0) - (4 if literal.strip() in _COMMON else 0)


def _selectivity(factor: frozenset[tuple[str, bool]]) -> tuple[int, int]:
    """How rarely a factor's weakest literal should occur in ordinary text (higher: rarer)."""
    return min(map(_weight, factor)), -len(factor)


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


@functools.lru_cache(maxsize=2048)
def parsed(source: str, flags: int) -> tuple[tuple[Any, Any], ...]:
    """The top level of a pattern's parse tree (read only), cached: the score's cue alternatives are parsed for
    their non-ASCII literals (`scoring._needs`), then for their factors here."""
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    return tuple(sre_parse.parse(source, flags))


def pattern_factors(pattern: re.Pattern[str] | Source) -> list[frozenset[tuple[str, bool]]]:
    """Factors of `pattern`: sets of (folded literal, starts a word), each of which every match contains one of."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - the layout before Python 3.11
        return []
    try:
        tree = parsed(pattern.pattern, pattern.flags)
    except Exception:  # pragma: no cover - compiled already, so it parses; anything odd: no pre-filter
        return []
    factors, _ = _Factors(sre).sequence(list(tree), False)  # a match may start anywhere, even mid-word
    if pattern.flags & (re.ASCII | re.LOCALE) or _SCOPED_ASCII.search(pattern.pattern):
        # Its `\b` and `\W` are not the gate's (Unicode) ones: no literal is known to start a word.
        factors = [frozenset((literal, False) for literal, _ in factor) for factor in factors]
    return factors


_SCOPED_ASCII = lazy(r"\(\?[aiLmsux-]*[aL]")


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
            return self._one_of(av, start), self._never_word(av)
        if op is c.LITERAL:  # non-ASCII: IGNORECASE may match other characters (even a letter for U+0345)
            return [], False
        return [], False  # ANY, NOT_LITERAL, CATEGORY, GROUPREF...: may be a word character

    def _one_of(self, items: list[Any], start: bool) -> list[frozenset[tuple[str, bool]]]:
        """A class of ASCII characters only (such as `[_-]`; no range, category or negation): a match holds one."""
        if not items or any(op is not self.c.LITERAL or av >= 0x80 for op, av in items):
            return []
        return [frozenset((chr(av).lower(), start and _is_word(chr(av))) for _, av in items)]

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
