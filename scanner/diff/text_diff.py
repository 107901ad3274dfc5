"""Sentence- and word-level diff of the text a model reads (descriptions, titles, instructions).

`diff_text` says which sentences were added or removed and classifies the change:

* cosmetic — only whitespace, punctuation, letter case, or one alphabetic word fixed by at most two
  edits; never when invisible/format characters (Unicode Cf: zero-width, bidi controls, the tag
  block) appear or disappear, nor when a word gains non-ASCII letters (look-alikes), nor when the
  edit flips the meaning;
* invisible — format characters were added or removed;
* lookalike — a changed word now holds non-ASCII letters, digits of a number changed aside;
* added — at least one sentence with no close counterpart before (the finding quotes it);
* flipped — no new sentence, but a negation added or removed, a negating prefix or an antonym swapped in
  (`scanner.diff.meaning`); `sensitive` when the changed sentences are about data, secrets, recipients
  or permissions;
* reworded — anything else.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from scanner.diff.change import Change, change
from scanner.diff.meaning import about_sensitive, meaning_flips
from scanner.diff.meaning import summary as flips_summary
from scanner.diff.words import first_change, is_format_char, quote_balance, visible, word_diff

SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")
MARKDOWN_HEADING = re.compile(r"#{1,6}\s+(.*?)\s*#*")
HEADING_WORDS = 8  # a heading this short names a section; a longer one is read as a sentence
# A rewritten sentence at least this similar to a removed one is a rewording, not a new sentence.
REWORD_RATIO = 0.8
TYPO_DISTANCE = 2
TYPO_MIN_LENGTH = 4
# Short words whose small edit flips the meaning ("not" → "now", "is" → "isnt").
MEANINGFUL = {"not", "now", "no", "never", "all", "any", "none", "only", "must", "may", "can", "cannot"}
QUOTE_LIMIT = 120
# Bounds on work and output for hostile texts: sentence pairs compared, characters of each compared,
# and added sentences listed one change each (the rest are counted in one more change).
RATIO_PAIRS = 2_500
SENTENCE_COMPARED = 2_000
ADDED_LISTED = 20


@dataclass
class TextDiff:
    kind: str  # "same", "cosmetic", "invisible", "lookalike", "added", "flipped", "reworded"
    added: list[str] = field(default_factory=list)  # sentences with no close counterpart before
    removed: list[str] = field(default_factory=list)  # sentences with no close counterpart after
    highlighted: str = ""  # every changed word, marked [-old-]{+new+}, in hunks with context when long
    flips: list[str] = field(default_factory=list)  # what a "flipped" edit flips, one line each
    sensitive: bool = False  # a flip in sentences about data, secrets, recipients or permissions


def sentences(text: str) -> list[str]:
    """The sentences of `text`: a stop inside quotes ends none; Markdown structure is no sentence.

    A heading (`## Tools`) of a few words, a rule or table border (`---`, `|---|`) is structure the model
    does not obey; a long heading, which can instruct, stays a sentence (its `#` marks aside).
    """
    found: list[str] = []
    start = scanned = balance = 0
    for match in SENTENCE_END.finditer(text):
        balance = quote_balance(text[scanned : match.start()], balance)  # each character read once
        scanned = match.start()
        if balance and "\n" not in match[0]:
            continue  # a stop inside a quotation
        found.append(text[start : match.start()])
        start = scanned = match.end()
        balance = 0
    found.append(text[start:])
    return [s for s in (_unmarked(part.strip()) for part in found) if s]


def _unmarked(line: str) -> str:
    """A sentence without Markdown heading marks; "" for structure (a short heading, a rule, a border)."""
    heading = MARKDOWN_HEADING.fullmatch(line)
    if heading is not None:
        line = heading[1]
        if len(line.split()) <= HEADING_WORDS and not SENTENCE_END.search(line):
            return ""
    return line if any(ch.isalnum() for ch in line) else ""


def _norm(text: str) -> str:
    """Case, whitespace and punctuation at word edges folded away; format characters kept."""
    return " ".join(t for t in (_strip_punct(w).casefold() for w in text.split()) if t)


def _strip_punct(word: str) -> str:
    start, end = 0, len(word)
    while start < end and unicodedata.category(word[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(word[end - 1]).startswith("P"):
        end -= 1
    return word[start:end]


def diff_text(old: str, new: str) -> TextDiff:
    if old == new:
        return TextDiff("same")
    highlighted = word_diff(old, new)
    flips: list[str] = []
    if sorted(c for c in old if is_format_char(c)) != sorted(c for c in new if is_format_char(c)):
        kind = "invisible"
    elif _lookalike(old, new):
        kind = "lookalike"
    elif _cosmetic(old, new):
        flips = meaning_flips(old, new)
        if not flips:
            return TextDiff("cosmetic", highlighted=highlighted)
        kind = "flipped"
    else:
        kind = ""
    before, after = sentences(old), sentences(new)
    known = {_norm(s) for s in before}
    current = {_norm(s) for s in after}
    added_raw = [s for s in after if _norm(s) not in known]
    removed = [s for s in before if _norm(s) not in current]
    if len(added_raw) * len(removed) > RATIO_PAIRS:
        # Too many to pair up: every new sentence counts as added, the more severe reading.
        added, removed_unmatched = added_raw, removed
    else:
        added = [s for s in added_raw if not any(_alike(s, r) for r in removed)]
        removed_unmatched = [s for s in removed if not any(_alike(s, a) for a in added_raw)]
    if not kind and added:
        kind = "added"
    elif not kind:
        flips = meaning_flips(old, new)
        kind = "flipped" if flips else "reworded"
    if kind != "flipped":
        return TextDiff(kind, added, removed_unmatched, highlighted)
    sensitive = about_sensitive([*added_raw, *removed] or [old, new])
    return TextDiff(kind, added, removed_unmatched, highlighted, flips, sensitive)


def _alike(a: str, b: str) -> bool:
    """At least `REWORD_RATIO` alike; the cheap upper bounds rule most pairs out first."""
    matcher = difflib.SequenceMatcher(None, _norm(a)[:SENTENCE_COMPARED], _norm(b)[:SENTENCE_COMPARED], autojunk=False)
    return (
        matcher.real_quick_ratio() >= REWORD_RATIO
        and matcher.quick_ratio() >= REWORD_RATIO
        and matcher.ratio() >= REWORD_RATIO
    )


def _cosmetic(old: str, new: str) -> bool:
    a, b = _norm(old).split(), _norm(new).split()
    if a == b:
        return True
    if len(a) != len(b):
        return False
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(pairs) != 1:
        return False
    x, y = pairs[0]
    return (
        x.isascii()
        and y.isascii()
        and x.isalpha()
        and y.isalpha()
        and min(len(x), len(y)) >= TYPO_MIN_LENGTH
        and x not in MEANINGFUL
        and y not in MEANINGFUL
        and not (x.endswith("nt") ^ y.endswith("nt"))
        and edit_distance(x, y) <= TYPO_DISTANCE
    )


def _lookalike(old: str, new: str) -> bool:
    """A word of `new` not in `old` that mixes in non-ASCII letters or marks not seen in `old`."""
    seen = set(old)
    words = set(old.split())
    for word in new.split():
        if word in words:
            continue
        for ch in word:
            if ch in seen or ch.isascii():
                continue
            category = unicodedata.category(ch)
            if category[0] in "LMN" and any(c.isascii() and c.isalpha() for c in word):
                return True
            if category[0] == "M":
                return True
    return False


def edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def quote(text: str) -> str:
    text = visible(" ".join(text.split()))
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


KIND_CLASS = {
    "cosmetic": "text-cosmetic",
    "invisible": "text-invisible-changed",
    "lookalike": "text-lookalike",
    "added": "text-sentence-added",
    "flipped": "text-meaning-flipped",
    "reworded": "text-reworded",
}
SENSITIVE_FLIP = "text-meaning-flipped-sensitive"


def text_changes(field_name: str, path: str, old: Any, new: Any) -> list[Change]:
    """Graded changes of one text field (a description, a title, instructions)."""
    old_text = old if isinstance(old, str) else ""
    new_text = new if isinstance(new, str) else ""
    if (old is not None and not isinstance(old, str)) or (new is not None and not isinstance(new, str)):
        return [change("field-changed", path, "not text", field_name)]
    result = diff_text(old_text, new_text)
    if result.kind == "same":
        return []
    diff = result.highlighted
    if result.kind == "added":
        listed = [
            change("text-sentence-added", path, f'added sentence: "{quote(s)}"', field_name, quote=quote(s), diff=diff)
            for s in result.added[:ADDED_LISTED]
        ]
        more = len(result.added) - ADDED_LISTED
        if more > 0:
            listed.append(change("text-sentence-added", path, f"and {more} more added sentences", field_name))
        return listed
    detail = {
        "cosmetic": "cosmetic edit (case, punctuation, whitespace or a typo)",
        "invisible": "invisible or format characters added or removed",
        "lookalike": "look-alike (non-ASCII) letters swapped in",
        "flipped": "meaning flipped: " + flips_summary(result.flips),
        "reworded": "reworded" + (f', removed "{quote(result.removed[0])}"' if result.removed else ""),
    }[result.kind]
    if old is None:
        detail = "added"
    elif new is None:
        detail = "removed"
    excerpt = first_change(old_text, new_text) if result.kind != "cosmetic" else None
    cls = SENSITIVE_FLIP if result.kind == "flipped" and result.sensitive else KIND_CLASS[result.kind]
    return [change(cls, path, detail, field_name, diff=diff, excerpt=excerpt)]
