"""Word-level diff of two texts, shown so that no change can hide in a long text.

A short diff is shown whole with `[-old-]{+new+}` markers. A long one is shown as hunks: each change
with a few words of context either side, `…` between hunks, at most `MAX_HUNKS` of them followed by
"and N more changes". Removed or inserted text longer than `SEGMENT_LIMIT` keeps its start and end
and says how much is left out, so the changed words always show.

Texts come from servers and may be hostile, and difflib is quadratic at worst: it compares words
only within `ELEMENT_LIMIT` and `PAIR_LIMIT`; past them the texts are compared sentence by sentence
first, and a region too large even for that is shown as one coarse change (its start and end, which
are changes, and its size).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable, Sequence

# A token is a word with the whitespace before it, so an inserted word carries its own space.
TOKEN = re.compile(r"\s*\S+|\s+")
ORDINARY_SPACE = re.compile(r"[ \t\r\n]+")
SENTENCE_END = re.compile(r"[.!?。]$")
CONTEXT = 6  # words of context either side of a change
MAX_HUNKS = 10
FULL_LIMIT = 600  # a diff this short is shown whole, every unchanged word included
SEGMENT_LIMIT = 400  # removed or inserted text longer than this keeps its start and end
SEGMENT_TAIL = 120
# difflib's worst case is quadratic: its work grows with the elements compared times the matching
# blocks, and with the pairs of equal elements across the two sides (a text of one repeated word).
# Beyond either bound a sequence is not compared element by element.
ELEMENT_LIMIT = 2_000
PAIR_LIMIT = 200_000

Op = tuple[bool, list[str], list[str]]  # (changed, old tokens, new tokens)


def is_format_char(ch: str) -> bool:
    """Invisible or format characters: Unicode Cf (zero-width, bidi controls, tag block), variation selectors."""
    return unicodedata.category(ch) == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF


def visible(text: str) -> str:
    """Invisible and non-printable characters shown as escapes."""
    return "".join(
        ch if ch.isprintable() and not is_format_char(ch) else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def word_diff(old: str, new: str) -> str:
    """Every change between `old` and `new`, marked `[-old-]{+new+}`; hunks with context for a long text."""
    ops = diff_ops(old, new)
    if len(old) + len(new) <= 4 * FULL_LIMIT:
        whole = _squeeze("".join(_render(op, SEGMENT_LIMIT) for op in ops))
        if len(whole) <= FULL_LIMIT:
            return whole
    spans = _hunk_spans(ops)
    shown = [_hunk(ops, span, CONTEXT, SEGMENT_LIMIT) for span in spans[:MAX_HUNKS]]
    text = " … ".join(text for text, _, _ in shown)
    if shown and shown[0][1]:
        text = "… " + text
    if len(spans) > MAX_HUNKS:
        more = len(spans) - MAX_HUNKS
        text += f" … and {more} more change{'s' if more != 1 else ''}"
    elif shown and shown[-1][2]:
        text += " …"
    return text


def first_change(old: str, new: str, context: int = 4, limit: int = 160) -> str:
    """The first changed words with a little context, for a finding's one-line message."""
    ops = diff_ops(old, new)
    spans = _hunk_spans(ops, context)
    if not spans:
        return ""
    text, cut_before, cut_after = _hunk(ops, spans[0], context, limit)
    more = f" (+{len(spans) - 1} more)" if len(spans) > 1 else ""
    return ("…" if cut_before else "") + text + ("…" if cut_after else "") + more


def diff_ops(old: str, new: str) -> list[Op]:
    """Alternating unchanged and changed runs of tokens that turn `old` into `new`."""
    a, b = TOKEN.findall(old), TOKEN.findall(new)
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    ops: list[Op] = [(False, a[:prefix], b[:prefix])]
    ops += _middle(a[prefix : len(a) - suffix], b[prefix : len(b) - suffix])
    ops.append((False, a[len(a) - suffix :], b[len(b) - suffix :]))
    return _merged(ops)


def _middle(a: list[str], b: list[str]) -> list[Op]:
    if _comparable(a, b):
        return _word_ops(a, b)
    ca, cb = _sentences(a), _sentences(b)
    if not _comparable(ca, cb):
        return [(True, a, b)]
    ops: list[Op] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ca, cb, autojunk=False).get_opcodes():
        old = [t for chunk in ca[i1:i2] for t in chunk]
        new = [t for chunk in cb[j1:j2] for t in chunk]
        if tag == "equal":
            ops.append((False, old, new))
        elif _comparable(old, new):
            ops += _word_ops(old, new)
        else:
            ops.append((True, old, new))
    return ops


