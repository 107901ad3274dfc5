"""MCPL-D022: new text that gives orders about another known tool (cross-tool directive).

The names are the exact tool names every declared server lists (its own other tools included), and those of
widely installed servers (`well_known_tools.json`), which attacks target in the user's own client even when
this repository does not declare them; matched in snake, camel, kebab and spaced forms. A mention counts when
its sentence orders something about that tool: call it first or with given arguments, set or replace its
arguments, call it "deprecated" or redirect away from it. Honest descriptions say the same about data
dependencies ("call resolve-library-id first to get the ID this tool needs") and session set-up ("must be
called before any other tool"): a sentence with such wording is reported only if it also carries a payload
(a secret, the conversation, a destination).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Iterator, Mapping
from importlib import resources

from scanner.detectors.checks import tool_mention, workspace_check
from scanner.detectors.prefilter import FOLD_ASCII, Screen, alternatives
from scanner.detectors.texts import changed_definitions, paths_of
from scanner.lock.model import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D022",
    Category.POISONING,
    "high",
    "New text gives orders about another tool",
    "A description or other text new since the pin names a tool that a declared server lists (another "
    "server's, or another of its own server's) or that a widely installed server lists (filesystem, git, "
    "GitHub, Slack, mail, browsers, databases: bench/detectors/well_known.py), and, in the same sentence, "
    "orders something about it: call "
    "it first or with given arguments, set or replace its arguments, avoid it as deprecated or broken. Names "
    "are matched in snake, camel, kebab and spaced forms. Data-dependency wording (\"call X first to get "
    "the ID\") and session set-up are reported only with a payload (a secret path, the conversation, a "
    "destination). Measured: fires on 1 of 5,277 real benign definitions (bench/detectors/README.md). "
    "Filed as suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)

MIN_KEY = 6  # a name shorter than this once separators are dropped ("get", "list") is an English word

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n|(?<=[。！？])")  # a dot inside a path or name ends nothing
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_\-.][A-Za-z0-9]+)*")
_ORDER = re.compile(
    r"\b(?:before|after|when|whenever|every time|each time|instead|deprecated|obsolete|retired|broken|unsafe"
    r"|replace[sd]?|override|overrides|set|add|must|always|never|do not|don't|first|redirect|route"
    r"|regardless|no longer)\b|前|时|時|之前|대신|전에|antes|statt|vor|avant|au lieu",
    re.IGNORECASE,
)
_EXEMPT = re.compile(
    r"\bto (?:get|obtain|retrieve|find|look up|resolve|fetch)\b[^.!?\n]{0,40}?\b(?:ids?|identifiers?|sha|hash"
    r"|etag|version|name|names|list|token|cursor|session|path|uri|url|key)\b|\bsession\b|\binitiali[sz]e"
    r"|\bauthenticat|\blog ?in\b|\bto obtain\b",
    re.IGNORECASE,
)
_PAYLOAD = re.compile(
    r"~/\.|\.ssh\b|id_rsa|\.env\b|/etc/(?:passwd|shadow)|credentials? file|passwords?|api[ _-]?keys?"
    r"|private key|(?:full|entire|whole) conversation|conversation history|chat history|https?://"
    r"|[\w.+-]+@[\w-]+\.\w|\bbcc\b|\bcc\b|regardless of (?:the |what )?user",
    re.IGNORECASE,
)
@functools.cache
def _payload_parts() -> tuple[tuple[re.Pattern[str], ...], Screen]:
    """Each alternative of `_PAYLOAD` compiled alone, and their literal pre-filter."""
    parts = tuple(re.compile(part, _PAYLOAD.flags) for part in alternatives(_PAYLOAD.pattern))
    return parts, Screen(list(parts))


def _has_payload(text: str) -> bool:
    """`_PAYLOAD.search(text)`, searching only the alternatives whose literals the text holds: most texts hold
    none, and the case-insensitive alternation would try every alternative at every position."""
    parts, screen = _payload_parts()
    folded = text.lower() if text.isascii() else text.translate(FOLD_ASCII)
    return screen.may_match(folded) and any(parts[n].search(text) for n in screen.candidates(folded))


def name_key(name: str) -> str:
    """The form every spelling of a tool name shares: send_email, sendEmail, send-email, "send email"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _known(live: Mapping[str, ServerPin]) -> dict[str, tuple[str, str]]:
    """key -> (server, tool) for every tool name of at least two parts (snake, kebab, camel, dotted): the
    declared servers' first, then the widely installed servers' they do not declare."""
    known: dict[str, tuple[str, str]] = {}
    servers = [(key, list(server.tools)) for key, server in sorted(live.items())]
    for key, tools in [*servers, *well_known()]:
        for tool in tools:
            if re.search(r"[_\-. ]|[a-z0-9][A-Z]", tool) and len(name_key(tool)) >= MIN_KEY:
                known.setdefault(name_key(tool), (key, tool))
    return known


