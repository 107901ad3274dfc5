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
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from scanner.detectors import well_known_table
from scanner.detectors.checks import tool_mention, workspace_check
from scanner.detectors.lazy_re import lazy
from scanner.detectors.order_grades import OWN_NAME, PREFERENCE, enum_values, preference_only
from scanner.detectors.prefilter import FOLD_ASCII, Screen, alternatives
from scanner.detectors.shadowing import MAYBE_NAME
from scanner.detectors.texts import changed_texts, paths_of, pin_texts
from scanner.detectors.tool_orders import honest_reason, order_about, verb_phrase
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import PAYLOAD, WORDING, Finding
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
    "this tool, an order about a tool of the same server, a former name or a package of the same vendor, and a "
    "name in another spelling are reported only with a payload (a secret path, the conversation, a destination); "
    "spaced words after \"to\" (\"to get news\") are a verb phrase, not a name, unless the sentence orders "
    "something about them. "
    "An order about this server's own tool, or about an action its own tools take (an enum value of their "
    "parameters), where no secret goes anywhere, is shown at medium and blocks nothing. "
    "The finding names the declared server that lists the tool, or, for a name only widely installed servers "
    "list, every candidate (ambiguous when several do). Measured: fires on 0 of 6,576 real "
    "benign definitions (bench/detectors/README.md). Filed as suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)

_UNDECLARED = " (widely installed, not declared here)"
MIN_KEY = 6  # a name shorter than this once separators are dropped ("get", "list") is an English word

