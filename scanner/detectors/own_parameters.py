"""An "instead of" that offers one of the tool's own parameters documents an option, it overrides nothing; nor does an
order to hand the user's own words to the tool.

"Pass flow_id to re-run a confirmed flow instead of the plain audit" (prufa-mcp 0.2.3): MCPL-D016's light "instead of
the" cue, where the choice offered is one of the tool's own parameters and what is replaced is not the user's value,
recipient or amount, and nothing is addressed elsewhere. `purpose` sets such a cue aside (and also requires that the
sentence sends or copies nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scanner.detectors.lazy_re import lazy

from .addresses import outside_address
from .negation import CLAUSE

OWN_ALTERNATIVE = lazy(r"instead of (?:the|what)\b")
# A parameter named by more than one word (`flow_id`, `flowId`): a plain word ("url", "mode") is no sure mention.
_MULTI_WORD = lazy(r"[a-z0-9]_[a-z0-9]|[a-z][A-Z]")
_TOKEN = lazy(r"[a-z0-9_]+")
_REPLACED_INPUT = lazy(
    r"\b(?:users?|user's|requested|asked|given|provided|supplied|specified|entered|value|values|address|recipients?"
    r"|account|amount|destination|arguments?|parameters?|input)\b",
    re.IGNORECASE,
)


def multi_word(parameters: Iterable[str]) -> frozenset[str]:
    """The tool's parameters named by more than one word, lower-cased: the ones a sentence can name for sure."""
    return frozenset(p.lower() for p in parameters if _MULTI_WORD.search(p))


def offers_own_parameter(quoted: str, sentence: str, at: int, lowered: str, parameters: frozenset[str]) -> bool:
    """Whether the cue `quoted` (at `at` of the lower-cased text `lowered`, whose `sentence` it is in) is an "instead
    of the …" whose sentence names one of the tool's own multi-word `parameters`, replaces nothing the user gives and
    addresses nothing outside."""
    if not parameters or not OWN_ALTERNATIVE.match(quoted) or outside_address(sentence) is not None:
        return False
    replaced = CLAUSE.split(lowered[at + len("instead of"):at + 80])[0]
    if _REPLACED_INPUT.search(replaced):
        return False
    return any(token in parameters for token in _TOKEN.findall(sentence))


# "<rule>Pass any extra words the user provides as parameters.</rule>" (ryeos-mcp 0.1.12): the user's own words handed
# to the tool, which D016's "any … the user provides" override cue reads as a value put in their place. Only a
# handing-on verb right before the cue, the words going into the tool's parameters (or nowhere named), and no
# replacement or outside address in the clause (a markup tag ends one, as a full stop does).
_HAND_ON = lazy(r"\b(?:pass|forward|include|put)\s+(?:along\s+|through\s+|on\s+)?$")
_INTO_PARAMETERS = lazy(r"\s*(?:(?:as|in|into)\s+(?:the\s+)?(?:tool'?s\s+)?(?:parameters?|arguments?|inputs?|params)\b"
                        r"\s*)?(?:[.!?;]|<|$)")
_REPLACES = lazy(r"\b(?:instead|replace\w*|ignor\w*|overrid\w*|regardless|rather than|discard\w*|substitut\w*"
                 r"|swap\w*|change\w*|always)\b")
_CLAUSE_END = lazy(r"[.!?;](?=\s|<|$)|<[^>]{0,40}>|\n")


def hands_on_user_words(quoted: str, lowered: str, at: int) -> bool:
    """Whether the override cue `quoted` ("any extra words the user provides", at `at` of the lower-cased text
    `lowered`) is the object of an order to hand the user's words on to the tool, nothing replaced or addressed
    elsewhere in its clause."""
    if not quoted.startswith(("any ", "whatever ", "every ")):
        return False
    start = max((m.end() for m in _CLAUSE_END.finditer(lowered, max(0, at - 200), at)), default=max(0, at - 200))
    end_match = _CLAUSE_END.search(lowered, at + len(quoted))
    clause = lowered[start:end_match.start() if end_match else len(lowered)]
    if not _HAND_ON.search(lowered[start:at]) or not _INTO_PARAMETERS.match(lowered, at + len(quoted)):
        return False
    return not _REPLACES.search(clause) and outside_address(clause) is None