def _comparable(a: Sequence[Hashable], b: Sequence[Hashable]) -> bool:
    if len(a) + len(b) > ELEMENT_LIMIT:
        return False
    counts = Counter(b)
    return sum(counts[x] for x in a) <= PAIR_LIMIT


def _word_ops(a: list[str], b: list[str]) -> list[Op]:
    if not a or not b:
        return [(True, a, b)]
    return [
        (tag != "equal", a[i1:i2], b[j1:j2])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    ]


def quote_balance(text: str, balance: int = 0) -> int:
    """Quotes opened and not yet closed after `text`: a straight `"` toggles, “ opens and ” closes."""
    for ch in text:
        if ch == '"':
            balance = 0 if balance % 2 else balance + 1
        elif ch == "“":
            balance += 1
        elif ch == "”" and balance > 0:
            balance -= 1
    return balance


def _sentences(tokens: list[str]) -> list[tuple[str, ...]]:
    """Tokens in sentences; a stop inside quotes (`say "Done. Next?" to…`) ends none, a line break always does."""
    chunks: list[tuple[str, ...]] = []
    start = 0
    balance = 0
    for i, token in enumerate(tokens):
        if "\n" in token and i > start:  # the line break before this word ends the sentence before it
            chunks.append(tuple(tokens[start:i]))
            start, balance = i, 0
        balance = quote_balance(token, balance)
        if balance == 0 and SENTENCE_END.search(token):
            chunks.append(tuple(tokens[start : i + 1]))
            start = i + 1
    if start < len(tokens):
        chunks.append(tuple(tokens[start:]))
    return chunks


def _merged(ops: list[Op]) -> list[Op]:
    """Empty runs dropped and neighbours of the same kind joined, so runs alternate."""
    merged: list[Op] = []
    for changed, old, new in ops:
        if not old and not new:
            continue
        if merged and merged[-1][0] == changed:
            merged[-1] = (changed, merged[-1][1] + old, merged[-1][2] + new)
        else:
            merged.append((changed, old, new))
    return merged


def _hunk_spans(ops: list[Op], context: int = CONTEXT) -> list[tuple[int, int]]:
    """(first, last) op index of each hunk: changes closer than twice the context share one."""
    spans: list[tuple[int, int]] = []
    for i, (changed, _, _) in enumerate(ops):
        if not changed:
            continue
        if spans and spans[-1][1] == i - 2 and len(ops[i - 1][1]) <= 2 * context:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    return spans


def _hunk(ops: list[Op], span: tuple[int, int], context: int, limit: int) -> tuple[str, bool, bool]:
    """One hunk's text, and whether text was left out before and after it."""
    first, last = span
    before = ops[first - 1][1] if first > 0 else []
    after = ops[last + 1][1] if last + 1 < len(ops) else []
    lead, trail = before[-context:] if context else [], after[:context]
    parts = [_render((False, lead, lead), limit)]
    parts += [_render(op, limit) for op in ops[first : last + 1]]
    parts.append(_render((False, trail, trail), limit))
    return _squeeze("".join(parts)).strip(), len(before) > len(lead), len(after) > len(trail)


def _render(op: Op, limit: int) -> str:
    changed, old, new = op
    if not changed:
        return _shown(ORDINARY_SPACE.sub(" ", "".join(old)), limit)
    removed, inserted = "".join(old), "".join(new)
    shared = 0
    if removed and inserted:
        # Whitespace both sides start with is not part of the change.
        common = min(len(removed), len(inserted))
        while shared < common and removed[shared] == inserted[shared] and removed[shared].isspace():
            shared += 1
        removed, inserted = removed[shared:], inserted[shared:]
    text = " " if shared else ""
    if removed:
        text += "[-" + _shown(removed, limit) + "-]"
    if inserted:
        text += "{+" + _shown(inserted, limit) + "+}"
    return text


def _shown(text: str, limit: int) -> str:
    """`text` made visible; past `limit` characters, its start and end and how much is left out."""
    if len(text) <= limit:
        return visible(text)
    tail = min(SEGMENT_TAIL, limit // 3)
    head = limit - tail
    return f"{visible(text[:head])} …({len(text) - head - tail} more characters)… {visible(text[-tail:])}"


def _squeeze(text: str) -> str:
    return re.sub(r" {2,}", " ", text)
