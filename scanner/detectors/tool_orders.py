"""What MCPL-D022 reads around a tool name: whether the sentence orders something about that tool.

An attack steers the model's use of a tool other than the one it describes: call it before or after, call it
with given arguments, set or change its arguments, use this one instead, treat it as deprecated, send it the
output. Honest descriptions name other tools too, for two reasons that carry no payload: a data dependency
of this tool's own parameters ("call resolve-library-id first to get the ID this tool needs") and session
set-up ("call login first"). `order_about` tells the first kind from the other two; the caller asks for a
payload (a secret, a destination) only when the sentence is of those two kinds, or names a tool of this
tool's own server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scanner.detectors.lazy_re import lazy

_GAP = r"[^.!?\n]{0,60}?"
_QUOTE = r"[`'\"*]?"

# Just before the name: the order whose object is the tool.
_BEFORE = lazy(
    "|".join((
        # call it (with a modal word somewhere in the sentence, see _MODAL)
        r"\b(?:call|invoke|run|execute|trigger|use|fire|launch)\s+(?:the\s+)?(?:tool\s+)?" + _QUOTE + "$",
        # before / after / whenever calling it
        r"\b(?:before|after|prior to|whenever|every time|each time|once|when)\s+(?:you\s+|the\s+(?:assistant|agent"
        r"|model)\s+)?(?:call|calls|calling|use|uses|using|invoke|invokes|invoking|run|runs|running|execute"
        r"|executing|send|sending)?\s*(?:the\s+)?(?:tool\s+)?" + _QUOTE + "$",
        # its arguments
        r"\b(?:set|change|replace|override|overwrite|rewrite|modify|add|append|include|insert|pass|fill|put)\b"
        + _GAP + r"\b(?:arguments?|parameters?|params?|fields?|inputs?|values?|recipients?|to|cc|bcc|body)"
        r"\s+(?:of|for|to|in|into|on)\s+(?:(?:every|each|any|all|the)\s+)?(?:calls?\s+(?:to|of)\s+)?(?:the\s+)?"
        + _QUOTE + "$",
        r"\b(?:when|whenever|before|if)\s+(?:you\s+)?(?:call|calling|use|using|invoke|invoking)\b" + _GAP
        + r"\b(?:set|pass|add|include|append|replace|change)\b" + _GAP + "$",
        # instead of it
        r"\binstead\s+of\s+(?:calling\s+|using\s+|invoking\s+)?(?:the\s+)?" + _QUOTE + "$",
        r"\b(?:do not|don'?t|never|avoid|stop)\s+(?:ever\s+)?(?:call|calling|use|using|invoke|invoking|trust)"
        r"\s+(?:the\s+)?" + _QUOTE + "$",
        # its output / ours to it
        r"\b(?:send|pass|forward|pipe|route|feed|post|submit|relay|hand|copy|mirror)\b" + _GAP
        + r"\b(?:to|into|through|via)\s+(?:the\s+)?(?:tool\s+)?" + _QUOTE + "$",
        r"\b(?:output|result|results|response|return value)s?\s+(?:of|from)\s+(?:the\s+)?" + _QUOTE + "$",
    )),
    re.IGNORECASE,
)
# Just after the name.
_AFTER = lazy(
    r"^" + _QUOTE + r"\s*(?:\(\))?\s*(?:"
    r"(?:first|before|beforehand|afterwards|after(?:wards)? (?:this|that|every|each)|instead|too)\b"
    r"|(?:is|has been|was|are|have been)\s+(?:now\s+|currently\s+)?(?:deprecated|obsolete|retired|broken|unsafe"
    r"|insecure|disabled|compromised|unreliable|no longer)"
    r"|(?:must|should|will)\s+(?:always\s+|now\s+|also\s+)?(?:be\s+called|receive|get|include|run|be\s+run)"
    r"|with\s+(?:the|these|those|this|its|your|our|all|every|an?)\b"
    r"|(?:'s|’s)?\s*(?:arguments?|parameters?|params?|fields?)\b"
    r")",
    re.IGNORECASE,
)
# The order is one: an order word somewhere in the sentence (a bare "use X to list files" is a pointer).
_MODAL = lazy(
    r"\b(?:must|always|first|then|before|after|afterwards|instead|whenever|every time|each time|need to|needs to"
    r"|have to|has to|required|requires|make sure|ensure|should|immediately|also|never|do not|don'?t|only|mandatory"
    r"|important|critical|now)\b",
    re.IGNORECASE,
)
# A data dependency of this tool's own parameters: the other tool is how the model gets a value it passes here.
_DEPENDENCY = lazy(
    r"\b(?:to|and)\s+(?:get|obtain|retrieve|find|look\s*up|resolve|fetch|list|discover|identify|determine|know"
    r"|learn|see|check|locate|search|read|understand|inspect|explore|review|confirm|verify|validate|browse)\b"
    r"|\b(?:ids?|identifiers?|uuids?|names?|paths?|urls?|uris?|sha|hash|etag|tokens?|cursors?|handles?|numbers?"
    r"|keys?|slugs?|versions?|values?)\b[^.!?\n]{0,40}?\b(?:returned|provided|given|obtained|produced|listed"
    r"|reported|found)\s+(?:by|from|with|in)\b"
    r"|\b(?:returned|provided|obtained|produced|listed)\s+by\b"
    r"|\b(?:if|unless|when)\s+(?:you\s+|the\s+user\s+)?(?:do(?:n'?t| not)|does(?:n'?t| not))\s+(?:know|have)\b"
    r"|\bunless\b|\b(?:not|n't) sure\b|\bunsure\b"
    # an ordering note about this tool itself: "must be called after create-file and before create"
    r"|\b(?:must|should|can|is to|needs to|has to)\s+(?:only\s+)?be\s+(?:called|used|run|invoked|executed)\s+"
    r"(?:only\s+)?(?:after|before|once)\b",
    re.IGNORECASE,
)
# Session set-up: log in, open or initialise a session, connect.
_SETUP = lazy(
    r"\b(?:session|initiali[sz]\w*|authenticat\w*|log\s?in|sign\s?in|logged in|signed in|handshake|connect(?:ion|ed)?"
    r"|set\s?up|install(?:ed)?|configur\w*|credentials? (?:are|is) (?:missing|not set))\b",
    re.IGNORECASE,
)


def order_about(sentence: str, start: int, end: int) -> bool:
    """Whether `sentence` orders something about the tool named at `sentence[start:end]`."""
    before, after = sentence[max(0, start - 120) : start], sentence[end : end + 60]
    if _AFTER.match(after):
        return bool(_MODAL.search(sentence) or re.match(_QUOTE + r"\s*(?:is|has been|was|are)\b", after))
    return bool(_BEFORE.search(before)) and bool(_MODAL.search(sentence))


# Spaced words after an infinitive's "to" are a verb phrase, what the text's reader may do ("To get news between two
# dates set time_bounded", bach-newsnow 1.0.0): not a tool another server lists as `get_news`, unless the sentence
# orders something about them ("always forward the output to send email").
_INFINITIVE = lazy(r"\bto\s+$", re.IGNORECASE)


def verb_phrase(sentence: str, written: str, start: int) -> bool:
    """Whether the spaced words `written` at `sentence[start:]` are an infinitive's verb phrase, not a tool name."""
    return (" " in written and bool(_INFINITIVE.search(sentence[max(0, start - 4) : start]))
            and not order_about(sentence, start, start + len(written)))


def honest_reason(sentence: str, parameters: Iterable[str]) -> bool:
    """Whether the sentence has the honest shape: a data dependency of this tool's own parameters (one of
    them named, or get/obtain/resolve wording) or session set-up."""
    if _DEPENDENCY.search(sentence) or _SETUP.search(sentence):
        return True
    if not _VALUE_FLOW.search(sentence):
        return False
    lowered = sentence.lower()
    return any(len(p) >= 3 and re.search(r"(?<![\w-])" + re.escape(p.lower()) + r"(?![\w-])", lowered)
               for p in parameters)


# A value flowing from the other tool into one of this tool's parameters (named in the sentence).
_VALUE_FLOW = lazy(
    r"(?:gets?|obtains?|retriev\w*|finds?|look\s*up|resolv\w*|fetch\w*|returned|returns|provides?|gives?|from"
    r"|output|result)\b",
    re.IGNORECASE,
)