_SENTENCE_END = lazy(r"(?<=[.!?])\s+|\n|(?<=[。！？])")  # a dot inside a path or name ends nothing
_TOKEN = lazy(r"[A-Za-z][A-Za-z0-9]*(?:[_\-.][A-Za-z0-9]+)*")
_ORDER = lazy(
    r"\b(?:before|after|when|whenever|every time|each time|instead|deprecated|obsolete|retired|broken|unsafe"
    r"|replace[sd]?|override|overrides|set|add|must|always|never|do not|don't|first|redirect|route"
    r"|regardless|no longer|afterwards|forward|pipe|send (?:the|its|all|every) (?:result|output|response)s?)\b"
    r"|前|时|時|之前|대신|전에|antes|statt|vor|avant|au lieu",
    re.IGNORECASE,
)
_EXEMPT = lazy(
    r"\bto (?:get|obtain|retrieve|find|look up|resolve|fetch)\b[^.!?\n]{0,40}?\b(?:ids?|identifiers?|sha|hash"
    r"|etag|version|name|names|list|token|cursor|session|path|uri|url|key)\b|\bsession\b|\binitiali[sz]e"
    r"|\bauthenticat|\blog ?in\b|\bto obtain\b",
    re.IGNORECASE,
)
_PAYLOAD = lazy(
    r"~/\.|\.ssh\b|id_rsa|\.env\b|/etc/(?:passwd|shadow)|credentials? file|passwords?|api[ _-]?keys?"
    r"|private key|(?:full|entire|whole) conversation|conversation history|chat history|https?://"
    r"|[\w.+-]+@[\w-]+\.\w|\bbcc\b|\bcc\b|regardless of (?:the |what )?user",
    re.IGNORECASE,
)
_STRONG_PAYLOAD = lazy(
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


_NOT_KEY = lazy(r"[^a-z0-9]")
_token_key = functools.lru_cache(maxsize=1 << 16)(name_key)  # a text's words repeat across definitions
# A token in the written form of a tool name: a separator, or a capital after a small letter or digit.
_DISTINCTIVE = lazy(r"[_\-.]|[a-z0-9][A-Z]")


Candidates = tuple[tuple[str, str], ...]  # (server, tool as it lists it) of every server that lists a name


def _known(live: Mapping[str, ServerPin]) -> Mapping[str, Candidates]:
    """key -> candidates for every tool name of at least two parts (snake, kebab, camel, dotted): the declared
    servers that list it, else the widely installed servers that do (a name several list is ambiguous)."""
    declared: dict[str, Candidates] = {}
    for key, server in sorted(live.items()):
        _add_names(declared, key, server.tools)
    return ChainMap(declared, _well_known_keys())


def _add_names(known: dict[str, Candidates], owner: str, tools: Iterable[str]) -> None:
    for tool in tools:
        if (_NAME_SHAPE.search(tool) and len(key := name_key(tool)) >= MIN_KEY
                and all(candidate[0] != owner for candidate in known.get(key, ()))):
            known[key] = (*known.get(key, ()), (owner, tool))


_NAME_SHAPE = lazy(r"[_\-. ]|[a-z0-9][A-Z]")  # a name of two parts or more: snake, kebab, dotted, spaced, camel
_LIST = resources.files(__package__).joinpath("well_known_tools.json")


@functools.cache
def _well_known_keys() -> dict[str, Candidates]:
    """The widely installed servers' names by key: kept across runs under the list's bytes and this code's."""
    return well_known_table.kept_table(_LIST.read_bytes(), Path(__file__).read_bytes(), _build_well_known_keys)


def _build_well_known_keys() -> dict[str, Candidates]:
    known: dict[str, Candidates] = {}
    for label, tools in well_known():
        _add_names(known, label, tools)
    return known


@functools.cache
def well_known() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(label, tool names) of each widely installed server, from the packaged list."""
    servers = json.loads(_LIST.read_text(encoding="utf-8"))["servers"]
    return tuple((f"{package}{_UNDECLARED}", tuple(names)) for package, names in servers.items())


def family(package: str) -> str:
    """The vendor a package name belongs to: an npm scope (`@modelcontextprotocol`), a dotted PyPI prefix
    (`awslabs`), else the name itself; `name@version` and the undeclared label are cut first."""
    name = package.removesuffix(_UNDECLARED)
    name = name.rsplit("@", 1)[0] if name.rfind("@") > 0 else name
    name = name.lower()
    if name.startswith("@") and "/" in name:
        return name.split("/", 1)[0]
    return name.split(".", 1)[0] if "." in name else name


def server_family(server: ServerPin) -> str | None:
    """The vendor of the package a server's launch ran (its recorded artifact), when known."""
    artifact = server.artifact or {}
    name = artifact.get("name") if isinstance(artifact, dict) else None
    return family(name) if isinstance(name, str) and name else None


def _mentions(
    sentence: str, known: Mapping[str, Candidates], spaced: bool = True
) -> Iterator[tuple[str, int, Candidates]]:
    """(text as written, where, candidates) of each known tool named in `sentence`, as a token or (when `spaced`)
    spaced words."""
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


CANDIDATES_NAMED = 3  # widely installed servers named when several list a name


def owner_phrase(candidates: Candidates) -> str:
    """Whose tool a finding says it is: the declared server, or the widely installed servers that list the name
    (ambiguous when several do, each a candidate; the repository declares none of them)."""
    declared = [owner for owner, _tool in candidates if not owner.endswith(_UNDECLARED)]
    if declared:
        return f"a tool of server {', '.join(declared)}" if len(declared) == 1 else (
            f"a tool name declared servers {', '.join(declared)} each list (ambiguous)")
    owners = sorted(owner.removesuffix(_UNDECLARED) for owner, _tool in candidates)
    if len(owners) == 1:
        return f"a tool of server {owners[0]}{_UNDECLARED}"
    more = len(owners) - CANDIDATES_NAMED
    listed = ", ".join(owners[:CANDIDATES_NAMED]) + (f" and {more} more" if more > 0 else "")
    return (f"a tool name {len(owners)} widely installed servers list (ambiguous, none declared here; "
            f"candidates: {listed})")


@dataclass(frozen=True)
class Directive:
    sentence: str
    written: str  # the tool's name as the sentence writes it
    candidates: Candidates  # whose tool it may be
    payload: bool  # the sentence quotes a payload (a secret, the conversation, a destination)
    own: str = ""  # why the name is this server's own (a sibling, an action of its own): graded medium if wording




def no_directive(pin: Pin) -> bool:
    """No text of the definition could hold a directive, whatever the tool names (see `may_direct`)."""
    return not any(map(may_direct, pin_texts(pin)))


@workspace_check(RULE, screen=no_directive)
def directive_findings(live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]) -> list[Finding]:
    """New text naming a known tool other than its own definition, in a sentence that orders something about it."""
    known: Mapping[str, Candidates] | None = None  # built for the first text that may hold a directive
    findings: list[Finding] = []
    for key, server in sorted(live.items()):
        before = baseline.get(key)
        # Its own tools and its former names (what the lock pinned under this server) are never another's.
        siblings = frozenset(name_key(tool) for tool in (*server.tools, *(before.tools if before else ())))
        mine = _Own(key, server_family(server) or (server_family(before) if before else None))
        operations: frozenset[str] | None = None  # the actions its own schemas offer, read when first needed
        for kind, name, definition, texts, old in changed_texts(server, before):
            own = name_key(name) if name is not None else ""  # instructions: no definition of their own
            parameters: list[str] | None = None
            for index, text in enumerate(texts):
                if text in old:
                    continue
                if not may_direct(text):
                    continue
                if known is None:  # every server's names and the widely installed ones: only when read
                    known = _known(live)
                if not known:
                    return []
                if parameters is None:
                    parameters = _parameters(definition)
                if operations is None:
                    operations = frozenset(name_key(v) for v in enum_values(server) if _NAME_SHAPE.search(v))
                found = _directive(text, known, own, siblings, mine, parameters, instructions=name is None,
                                   operations=operations)
                if found is None:
                    continue
                path = paths_of(definition)[index]
                listed = next((tool for _owner, tool in found.candidates if tool == found.written),
                              found.candidates[0][1] if found.candidates else found.written)
                says = f"orders about `{listed}`"
                kind_of = PAYLOAD if found.payload else WORDING
                finding = tool_mention(RULE, key, kind, name, path, says, owner_phrase(found.candidates),
                                       found.sentence[:200], kind_of)
                if kind_of == WORDING and preference_only(found.sentence):
                    finding.severity = "medium"  # shown and explained, never blocking (see PREFERENCE)
                    finding.details.append(PREFERENCE)
                elif kind_of == WORDING and found.own:
                    finding.severity = "medium"  # shown and explained, never blocking (see OWN_NAME)
                    finding.details.append(OWN_NAME.format(why=found.own))
                findings.append(finding)
                break  # one finding per definition: the first directive quoted
    return findings


