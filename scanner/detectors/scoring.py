"""MCPL-D016: weak cues of text aimed at the model, weighed together against one calibrated threshold.

No single cue here is evidence of poisoning ("always", a URL, "password", a tool-like identifier all occur in
honest descriptions); an attack tends to combine several families: an order, a payload, a destination, a
claim of authority, concealment. Each family counts once, at the weight of its strongest cue that fired, and
the finding quotes every cue with its weight, so the verdict explains itself.

Each alternative of a cue is searched only when the literal pre-filter (`prefilter.Screen`, which scan_text
shares with the catalogue) finds its literals in the text, and only when the cues that may match could reach
the threshold together; the patterns' gaps are bounded, so the cost is linear in the text. Cue lists
cover English and, for the strongest cues, Chinese, Japanese, Korean, Spanish, German and French; paths are
language-independent.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from re import _constants as sre_constants  # type: ignore[attr-defined]

from scanner.detectors.lazy_re import lazy
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule, register_check

from .cues import CUES
from .negation import negated
from .prefilter import FOLD_ASCII, Screen, Source, alternatives, parsed

# Calibrated on bench/detectors/data/benign (3,748 real definitions, then 5,277): see bench/detectors/README.md.
THRESHOLD = 4.5
MIN_LENGTH = 20  # shorter strings (types, formats, most enum values) carry no combination of cues

RULE = Rule(
    "MCPL-D016",
    Category.POISONING,
    "high",
    "Several cues of instructions aimed at the model combine in one text",
    "Weak cues, each common in honest text, that attacks combine: orders about other tools or every call "
    "(before using X, whenever, always), secret paths (~/.ssh, .env, cloud credentials), destinations (URLs, "
    "addresses, phone numbers, webhooks) with a transmit verb, sensitive data (conversation, passwords, "
    "tokens, the assistant's own instructions or conversation), overrides of the user's arguments "
    "(regardless of the user, instead), fake deprecation and fake errors, preference for this tool, claims of "
    "authority, of the user's consent or of role play, skipped confirmations, destruction at scale, "
    "concealment. Each family counts once at its strongest cue; the text is "
    f"reported when the sum reaches {THRESHOLD:g}. The evidence lists every cue and its weight. Cue lists in "
    "English, Chinese, Japanese, Korean, Spanish, German and French. Measured: fires on 11 of 6,576 real "
    "benign definitions (0.17%; bench/detectors/README.md).",
    reported_as=SUSPICIOUS_TEXT.id,
)
register_check(RULE)


# A family whose cue, at this weight or more, quotes a payload (see `Score.quotes_payload`); the lighter cues of
# these families ("private keys", "silently", "instead of the") are wording that honest text uses too.
PAYLOAD_WEIGHTS: dict[str, float] = {
    "secret_path": 3.0, "override": 3.0, "override_args": 2.5, "concealment": 2.0, "shell_payload": 3.0,
    "dangerous_command": 3.0,
}


# "Visit https://…/docs/migration" links the reader to a page (heroui's react-mcp 1.1.2): a link verb sends data
# to its destination only when the URL carries some, as a query template (`?uid={user_email}&term=`).
_LINK_VERB = lazy(r"(?:visit|open)\s+https?://")
_URL_DATA = lazy(r"[?&][\w-]+=")


# (family, weight, quoted text) of each cue family that counted in a score.
Cues = tuple[tuple[str, float, str], ...]


@dataclass(frozen=True)
class Score:
    total: float
    cues: Cues

    def quotes_payload(self) -> bool:
        """Whether a cue that counted is a payload by itself: a secret path, an instruction override or an override
        of the user's request, concealment from the user, a shell payload, or data sent to a destination."""
        weights = {family: weight for family, weight, _text in self.cues}
        quoted = {family: text for family, _weight, text in self.cues}
        if "transmit" in weights and "destination" in weights and (
            not _LINK_VERB.match(quoted["transmit"])
            or _URL_DATA.search(f'{quoted["destination"]} {quoted.get("url_template", "")}')
        ):
            return True
        return any(weights.get(family, 0.0) >= least for family, least in PAYLOAD_WEIGHTS.items())

    def explain(self) -> str:
        quoted = "; ".join(f'{family} +{weight:g} "{text}"' for family, weight, text in self.cues)
        return f"score {self.total:g} >= {THRESHOLD:g}: {quoted}"


