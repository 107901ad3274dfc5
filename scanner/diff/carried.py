"""Evidence a change did not bring: a hit on a changed field whose evidence the pinned field already held.

A bump that edits a description (a new parameter named, a typo fixed) re-scans the whole field. Its hits then grade
as if the change had written them, though their evidence stood, in the same sentences, in the text the lock pins:
a server whose pinned text holds wording-only MCPL-D016 cues goes red on every release that touches that field, for
words a reviewer was shown when it was pinned. Such a hit is graded as a hit on pinned text is
(`suspicious.at_first_pin`): wording only is shown at most medium and blocks nothing, a payload graded below high
is shown, a payload at high or above blocks as it does on every check.

A hit is carried only when the pinned text of the same field gave a hit of the same rule, at least as severe, with
the same evidence (MCPL-D016: counting every cue of the new one; any other rule: the same quoted evidence), each
sentence of the new text holding a piece of that evidence (a cue's quote; a quote of the evidence) stands in the
pinned text as often, and the sentences the change wrote (`written`) hold nothing any detector reads: no cue of
MCPL-D016 (forbidden or not: the score quotes each family once, so a second phrase of a family changes no quote),
no catalogue match, for a cross-server finding no spelling of the tool it names. Evidence that cannot be found in
the text again (a quote rendered with escapes, one standing twenty times or more) is never carried.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable

from scanner.detectors import Hit, scoring
from scanner.detectors.negation import SENTENCE_END, occurrences, sentences_spanning
from scanner.detectors.unicode_checks import Normalised
from scanner.diff.text_hits import hits
from scanner.model.rule_base import severity_rank

CARRIED = (
    "graded as pinned text: the change under review brought none of its evidence, which stands, in the same "
    "sentences, in the pinned text of this field (a change that writes such evidence into a sentence is judged "
    "as new text)"
)
_MANY = 20  # `occurrences` stops there: evidence standing that often cannot be followed, so it is not carried
PIECES = " | "  # how a hit quoting several places of its text joins them
_SQUEEZE = re.compile(r"[^a-z0-9]+")  # send_email, sendEmail, send email: one name


def _cues(hit: Hit) -> Counter[tuple[str, str]]:
    return Counter((family, quoted.lower()) for family, _weight, quoted in hit.cues)


def _as_scored(text: str) -> str:
    """The text as the detectors read it (their quotes are of that), lowered."""
    return (text if text.isascii() else Normalised(text).text).lower()


def _sentences(text: str, quoted: str) -> Counter[str] | None:
    """The sentences of (lowered) `text` that hold `quoted` (the whole run of them a quote spans), counted; None
    when it cannot be found or stands too often."""
    found = occurrences(text, quoted) if quoted else []
    if not found or len(found) >= _MANY:
        return None
    spans: Counter[str] = Counter()
    for at in found:
        start, end = sentences_spanning(text, at, at + len(quoted))
        spans[text[start:end].strip()] += 1
    return spans


def written(text: str, pinned_text: str) -> str:
    """The sentences of `text` the pinned text does not hold as often: what the change wrote into this field."""
    pinned = Counter(_split(pinned_text))
    out = []
    for sentence in _split(text):
        if pinned[sentence] > 0:
            pinned[sentence] -= 1
        else:
            out.append(sentence)
    return "\n".join(out)


def _split(text: str) -> list[str]:
    cuts = [0, *(m.end() for m in SENTENCE_END.finditer(text)), len(text)]
    return [piece for a, b in itertools.pairwise(cuts) if (piece := text[a:b].strip())]


def brings_evidence(text: str, pinned_text: str, names: Iterable[str] = ()) -> bool:
    """Whether the sentences the change wrote into this field hold anything a detector reads: a cue of MCPL-D016
    (forbidden or not), a catalogue match, or one of `names` (a tool another server lists) in any spelling."""
    new = written(text, pinned_text)
    if not new:
        return False
    if scoring.has_cue(new) or hits(new):
        return True
    squeezed = _SQUEEZE.sub("", new.lower())
    return any(_SQUEEZE.sub("", name.lower()) in squeezed for name in names)


def quotes_carried(pieces: Iterable[str], text: str, pinned_text: str) -> bool:
    """Whether each sentence of `text` holding one of the quoted `pieces` stands in `pinned_text` as often."""
    now, then = _as_scored(text), _as_scored(pinned_text)
    for piece in pieces:
        new, old = _sentences(now, piece.lower()), _sentences(then, piece.lower())
        if new is None or old is None or not new <= old:
            return False
    return True


def _same_evidence(hit: Hit, old: Hit) -> bool:
    if old.rule_id != hit.rule_id or severity_rank(old.severity) > severity_rank(hit.severity):
        return False
    return _cues(hit) <= _cues(old) if hit.cues else (not old.cues and old.evidence == hit.evidence)


def is_carried(hit: Hit, text: str, pinned_text: str, pinned_hits: Iterable[Hit]) -> bool:
    """Whether the pinned text of the same field (`pinned_text`, giving `pinned_hits`) held all of `hit`'s evidence."""
    if not any(_same_evidence(hit, old) for old in pinned_hits):
        return False
    pieces = {quoted for _family, quoted in _cues(hit)} if hit.cues else set(hit.evidence.split(PIECES))
    return quotes_carried(pieces, text, pinned_text) and not brings_evidence(text, pinned_text)
