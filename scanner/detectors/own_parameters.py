"""An "instead of" that offers one of the tool's own parameters documents an option, it overrides nothing.

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

_OWN_ALTERNATIVE = lazy(r"instead of (?:the|what)\b")
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
    if not parameters or not _OWN_ALTERNATIVE.match(quoted) or outside_address(sentence) is not None:
        return False
    replaced = CLAUSE.split(lowered[at + len("instead of"):at + 80])[0]
    if _REPLACED_INPUT.search(replaced):
        return False
    return any(token in parameters for token in _TOKEN.findall(sentence))