@dataclass(frozen=True)
class _Alternative:
    """One top-level alternative of a cue pattern, screened on its own: a big alternation's screen passes as
    soon as any alternative's rarest literal occurs, an alternative's passes only if all of its literals do."""

    family: str
    weight: float
    group: int  # the cue (family, weight) and script it belongs to: searched together, in catalogue order
    source: str
    needs: str  # non-ASCII literal every match holds ("" if none is known): the screen reads ASCII literals only

    @property
    def ascii_only(self) -> bool:
        """Whether it can match a text of ASCII characters only: not if every match holds a non-ASCII literal
        (`(?:之前|以前)的`, `대화 기록`); `env[ií]a`, whose non-ASCII characters sit in a class, can."""
        return not self.needs


def _needs(alternative: str) -> str:
    """The longest run of top-level literal characters of `alternative` holding a non-ASCII one, lower-cased
    (matches are searched in the lower-cased text); "" when there is none (a group or class in every run)."""
    runs, run = [], ""
    for op, value in parsed(alternative, _FLAGS):  # the parse of its screen, which `_FLAGS` do not change
        if op is sre_constants.LITERAL:
            run += chr(value)
            continue
        runs.append(run)
        run = ""
    runs.append(run)
    return max((r.lower() for r in runs if not r.isascii()), key=len, default="")


@functools.cache
def _cues() -> tuple[_Alternative, ...]:
    """Every alternative of every cue, grouped by cue and script: the literal pre-filter reads ASCII literals
    only, and a text without other characters never needs the rest."""
    out = []
    group = 0
    for family, cues in CUES.items():
        for weight, pattern in cues:
            parts = [(part, _needs(part)) for part in alternatives(pattern)]
            for ascii_only in (True, False):
                chosen = [(part, needs) for part, needs in parts if (not needs) == ascii_only]
                out += [_Alternative(family, weight, group, part, needs) for part, needs in chosen]
                group += bool(chosen)
    return tuple(out)


_FLAGS = re.IGNORECASE | re.MULTILINE


@functools.lru_cache(maxsize=4096)
def _search(numbers: tuple[int, ...]) -> re.Pattern[str]:
    """The alternation of the given alternatives, in pattern order. An alternative whose literals are missing
    matches nowhere in the text, so leaving it out changes no match of `finditer`."""
    cues = _cues()
    return re.compile("|".join(cues[n].source for n in numbers), _FLAGS)


@functools.cache
def cue_sources() -> tuple[Source, ...]:
    """Every alternative of every cue: what a screen for `score` starts with, in this order. Screening reads
    only their sources; each is compiled within the alternation of a text's candidates (`_search`)."""
    return tuple(Source(cue.source, _FLAGS) for cue in _cues())


@functools.cache
def cue_patterns() -> tuple[re.Pattern[str], ...]:
    """Every alternative of every cue, compiled alone, in `cue_sources` order."""
    return tuple(_search((n,)) for n in range(len(_cues())))


def has_cue(text: str) -> bool:
    """Whether any alternative of any cue matches `text` as `score` reads it (`_read`: searched lowered, screened
    folded) or folded, forbidden or not, naming the server's own tools or not: what a change that writes a cue has
    written (`diff.carried`)."""
    lowered, folded = _read(text)
    patterns = cue_patterns()
    return any(n < len(patterns) and (patterns[n].search(lowered) or patterns[n].search(folded))
               for n in _screen().candidates(folded))


def _read(text: str) -> tuple[str, str]:
    """(the text as the cues are searched in, as the screen reads it): lowered, an identifier's words parted."""
    lowered = text.lower()
    if "_" in lowered and not _SPACE.search(lowered):  # an identifier: read its words
        lowered = lowered.replace("_", " ")
    if lowered.isascii():
        return lowered, lowered  # lower() already folded ASCII
    # A Korean particle joins the word before it (`.env의`): part them, so that `\b` sees the word.
    lowered = _PARTICLE.sub(" ", lowered)
    return lowered, lowered.translate(FOLD_ASCII)


@functools.cache
def _screen() -> Screen:
    return Screen(cue_sources())


@functools.cache
def _groups() -> tuple[tuple[int, ...], ...]:
    """The alternatives of each group, in group order."""
    groups: list[tuple[int, ...]] = []
    for number, cue in enumerate(_cues()):
        if cue.group == len(groups):
            groups.append(())
        groups[cue.group] += (number,)
    return tuple(groups)


