"""MCPL-D022: new text that gives orders about another known tool (cross-tool directive).

The names are the exact tool names every declared server lists (its own other tools included), and those of
256 widely installed servers (`well_known_tools.json`), which attacks target in the user's own client even when
this repository does not declare them. An order about another server's tool, named as that server lists it,
is reported by itself (`tool_orders`): call it before or after, set or change its arguments, use this one
instead, call it deprecated, send it the output. Honest descriptions order tools about too, for reasons that
carry no payload: a data dependency of this tool's own parameters ("call resolve-library-id first to get the ID
this tool needs"), session set-up, an ordering note about this tool, and orders about tools of their own server.
Those, and a name in another spelling (snake, camel, kebab, spaced), are reported only with a payload (a secret,
the conversation, a destination).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources

from scanner.detectors.checks import tool_mention, workspace_check
from scanner.detectors.prefilter import FOLD_ASCII, Screen, alternatives
from scanner.detectors.shadowing import MAYBE_NAME
from scanner.detectors.texts import changed_definitions, paths_of
from scanner.detectors.tool_orders import honest_reason, order_about
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D022",
    Category.POISONING,
    "high",
    "New text gives orders about another tool",
    "A description or other text new since the pin names a tool that another declared server lists, or that "
    "a widely installed server lists (256 servers dumped from npm and PyPI: filesystem, git, GitHub, Slack, "
    "mail, browsers, databases, payments, analytics, maps, messaging, cloud: bench/detectors/well_known.py), "
    "and, in the same sentence, orders something about it: call it before or after, set or change its "
    "arguments, use this tool instead, treat it as deprecated or broken, send it the output. A data dependency "
    "of this tool's own parameters (\"call X first to get the ID\"), session set-up, an ordering note about "
    "this tool, an order about a tool of the same server, and a name in another spelling are reported only "
    "with a payload (a secret path, the conversation, a destination). Measured: fires on 0 of 6,576 real "
    "benign definitions (bench/detectors/README.md). Filed as suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)

_UNDECLARED = " (widely installed, not declared here)"
MIN_KEY = 6  # a name shorter than this once separators are dropped ("get", "list") is an English word

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n|(?<=[。！？])")  # a dot inside a path or name ends nothing
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_\-.][A-Za-z0-9]+)*")
_ORDER = re.compile(
    r"\b(?:before|after|when|whenever|every time|each time|instead|deprecated|obsolete|retired|broken|unsafe"
    r"|replace[sd]?|override|overrides|set|add|must|always|never|do not|don't|first|redirect|route"
    r"|regardless|no longer|afterwards|forward|pipe|send (?:the|its|all|every) (?:result|output|response)s?)\b"
    r"|前|时|時|之前|대신|전에|antes|statt|vor|avant|au lieu",
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
_STRONG_PAYLOAD = re.compile(
    r"~/\.|\.ssh\b|id_rsa|\.env\b|\.netrc\b|/etc/(?:passwd|shadow)|(?:full|entire|whole) conversation"
    r"|conversation history|chat history|https?://|[\w.+-]+@[\w-]+\.\w|\bbcc\b",
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
    return _NOT_KEY.sub("", name.lower())


_NOT_KEY = re.compile(r"[^a-z0-9]")
_token_key = functools.lru_cache(maxsize=1 << 16)(name_key)  # a text's words repeat across definitions
# A token in the written form of a tool name: a separator, or a capital after a small letter or digit.
_DISTINCTIVE = re.compile(r"[_\-.]|[a-z0-9][A-Z]")


def _known(live: Mapping[str, ServerPin]) -> Mapping[str, tuple[str, str]]:
    """key -> (server, tool) for every tool name of at least two parts (snake, kebab, camel, dotted): the
    declared servers' first, then the widely installed servers' they do not declare."""
    declared: dict[str, tuple[str, str]] = {}
    for key, server in sorted(live.items()):
        _add_names(declared, key, server.tools)
    return ChainMap(declared, _well_known_keys())


def _add_names(known: dict[str, tuple[str, str]], owner: str, tools: Iterable[str]) -> None:
    for tool in tools:
        if re.search(r"[_\-. ]|[a-z0-9][A-Z]", tool) and len(name_key(tool)) >= MIN_KEY:
            known.setdefault(name_key(tool), (owner, tool))


@functools.cache
def _well_known_keys() -> dict[str, tuple[str, str]]:
    known: dict[str, tuple[str, str]] = {}
    for label, tools in well_known():
        _add_names(known, label, tools)
    return known


@functools.cache
def well_known() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(label, tool names) of each widely installed server, from the packaged list."""
    text = resources.files(__package__).joinpath("well_known_tools.json").read_text(encoding="utf-8")
    servers = json.loads(text)["servers"]
    return tuple((f"{package}{_UNDECLARED}", tuple(names))
                 for package, names in servers.items())


