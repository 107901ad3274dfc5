"""Whether an edit of a text flips what it says: a negation added or removed, a negating prefix, an antonym.

"Do not include the user's API keys" → "Do not exclude …" is one word and two letters apart, so it would
pass for a typo fix; it is the opposite instruction. Only small changed runs of words count (at most
`RUN_WORDS` a side): a flip is a local swap, while a rewritten passage is graded as a rewording already.
The vocabulary is data, in meaning.yaml beside this module (read through its compiled JSON,
scanner.files.packaged_data; `python -m scanner.diff.meaning` rewrites it).
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from scanner.diff.words import diff_ops
from scanner.files import packaged_data

VOCABULARY = Path(__file__).with_name("meaning.yaml")
RUN_WORDS = 4  # words a side of one changed run that a flip is looked for in
ROOT_MIN = 4  # letters a word must keep without its negating prefix (in+to is not a negation)
FLIPS_LISTED = 3
# English endings cut before words are compared, longest first; "ied"/"ies" become "y".
ENDINGS = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("ly", ""), ("s", ""), ("e", ""))
STEM_MIN = 3


@dataclass(frozen=True)
class Vocabulary:
    antonyms: frozenset[tuple[str, str]]  # stem pairs, both orders
    negations: frozenset[str]  # whole words: stems would take "notes" for "not"
    prefixes: tuple[str, ...]
    sensitive: frozenset[str]  # stems


@functools.cache
def vocabulary() -> Vocabulary:
    raw = packaged_data.value(VOCABULARY, packaged_data.safe_load)
    pairs = {(stem(a), stem(b)) for a, b in raw["antonyms"]}
    return Vocabulary(
        antonyms=frozenset(pairs | {(b, a) for a, b in pairs}),
        negations=frozenset(word(w) for w in raw["negations"]),
        prefixes=tuple(sorted(raw["negating_prefixes"], key=len, reverse=True)),
        sensitive=frozenset(stem(w) for w in raw["sensitive"]),
    )


def word(token: str) -> str:
    """A token as a bare word: case folded, apostrophes dropped (don't → dont), edge punctuation cut."""
    text = token.strip().casefold().replace("'", "").replace("\u2019", "")
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] in "PS":
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] in "PS":
        end -= 1
    return text[start:end]


@functools.lru_cache(maxsize=16384)
def stem(text: str) -> str:
    """`text` without one common English ending, so "included", "includes" and "including" meet."""
    text = word(text)
    for ending, replacement in ENDINGS:
        if ending == "s" and text.endswith("ss"):
            continue
        if text.endswith(ending) and len(text) - len(ending) >= STEM_MIN:
            return text[: len(text) - len(ending)] + replacement
    return text


def meaning_flips(old: str, new: str) -> list[str]:
    """What the edit from `old` to `new` flips, one line each: `negation added: "not"`, `"include" → "exclude"`."""
    found: list[str] = []
    for changed, before, after in diff_ops(old, new):
        if not changed or len(before) > RUN_WORDS or len(after) > RUN_WORDS:
            continue
        found += _run_flips([w for w in map(word, before) if w], [w for w in map(word, after) if w])
    return list(dict.fromkeys(found))


def _run_flips(before: list[str], after: list[str]) -> list[str]:
    words = vocabulary()
    lost = Counter(w for w in before if w in words.negations)
    gained = Counter(w for w in after if w in words.negations)
    flips: list[str] = []
    if lost.total() != gained.total():  # "do not" → "don't" swaps one negation for another
        flips += [f'negation removed: "{w}"' for w in lost - gained] + [f'negation added: "{w}"' for w in gained - lost]
    for old in before:
        for new in after:
            if old != new and (_antonyms(old, new) or _prefixed(old, new)):
                flips.append(f'"{old}" → "{new}"')
    return flips


def _antonyms(a: str, b: str) -> bool:
    return (stem(a), stem(b)) in vocabulary().antonyms


def _prefixed(a: str, b: str) -> bool:
    """One word is the other with a negating prefix: trusted/untrusted, able/disable, valid/invalid."""
    prefixes = vocabulary().prefixes
    for x, y in ((a, b), (b, a), (stem(a), stem(b)), (stem(b), stem(a))):
        if len(x) >= ROOT_MIN and any(y == prefix + x for prefix in prefixes):
            return True
    return False


def about_sensitive(sentences: Iterable[str]) -> bool:
    """Whether any of `sentences` is about data, secrets, recipients or permissions."""
    sensitive = vocabulary().sensitive
    return any(stem(token) in sensitive for sentence in sentences for token in sentence.split())


def summary(flips: list[str]) -> str:
    shown = "; ".join(flips[:FLIPS_LISTED])
    more = f" (+{len(flips) - FLIPS_LISTED} more)" if len(flips) > FLIPS_LISTED else ""
    return shown + more


if __name__ == "__main__":  # python -m scanner.diff.meaning: rewrite meaning.compiled.json
    print(f"wrote {packaged_data.rewrite(VOCABULARY, packaged_data.safe_load)}")