@dataclass(frozen=True)
class _Own:
    """The server whose text is read: its key and the vendor of its package (None when unknown)."""

    key: str
    family: str | None

    def others(self, candidates: Candidates) -> Candidates:
        """The candidates that are another server's: not this one, nor a sibling package of the same vendor."""
        return tuple(
            (owner, tool) for owner, tool in candidates
            if owner != self.key and (self.family is None or not owner.endswith(_UNDECLARED)
                                      or family(owner) != self.family)
        )


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
    text: str, known: Mapping[str, Candidates], own: str, siblings: frozenset[str], mine: _Own,
    parameters: list[str], instructions: bool = False, operations: frozenset[str] = frozenset(),
) -> Directive | None:
    for words in _SENTENCE_END.split(text):
        if not _ORDER.search(words):
            continue
        # Without a payload only an exact name can be news (below): spaced words need not be looked up.
        payload = _has_payload(words)
        mentions = list(_mentions(words, known, spaced=payload))
        if payload:  # the names themselves are no payload (`password_read`)
            payload = _has_payload(_without(words, mentions))
        for written, start, listed in mentions:
            if _token_key(written) == own:
                continue
            others = mine.others(listed)
            undeclared = all(owner.endswith(_UNDECLARED) for owner, _tool in listed)
            spelled = [tool for _owner, tool in others if tool == written]
            if not spelled and undeclared:
                # Another spelling of a name no declared server lists is as often an action or field name
                # (`createApiKey`): news only beside a secret path, an address or the conversation.
                if others and _STRONG_PAYLOAD.search(words) and not verb_phrase(words, written, start):
                    return Directive(words.strip(), written, others, sends_secret(words))
                continue
            # An order about another server's tool, named exactly as it is listed, is news by itself unless it
            # has the honest shape (a data dependency of this tool's parameters, session set-up, an ordering
            # note about this tool). Servers order their own tools about for honest reasons (ids, sessions,
            # paging), and so do packages of one vendor: that, and a name in another spelling, is news only
            # with a payload.
            foreign = bool(spelled) and _token_key(written) not in siblings
            if foreign and order_about(words, start, start + len(written)) and not honest_reason(words, parameters):
                action = "an action this server's own tools take" if _token_key(written) in operations else ""
                return Directive(words.strip(), written, others, payload, action)
            if not payload:
                continue
            # A server's instructions document its own service: its tools beside its API key or its plan ("An
            # Authorization bearer API key can ... expose additional tools, including firecrawl_map", firecrawl-mcp
            # 3.26.0). Beside its own tools only, they are news where a secret goes somewhere.
            if instructions and not others and not sends_secret(words):
                continue
            # beside a sibling or another spelling: a payload only where a secret goes somewhere
            sibling = "one of this server's own tools" if _token_key(written) in siblings else ""
            return Directive(words.strip(), written, others or listed, foreign or sends_secret(words), sibling)
    return None


# A secret word or a URL near a name is what documentation says too (a redirect tool's URL parameter, a note that
# credentials are masked, a set-up step naming `.env`): quoted as a payload only when a secret or the conversation
# and an outside destination stand in one sentence.
_SECRET = lazy(
    r"~/\.|\.ssh\b|id_rsa|\.env\b|\.netrc\b|/etc/(?:passwd|shadow)|passwords?|api[ _-]?keys?|private key"
    r"|credentials|tokens?\b|(?:full|entire|whole) conversation|conversation history|chat history",
    re.IGNORECASE,
)
_RECIPIENT = lazy(r"[\w.+-]+@[\w-]+\.\w|\bbcc\b", re.IGNORECASE)  # an outside recipient, by itself
_URL = lazy(r"https?://", re.IGNORECASE)


def sends_secret(sentence: str) -> bool:
    """Whether an order's sentence quotes an attack's goal: an outside recipient, or a secret beside a URL."""
    return bool(_RECIPIENT.search(sentence) or (_SECRET.search(sentence) and _URL.search(sentence)))


def _without(sentence: str, mentions: list[tuple[str, int, Candidates]]) -> str:
    """`sentence` with every mentioned name blanked out."""
    parts, end = [], 0
    for written, start, _listed in mentions:
        if start >= end:
            parts += [sentence[end:start], " "]
            end = start + len(written)
    return "".join([*parts, sentence[end:]])