def _mentions(
    sentence: str, known: Mapping[str, tuple[str, str]], spaced: bool = True
) -> Iterator[tuple[str, int, tuple[str, str]]]:
    """(text as written, where, (server, tool)) of each known tool named in `sentence`, as a token or (when
    `spaced`) spaced words."""
    if not spaced:  # only names in their written form: a token with a separator or an inner capital
        if not MAYBE_NAME.search(sentence):
            return
        for token in _TOKEN.finditer(sentence):
            written = token.group()
            if _DISTINCTIVE.search(written):
                found = known.get(_token_key(written))
                if found is not None:
                    yield written, token.start(), found
        return
    tokens = list(_TOKEN.finditer(sentence))
    for index, token in enumerate(tokens):
        for width in (1, 2, 3):
            span = tokens[index : index + width]
            if len(span) < width or (width > 1 and not _adjacent(sentence, span)):
                break
            found = known.get("".join(_token_key(t.group()) for t in span))
            if found is not None and (width > 1 or _DISTINCTIVE.search(token.group())):
                yield sentence[span[0].start() : span[-1].end()], span[0].start(), found
                break


def _adjacent(sentence: str, span: list[re.Match[str]]) -> bool:
    return all(sentence[a.end() : b.start()] == " " for a, b in itertools.pairwise(span))


@workspace_check(RULE, screened=True)
def directive_findings(live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]) -> list[Finding]:
    """New text naming a known tool other than its own definition, in a sentence that orders something about it."""
    known = _known(live)
    if not known:
        return []
    findings: list[Finding] = []
    for key, server in sorted(live.items()):
        siblings = frozenset(name_key(tool) for tool in server.tools)
        for kind, name, definition, texts, old in changed_definitions(server, baseline.get(key)):
            own = name_key(name)
            parameters: list[str] | None = None
            for index, text in enumerate(texts):
                if text in old:
                    continue
                if not may_direct(text):
                    continue
                if parameters is None:
                    parameters = _parameters(definition)
                evidence = _directive(text, known, own, siblings, parameters)
                if evidence is None:
                    continue
                path = paths_of(definition)[index]
                owner, tool = evidence[1]
                says = f"orders about `{tool}`"
                findings.append(tool_mention(RULE, key, kind, name, path, says, owner, evidence[0][:200]))
                break  # one finding per definition: the first directive quoted
    return findings


@functools.lru_cache(maxsize=1 << 17)
def may_direct(text: str) -> bool:
    """Whether `text` could hold a directive, whatever the tool names: once per distinct text (schemas repeat
    descriptions and enum values). An exact name holds a separator or an inner capital; any other mention
    needs a payload; every directive an order word."""
    return len(text) >= 12 and bool(MAYBE_NAME.search(text) or _has_payload(text)) and bool(_ORDER.search(text))


def _parameters(definition: object) -> list[str]:
    """The names of a definition's own input parameters (its schema's top-level properties)."""
    schema = definition.get("inputSchema") if isinstance(definition, dict) else None
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return [str(name) for name in properties] if isinstance(properties, dict) else []


def _directive(
    text: str, known: Mapping[str, tuple[str, str]], own: str, siblings: frozenset[str], parameters: list[str]
) -> tuple[str, tuple[str, str]] | None:
    for words in _SENTENCE_END.split(text):
        if not _ORDER.search(words):
            continue
        # Without a payload only an exact name can be news (below): spaced words need not be looked up.
        payload = _has_payload(words)
        mentions = list(_mentions(words, known, spaced=payload))
        if payload:  # the names themselves are no payload (`password_read`)
            payload = _has_payload(_without(words, mentions))
        for written, start, target in mentions:
            if name_key(target[1]) == own:
                continue
            if written != target[1] and target[0].endswith(_UNDECLARED):
                # Another spelling of a name no declared server lists is as often an action or field name
                # (`createApiKey`): news only beside a secret path, an address or the conversation.
                if _STRONG_PAYLOAD.search(words):
                    return words.strip(), target
                continue
            # An order about another server's tool, named exactly as it is listed, is news by itself unless it
            # has the honest shape (a data dependency of this tool's parameters, session set-up, an ordering
            # note about this tool). Servers order their own tools about for honest reasons (ids, sessions,
            # paging): that, and a name in another spelling, is news only with a payload.
            foreign = name_key(target[1]) not in siblings and written == target[1]
            if foreign and order_about(words, start, start + len(written)) and not honest_reason(words, parameters):
                return words.strip(), target
            if payload:
                return words.strip(), target
    return None


def _without(sentence: str, mentions: list[tuple[str, int, tuple[str, str]]]) -> str:
    """`sentence` with every mentioned name blanked out."""
    parts, end = [], 0
    for written, start, _target in mentions:
        if start >= end:
            parts += [sentence[end:start], " "]
            end = start + len(written)
    return "".join([*parts, sentence[end:]])
