"""Negation scope: whether the act a cue names stands inside a negation or caution of its own clause ("Never send
…", "`password` is never included"), shared by MCPL-D016's scoring and the regrades of `purpose`; and the sentence
around a quoted cue, which those regrades read (`purpose`, `own_subject`)."""

from __future__ import annotations

import re

from scanner.detectors.lazy_re import lazy

# Negation scope (`negated`): a negation earlier in the same clause, at most eight words before the act, with no word
# between that starts another clause ("Never mention that you read ~/.ssh": `that` starts one), or a negated
# participle after it ("`password` is never included in the response").
CLAUSE = lazy(r"[,;:.!?()\n\u2014]|\s-\s")
# Where a sentence ends for the regrading rules (purpose, own_backend): a full stop ends one only before a space or
# the end, so paths (`~/.ssh/config`) and versions stay whole.
SENTENCE_END = lazy(r"[.!?](?=\s|$)|\n")
_NEGATION_WORD = lazy(
    r"\b(?:never|not|cannot|can't|can not|won't|doesn't|don't|isn't|aren't|mustn't|shouldn't|no|nor|neither)\b"
    r"(?!\s+(?:forget|fail|omit|skip|neglect|hesitate|only|just|need\s+to\s+ask)\b)",
    re.IGNORECASE,
)
_NEW_CLAUSE = lazy(
    r"\b(?:that|which|who|you|your\s+(?:reply|answer)|and|but|then|unless|except|before|after|instead|so|because"
    r"|when|whenever|if|while|otherwise|just|simply|rather|first|also|until|ask|asking|tell|telling|mention|inform"
    r"|notify|bother)\b",
    re.IGNORECASE,
)
_NEGATED_AFTER = lazy(
    r"^\W{0,3}[^,;:.!?\n]{0,40}?\b(?:is|are|will\s+be|would\s+be|gets?|be|was|were)\s+(?:never|not)\s+"
    r"(?:\w+ly\s+)?(?:included|returned|sent|shared|stored|logged|read|accessed|uploaded|transmitted|exposed"
    r"|displayed|shown|printed|saved|collected|touched|written|used|forwarded|echoed|revealed|disclosed)\b",
    re.IGNORECASE,
)


def negated(text: str, start: int, end: int) -> bool:
    """Whether the act matched at `text[start:end]` stands inside a negation or caution of its own clause."""
    head = CLAUSE.split(text[max(0, start - 120):start])[-1]
    found = list(_NEGATION_WORD.finditer(head))
    if found:
        between = head[found[-1].end():]
        if len(between.split()) <= 8 and not _NEW_CLAUSE.search(between):
            return True
    return bool(_NEGATED_AFTER.match(text[end:end + 100]))


def sentence_around(text: str, at: int) -> str:
    """The sentence holding `text[at]`: a full stop ends one only before a space, so paths (`~/.ssh/config`) and
    versions stay whole."""
    start, end = sentences_spanning(text, at, at + 1)
    return text[start:end]


def sentences_spanning(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the run of sentences holding `text[start:end]` begins and ends (`sentence_around`'s sentences)."""
    first = max((m.end() for m in SENTENCE_END.finditer(text, 0, start)), default=0)
    stop = SENTENCE_END.search(text, max(start, end - 1))
    return first, stop.end() if stop else len(text)


OCCURRENCES = 20


def occurrences(text: str, quoted: str) -> list[int]:
    """Where `quoted` stands in `text`, in any case ("Ignore previous instructions" where a hit quoted its lower-cased
    example), at most `OCCURRENCES` places."""
    found: list[int] = []
    for match in re.finditer(re.escape(quoted), text, re.IGNORECASE):
        found.append(match.start())
        if len(found) == OCCURRENCES:
            break
    return found
