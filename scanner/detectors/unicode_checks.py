"""Code-point checks: invisible characters, look-alike letters, and the normalised view.

Everything here walks code points directly; no regex is run over the text for these checks
(only for splitting words and, in ``normalise``, for locating characters to drop).
"""

from __future__ import annotations

import bisect
import unicodedata

from scanner.detectors.lazy_re import lazy

TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
ZERO_WIDTH = frozenset({0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF})
JOINERS = frozenset({0x200C, 0x200D})
BIDI = frozenset({*range(0x202A, 0x202F), *range(0x2066, 0x206A)})

# Cyrillic / Greek letters that are visually identical (or nearly) to a Latin letter.
CONFUSABLES: dict[str, str] = {
    # Cyrillic lower
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "к": "k",
    # Cyrillic upper
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J",
    # Greek lower
    "ο": "o", "α": "a", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "υ": "u",
    # Greek upper
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}

_FOLD = {ord(k): v for k, v in CONFUSABLES.items()}
_FOLD.update({cp: chr(cp - TAG_FIRST) for cp in range(TAG_FIRST + 0x20, TAG_FIRST + 0x7F)})
_DROP_RE = lazy("[\u00ad\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e001f\U000e007f]")
_WORD_RE = lazy(r"[^\W\d_]+")


def render_visible(fragment: str) -> str:
    """Make invisible/format/control characters visible as <U+XXXX> markers."""
    out = []
    for ch in fragment:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t" or (ch.isprintable() and unicodedata.category(ch) != "Cf"):
            out.append(ch)
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


def _window(text: str, start: int, end: int, pad: int = 20) -> tuple[int, int]:
    return max(0, start - pad), min(len(text), end + pad)


def find_tags(text: str) -> list[tuple[int, int, str]]:
    """Runs of tag characters: (start, end, decoded ASCII)."""
    runs, i, n = [], 0, len(text)
    while i < n:
        if TAG_FIRST <= ord(text[i]) <= TAG_LAST:
            j = i
            while j < n and TAG_FIRST <= ord(text[j]) <= TAG_LAST:
                j += 1
            decoded = "".join(chr(ord(c) - TAG_FIRST) for c in text[i:j] if 0x20 <= ord(c) - TAG_FIRST < 0x7F)
            runs.append((i, j, decoded))
            i = j
        else:
            i += 1
    return runs


def find_bidi(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ord(ch) in BIDI]


def _is_plain_neighbour(ch: str) -> bool:
    return ch.isascii() and not ch.isspace()


def find_zero_width(text: str) -> list[int]:
    hits = []
    for i, ch in enumerate(text):
        cp = ord(ch)
        if cp not in ZERO_WIDTH:
            continue
        if cp == 0xFEFF and i == 0:
            continue  # leading BOM
        if cp in JOINERS:
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            # Emoji sequences and Persian/Indic joiners sit between non-ASCII characters.
            if not (_is_plain_neighbour(before) or _is_plain_neighbour(after)):
                continue
        hits.append(i)
    return hits


def hides_text(text: str, positions: list[int]) -> bool:
    """Whether the zero-width characters at `positions` hide or alter text rather than stray in it: a run of
    two or more (zero-width characters encode bits in runs), or one inside a word or a name ("ig<U+200B>nore",
    "read<U+200B>_file": the model reads the word, a reviewer's search and a filter do not). One beside a space,
    punctuation or a non-Latin letter is what copied vendor documentation carries."""
    for pos in positions:
        before = text[pos - 1] if pos else ""
        after = text[pos + 1] if pos + 1 < len(text) else ""
        if ord(before or " ") in ZERO_WIDTH or ord(after or " ") in ZERO_WIDTH:
            return True
        if _in_word(before) and _in_word(after):
            return True
    return False


def _in_word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _script(ch: str) -> str:
    if ch.isascii():
        return "latin"
    if ch in CONFUSABLES:
        return "confusable"
    name = unicodedata.name(ch, "")
    if name.startswith("LATIN"):
        return "latin"
    if name.startswith(("CYRILLIC", "GREEK")):
        return "foreign"
    return "other"


def _word_kind(word: str) -> str:
    if word.isascii():
        return "latin"
    kinds = {_script(ch) for ch in word}
    if kinds == {"latin", "confusable"}:
        return "mixed"
    if kinds == {"confusable"}:
        return "confusable"
    if kinds <= {"latin"}:
        return "latin"
    if kinds & {"foreign", "confusable"} and not kinds & {"latin", "other"}:
        return "foreign"
    return "other"


_GENUINE_WORDS = 3  # genuine Cyrillic/Greek words that make a text one written partly in that script


def find_homoglyphs(text: str) -> list[tuple[int, int]]:
    """Spans of words where Cyrillic/Greek look-alikes pose as Latin letters.

    Adjacency guard: a word is not reported when a neighbouring word is genuine Cyrillic/Greek
    (``foreign``) or itself made of look-alikes — that is real Russian/Greek text.
    """
    words = [(m.start(), m.end(), _word_kind(m.group())) for m in _WORD_RE.finditer(text)]
    # A text written partly in Cyrillic or Greek (a few genuine words of it anywhere) quotes words of that language
    # whose letters all happen to look Latin: the city prefix "Моск" in `name: City name or prefix (e.g. "Моск")`
    # (mcp-server-cdek 0.6.0, whose docstrings are half Russian). A word mixing Latin and look-alike letters
    # ("pаssword") is no word of either language, and is still reported.
    written_in = sum(kind == "foreign" for _start, _end, kind in words) >= _GENUINE_WORDS
    hits = []
    for idx, (start, end, kind) in enumerate(words):
        if kind not in ("mixed", "confusable") or (kind == "confusable" and written_in):
            continue
        neighbours = [words[j][2] for j in (idx - 2, idx - 1, idx + 1, idx + 2) if 0 <= j < len(words)]
        if any(k in ("foreign", "confusable") for k in neighbours):
            continue
        if kind == "confusable" and (end - start < 2 or "latin" not in neighbours):
            continue
        hits.append((start, end))
    return hits


class Normalised:
    """Text with tag characters decoded, look-alikes folded and invisible characters removed,
    plus a map from normalised offsets back to the original text."""

    __slots__ = ("_shifts", "text")

    def __init__(self, original: str) -> None:
        if original.isascii():
            self.text, self._shifts = original, []
            return
        folded = original.translate(_FOLD)
        dropped = [m.start() for m in _DROP_RE.finditer(folded)]
        self._shifts = [pos - k for k, pos in enumerate(dropped)]
        self.text = _DROP_RE.sub("", folded) if dropped else folded

    def to_original(self, pos: int) -> int:
        return pos + bisect.bisect_right(self._shifts, pos)

    def span(self, start: int, end: int) -> tuple[int, int]:
        if end <= start:
            o = self.to_original(start)
            return o, o
        return self.to_original(start), self.to_original(end - 1) + 1