Plan = tuple[tuple[str, float, tuple[tuple[float, tuple[int, ...]], ...]], ...]


@functools.lru_cache(maxsize=8192)
def _plan(candidates: frozenset[int], ascii_text: bool) -> Plan | None:
    """Per family (CUES order: the strong, rare families first), its ceiling (the weight of its strongest cue
    with a candidate alternative) and each such cue's weight and candidate alternatives; None when the ceilings
    together stay below THRESHOLD, since no window can then reach it."""
    cues = _cues()
    in_group: dict[int, list[int]] = {}  # group -> its candidate alternatives; groups are runs of numbers
    for n in sorted(n for n in candidates if n < len(cues)):  # the screen's later patterns are not cues
        in_group.setdefault(cues[n].group, []).append(n)
    by_family: dict[str, list[tuple[float, tuple[int, ...]]]] = {}
    for numbers in in_group.values():
        first = cues[numbers[0]]
        if first.ascii_only or not ascii_text:  # a text without other characters needs no other
            by_family.setdefault(first.family, []).append((first.weight, tuple(numbers)))
    plan = tuple((family, max(w for w, _ in searches), tuple(searches)) for family, searches in by_family.items())
    return plan if sum(ceiling for _, ceiling, _ in plan) >= THRESHOLD else None


# Where a sentence ends: cues count together only within a window of two adjacent sentences, since an
# attack states its order and its payload together, and a long honest description spreads weak cues out.
_SENTENCE_END = lazy(r"(?<=\S)[.!?;](?=\s)|\n|[。！？；]")
WINDOW = 2
_SPACE = lazy(r"\s")
_PARTICLE = lazy(r"(?<=[a-z0-9_.)`'\"])(?=[\uac00-\ud7a3])")


# Families whose cue quotes a tool name: an order about the text's own server's tool (its own name, a sibling, a
# former name) is documentation of that server, not a cue of steering another server's tool.
NAMED_FAMILIES = frozenset({"cross_tool", "tool_identifier"})
_NAME = lazy(r"[a-z][a-z0-9]*(?:(?:__|[_.-])[a-z0-9]+)+")


_AGAIN = lazy(r"\W{0,3}\s*again\b")
# A verb that ends a long command-line flag ("requires --allow-write", "--read-only" aside) names an option, it
# orders nothing: an imperative cue matched there is not counted.
_MAY_NEGATE = lazy(r"\b(?:not|never|no|nor|neither|cannot)\b|n't\b")
_FLAG_HEAD = lazy(r"(?<![\w-])--[a-z0-9]+(?:-[a-z0-9]+)*-$")
# A verb made an adjective by "-only" ("read-only fields", "send-only channel") says what is allowed, and one that
# names a kind of operation or right ("WRITE operation.", "needs write access", "read permissions", "append mode")
# classifies the tool: neither orders anything.
_COMPOUND = lazy(r"-only\b| (?:operations?|access|permissions?|mode)\b")


def _tool_reference(text: str, lowered: str, match: re.Match[str]) -> bool:
    """Whether a `#name` destination cue is written in camelCase in the text ("ALWAYS use #runSubagent for dbt data
    exploration", iflow-mcp-niclasolofsson-dbt-core-mcp 1.7.1): a chat client's tool reference, not a channel, whose
    names Slack and Discord keep lower-case. Read only where lower-casing kept every offset."""
    return (match.group().startswith("#") and len(text) == len(lowered)
            and any(c.isupper() for c in text[match.start() + 2:match.end()]))


def _names_own(lowered: str, match: re.Match[str], own: frozenset[str], name: str) -> bool:
    """Whether every tool-like name in a cue's match is a sibling of the text's definition (one of `own`,
    lower-cased), or its own `name` called again (a documented second step), and there is one."""
    names = _NAME.findall(match.group())
    if not names:
        return False
    again = _AGAIN.match(lowered, match.end()) is not None
    return all(n in own or (again and n == name) for n in names)


def score(text: str, screen: Screen | None = None, own: frozenset[str] = frozenset(), name: str = "",
          fields: frozenset[str] = frozenset()) -> Score:
    """The best-scoring window of `WINDOW` adjacent sentences: its cues, each family at its strongest weight.

    `screen` is a pre-filter whose first patterns are `cue_sources()` (scan_text's also holds the catalogue's,
    so that a text is scanned once for both); by default, one of those alone. `fields`: the definition's own
    parameter names, lower-cased: a `cross_tool` cue naming only them ("When using post_id alone, …") steers no
    other tool (its `tool_identifier` still counts: a parameter asking for secrets names itself)."""
    return max(_windows(_sentences(text, screen, own, name, fields)), key=lambda s: s.total, default=Score(0.0, ()))


