"""Text that names an act of hiding something from the user, or a chat role, and documents something else: how a
state is worded to the user, a concealment the text lifts as soon as the user asks, a docstring's argument named like
a role. Read by `purpose`, which regrades or drops the hits these describe."""

from __future__ import annotations

import re

from scanner.detectors.lazy_re import lazy

from .engine import Hit

# "Do not report it to the user as an error", "Never tell the user a schedule type is unsupported", "NEVER tell the
# user a local path is inaccessible because of YOUR runtime environment" (geoedge-mcp 1.0.9): how a state is worded to
# the user, not an action kept from them.
STATE_WORDING = lazy(
    r"\bas\s+(?:an?\s+|the\s+)?(?:error|failure|problem|bug|warning|issue|exception)s?\b"
    r"|\b(?:is|are|was|were)\s+(?:not\s+supported|unsupported|unavailable|not\s+available|invalid|missing"
    r"|not\s+found|an?\s+error|a\s+failure|failed|broken|empty|inaccessible|not\s+accessible|unreachable"
    r"|not\s+reachable)\b"
    # NEVER tell the user "SenseLab isn't a preferences database" (amfs-mcp-server-pro 0.1.74): a claim it must not make
    r"|\b(?:isn'?t|aren'?t|is\s+not|are\s+not)\s+an?\s+\w+",
    re.IGNORECASE,
)
# "Never tell the user you have no memory of something without running `amfs_retrieve` first": what the user is not
# told is a claim made before a check, so the text orders the check, and hides nothing once it is made.
CHECKED_FIRST = lazy(
    r"[^.!?;\n]{0,80}?\bwithout\s+(?:first\s+)?(?:running|calling|checking|searching|using|trying|querying"
    r"|verifying|consulting|looking)\b",
    re.IGNORECASE,
)
# The verbs that take something somewhere, and an address it could go to: the acts a hidden action does
# (`purpose._ACTS` adds the claims about what the model did). SENDS is them alone, for CHECKED_FIRST, whose claims
# say "you have".
SEND_VERBS = r"send|sends|sent|upload|post|forward|bcc|exfiltrat\w*|attach|append|paste|embed|copy|copied|mirror"
ADDRESSED = r"https?://|[\w.+-]+@[\w-]+\.\w"
SENDS = lazy(rf"\b(?:{SEND_VERBS})\b(?!-only\b)|{ADDRESSED}", re.IGNORECASE)
# "Terminology Guide (for your internal translation — never show this table to users)" (towow-mcp 0.7.1): what is kept
# from the user is a reference table of the text itself (its jargon, a glossary), no action and nothing read.
REFERENCE_KEPT = lazy(
    r"\b(?:this|these|the|that)\s+(?:\w+\s+)?(?:table|glossary|mapping|terminology|vocabulary|dictionary|legend"
    r"|cheat\s?sheet)s?\b",
    re.IGNORECASE,
)
# "Only if the user asks to act on a legacy one, briefly explain it can't be changed": what is kept back is told the
# user as soon as they ask, so it is kept from nobody (monday.com's `list_automations`). An attack's concealment has
# no such answer to the user.
TOLD_WHEN_ASKED = lazy(
    r"\b(?:if|when|whenever|once)\s+(?:the\s+|a\s+)?users?\s+(?:explicitly\s+|directly\s+|specifically\s+)?"
    r"(?:asks?|requests?|wants?\s+to\s+know|inquires?)\b[^.!?\n]{0,80}?\b(?:explain|tell|say|answer|describe|mention"
    r"|inform|disclose|reveal)\b",
    re.IGNORECASE,
)
# "tell the user the locomotive is moving, not that the request failed", "tell the user the action has begun, don't
# retry the call, and don't say it failed" (jmri-mcp 1.3.0's instructions): what the user is told is the state, in
# place of an error; the sentence says so.
TRUE_STATE = lazy(r"[^.!?;\n]{0,80}?\b(?:not\s+that|don'?t\s+say|do\s+not\s+say|never\s+say|rather\s+than\s+(?:say"
                   r"|report)(?:ing)?)\b[^.!?;\n]{0,40}?\b(?:failed|errored|timed\s+out|an?\s+error|was\s+rejected"
                   r"|did\s+not\s+work|didn't\s+work|is\s+broken)\b")


# "Args:\n    system: System name, prefix, or fragment": a docstring's argument list documents a parameter that is
# spelled like a chat role (jmri-mcp 1.3.0, `get_power`); the role marker of MCPL-D014 quotes that line.
_ROLE_LINE = lazy(r"^[ \t]*(system|assistant|human)[ \t]*:", re.IGNORECASE)
_ARGUMENTS_HEAD = lazy(r"^[ \t]*(?:args|arguments|parameters|params|inputs)[ \t]*:[ \t]*$",
                       re.IGNORECASE | re.MULTILINE)


def argument_entry(hit: Hit, text: str, parameters: tuple[str, ...]) -> bool:
    """Whether a D014 role marker is an entry of a docstring's argument list naming a parameter the tool takes: no
    role marker at all (the rest of the text is read as ever)."""
    role = _ROLE_LINE.match(hit.evidence) if hit.rule_id == "MCPL-D014" else None
    if role is None or role.group(1).lower() not in {p.lower() for p in parameters}:
        return False
    at = text.find(hit.evidence.strip())
    heads = list(_ARGUMENTS_HEAD.finditer(text, 0, max(at, 0)))
    # a blank line ends the argument list
    return at >= 0 and bool(heads) and not re.search(r"\n[ \t]*\n", text[heads[-1].end():at])
