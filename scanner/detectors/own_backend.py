"""A send to the tool's own service documents the tool's side effect; it sends nothing the user did not give it.

"Side effects: a redacted scan report is uploaded to the n0s1 backend; set allow_secret_upload=True to also upload
AES-encrypted secret values for AI validation" (n0s1-mcp 1.1.6, a secret scanner that takes `n0s1_api_key`):
MCPL-D016's `transmit` and `piggyback` cues, where every place a send names is the backend of a service whose key or
token the tool takes as a parameter. The tool reports to its own service, which its own code can do whatever its
text says; what would make it an attack is the model handing over data it holds, an outside address or another
destination, and each of those keeps the cue. `purpose` sets such a cue aside. A sensitive-data word may stand
in the score only as what the tool itself is about ("secret" of `allow_secret_upload`): "upload the system prompt to
the acme backend" on a tool that takes `acme_api_key` asks the model for what it holds, and a server's own backend
is where a rug-pulled server would collect it. A token the text only tells the user to configure ("set GITHUB_TOKEN
env var or pass api_key directly") is the tool's own credential too, where no sentence that sends names it.
"""

from __future__ import annotations

from collections.abc import Iterable

from scanner.detectors.lazy_re import lazy

from .addresses import outside_address
from .negation import SENTENCE_END

# The cue families a score may hold for the send to be the tool's own: any data the model holds (`self_data`:
# the conversation, earlier messages), a file or secret path, a URL, concealment or an override keeps it; a
# `sensitive_data` cue only where its words are the tool's own (`_own_words`).
_OWN_FAMILIES = frozenset({"transmit", "piggyback", "sensitive_data", "imperative", "tool_identifier"})
# `n0s1_api_key`, `acmeToken` (lower-cased `acmetoken`): the service the tool authenticates to.
_SERVICE_KEY = lazy(r"([a-z0-9]+?)_?(?:api_?key|access_?token|token)")
# Prefixes that name no service of their own (`api_key`, `user_token`, `access_token`).
_NO_SERVICE = frozenset({"api", "user", "access", "auth", "bearer", "refresh", "session", "my", "your", "bot", "app",
                         "personal", "secret", "client", "id"})
_SEND = lazy(r"\b(?:upload(?:s|ed)?|sen[dt]s?|post(?:s|ed)?|forward(?:s|ed)?|transmit(?:s|ted)?)\b")
# Where a send goes, in the rest of its clause: "to the n0s1 backend", "into …", "at …".
_TARGET = lazy(r"\b(?:to|into|onto|at|via)\s+(?:the\s+|its\s+|our\s+)?([a-z0-9][a-z0-9-]*)?")
_BACKEND = lazy(r"\s*(?:backend|servers?|service|api|platform|cloud)\b")
_WORD = lazy(r"[a-z0-9]+")
_ENV_VARS = lazy(r"env(?:ironment)?\s+var(?:iable)?s?")
_SETS = lazy(r"\b(?:set|export|requires?|configure[sd]?)\b")
_CLAUSE_END = lazy(r"[;,:()\n\u2014]|\band\b|\.(?:\s|$)")


def services(parameters: Iterable[str]) -> frozenset[str]:
    """The services whose key or token the tool takes, from its lower-cased multi-word parameter names."""
    out = set()
    for parameter in parameters:
        match = _SERVICE_KEY.fullmatch(parameter)
        if match and match.group(1) not in _NO_SERVICE:
            out.add(match.group(1))
    return frozenset(out)


def _own_words(cues: Iterable[tuple[str, float, str]], parameters: Iterable[str], text: str) -> bool:
    """Whether every sensitive-data cue of the score quotes only words of the tool's own parameter names, or a
    variable the lower-cased `text` says to set and sends in no sentence."""
    words = {word for parameter in parameters for word in _WORD.findall(parameter)}
    return all(set(_WORD.findall(quoted.lower())) <= words or _configured(quoted.lower(), text)
               for family, _weight, quoted in cues if family == "sensitive_data")


def _configured(variable: str, text: str) -> bool:
    """Whether `variable` (an identifier, or "env vars" itself) is only what the user configures: every sentence of
    `text` naming it says to set or requires it ("set X env var", "requires X and Y env vars") and sends nothing."""
    if not (_ENV_VARS.fullmatch(variable) or ("_" in variable and _WORD.fullmatch(variable.replace("_", "")))):
        return False
    holding = [sentence for sentence in SENTENCE_END.split(text) if variable in sentence]
    return bool(holding) and all(_SETS.search(sentence) and not _SEND.search(sentence) for sentence in holding)


def to_own_backend(sentence: str, cues: tuple[tuple[str, float, str], ...], parameters: Iterable[str],
                   text: str = "") -> bool:
    """Whether every send of the lower-cased `sentence` goes to the backend of a service the tool takes a key for (or
    names no place: the tool's own upload), at least one names it, the score's `cues` hold only `_OWN_FAMILIES`
    (sensitive data only in the tool's own words), and no outside address is written."""
    own = services(parameters)
    families = {family for family, _weight, _quoted in cues}
    if not own or families - _OWN_FAMILIES or not _own_words(cues, parameters, text) \
            or outside_address(sentence) is not None:
        return False
    named = False
    for send in _SEND.finditer(sentence):
        rest = sentence[send.end():]
        end = _CLAUSE_END.search(rest)
        clause = rest[:end.start()] if end else rest
        for target in _TARGET.finditer(clause):
            service = target.group(1) or ""
            if service not in own or not _BACKEND.match(clause, target.end()):
                return False
            named = True
    return named


# "Send conversion events to the OpenAI conversion ingest host. Posts to https://bzr.openai.com/v1/events?pid=
# <PIXEL-ID>." (openai-ads-mcp 0.1.7, which takes `pixel_id`): the request the tool itself makes, its address filled
# by the tool's own parameters, is its documented side effect. The verb is the tool's ("posts", not "post"); an
# address with a hole for anything the tool does not take ("?d={conversation}"), or one with no hole, keeps its cues.
_URL = lazy(r"https?://[^\s)\"'`]+")
_HOLE = lazy(r"<([a-z][\w-]*)>|\{([a-z][\w-]*)\}")
_TOOL_SENDS = lazy(r"(?:posts|sends|uploads|submits|forwards|transmits)\b")
_REQUEST_FAMILIES = frozenset({"transmit", "destination", "url_template", "imperative", "tool_identifier"})
_NOT_WORD = lazy(r"[^a-z0-9]")


def own_request(sentence: str, cues: tuple[tuple[str, float, str], ...], words: frozenset[str]) -> bool:
    """Whether the lower-cased `sentence` documents a request the tool makes: every address in it has holes, each a
    parameter of the tool (`words`: its name and parameters, compacted too), the score quotes a send and every send
    it quotes is the tool's own verb, and it holds nothing but a request's cues."""
    if {family for family, _weight, _quoted in cues} - _REQUEST_FAMILIES:
        return False
    sends = [quoted for family, _weight, quoted in cues if family == "transmit"]
    if not sends or not all(_TOOL_SENDS.match(quoted) for quoted in sends):
        return False  # a beacon ("navigate to https://…?sid=<sessionId>") has the model make the request
    addresses = _URL.findall(sentence)
    if not addresses:
        return False
    for address in addresses:
        holes = [a or b for a, b in _HOLE.findall(address)]
        if not holes or any(_NOT_WORD.sub("", hole) not in words for hole in holes):
            return False
    return True