def windows(text: str, screen: Screen | None = None, own: frozenset[str] = frozenset(), name: str = "",
            fields: frozenset[str] = frozenset()) -> list[Score]:
    """Every window of `text` that reaches the threshold, the best first (as `score` picks it among equals)."""
    found = [s for s in _windows(_sentences(text, screen, own, name, fields)) if s.total >= THRESHOLD]
    return sorted(found, key=lambda s: -s.total)


def _sentences(text: str, screen: Screen | None, own: frozenset[str], name: str,
               fields: frozenset[str] = frozenset()) -> dict[int, dict[str, tuple[float, str]]]:
    """Each sentence's cues, family by family at its strongest; empty when no window can reach the threshold."""
    if len(text) < MIN_LENGTH:
        return {}
    lowered, folded = _read(text)
    ascii_text = lowered.isascii()
    # Whatever the windows, the score cannot exceed the sum of every family's best candidate cue: most texts
    # stop here.
    candidates = (screen or _screen()).candidates(folded)
    if not ascii_text:  # the non-ASCII alternatives whose literal is missing cannot match
        cues = _cues()
        candidates = frozenset(n for n in candidates if n >= len(cues) or cues[n].needs in lowered)
    plan = _plan(candidates, ascii_text)
    if plan is None:
        return {}
    remaining = sum(ceiling for _, ceiling, _ in plan)
    ends: list[int] | None = None  # where each sentence ends, found with the first cue
    per_sentence: dict[int, dict[str, tuple[float, str]]] = {}
    achieved = 0.0
    may_negate = _MAY_NEGATE.search(lowered) is not None
    for family, ceiling, searches in plan:
        found = 0.0
        for weight, numbers in searches:
            for match in _search(numbers).finditer(lowered):
                if (own or name or fields) and family in NAMED_FAMILIES and _names_own(
                        lowered, match, own | fields if family == "cross_tool" else own, name):
                    continue
                if family == "destination" and _tool_reference(text, lowered, match):
                    continue
                if family == "imperative" and (
                    (lowered[match.start() - 1:match.start()] == "-"
                     and _FLAG_HEAD.search(lowered, max(0, match.start() - 40), match.start()))
                    or _COMPOUND.match(lowered, match.end())
                    or (may_negate and negated(lowered, match.start(), match.end()))
                ):  # a flag's word, or a verb the text forbids ("do not pass the key in tool parameters")
                    continue
                if ends is None:
                    ends = [m.end() for m in _SENTENCE_END.finditer(lowered)]
                found = max(found, weight)
                best = per_sentence.setdefault(bisect.bisect_right(ends, match.start()), {})
                if weight > best.get(family, (0.0, ""))[0]:
                    best[family] = (weight, match.group()[:60])
        achieved += found
        remaining -= ceiling
        if achieved + remaining < THRESHOLD:  # no window can reach it: a window sums a subset of the text's cues
            return {}
    return per_sentence


def _windows(per_sentence: dict[int, dict[str, tuple[float, str]]]) -> list[Score]:
    """The score of each window of `WINDOW` sentences that starts at a sentence with a cue."""
    found = []
    for first in per_sentence:
        window: dict[str, tuple[float, str]] = {}
        for index in range(first, first + WINDOW):
            for family, cue in per_sentence.get(index, {}).items():
                if cue[0] > window.get(family, (0.0, ""))[0]:
                    window[family] = cue
        found.append(Score(sum(weight for weight, _ in window.values()),
                           tuple((family, weight, quoted) for family, (weight, quoted) in window.items())))
    return found


def flagged(
    text: str, screen: Screen | None = None, own: frozenset[str] = frozenset(), name: str = "",
    fields: frozenset[str] = frozenset(),
) -> Score | None:
    """The score of `text` if it reaches the threshold; cues naming only `own` tools (lower-cased) not counted, nor
    a `cross_tool` cue naming only the definition's own parameters (`fields`)."""
    result = score(text, screen, own, name, fields)
    return result if result.total >= THRESHOLD else None