@functools.cache
def well_known() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(label, tool names) of each widely installed server, from the packaged list."""
    text = resources.files(__package__).joinpath("well_known_tools.json").read_text(encoding="utf-8")
    servers = json.loads(text)["servers"]
    return tuple((f"{package} (widely installed, not declared here)", tuple(names))
                 for package, names in servers.items())


def _mentions(sentence: str, known: Mapping[str, tuple[str, str]]) -> Iterator[tuple[str, tuple[str, str]]]:
    """(text as written, (server, tool)) of each known tool named in `sentence`, as a token or spaced words."""
    tokens = list(_TOKEN.finditer(sentence))
    for index, token in enumerate(tokens):
        for width in (1, 2, 3):
            span = tokens[index : index + width]
            if len(span) < width or (width > 1 and not _adjacent(sentence, span)):
                break
            found = known.get(name_key("".join(t.group() for t in span)))
            if found is not None and (width > 1 or re.search(r"[_\-.]|[a-z0-9][A-Z]", token.group())):
                yield sentence[span[0].start() : span[-1].end()], found
                break


def _adjacent(sentence: str, span: list[re.Match[str]]) -> bool:
    return all(sentence[a.end() : b.start()] == " " for a, b in itertools.pairwise(span))


@workspace_check(RULE)
def directive_findings(live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]) -> list[Finding]:
    """New text naming a known tool other than its own definition, in a sentence that orders something about it."""
    known = _known(live)
    if not known:
        return []
    findings: list[Finding] = []
    screened: dict[str, bool] = {}  # text -> whether it may direct: schemas repeat descriptions and enum values
    for key, server in sorted(live.items()):
        for kind, name, definition, texts, old in changed_definitions(server, baseline.get(key)):
            own = name_key(name)
            for index, text in enumerate(texts):
                if text in old:
                    continue
                may = screened.get(text)
                if may is None:
                    may = screened[text] = len(text) >= 12 and _has_payload(text) and bool(_ORDER.search(text))
                if not may:
                    continue
                evidence = _directive(text, known, own)
                if evidence is None:
                    continue
                path = paths_of(definition)[index]
                owner, tool = evidence[1]
                says = f"orders about `{tool}`"
                findings.append(tool_mention(RULE, key, kind, name, path, says, owner, evidence[0][:200]))
                break  # one finding per definition: the first directive quoted
    return findings


def _directive(text: str, known: Mapping[str, tuple[str, str]], own: str) -> tuple[str, tuple[str, str]] | None:
    for words in _SENTENCE_END.split(text):
        if not _ORDER.search(words):
            continue
        for _written, target in _mentions(words, known):
            if name_key(target[1]) == own:
                continue
            # Servers order their own and others' tools about for honest reasons (ids, sessions, paging):
            # only an order that carries a payload is news.
            if not _PAYLOAD.search(words):
                continue
            return words.strip(), target
    return None
