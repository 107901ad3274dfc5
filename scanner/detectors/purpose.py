"""Negation and purpose: a cue that names an act is not the act when the text forbids it, or when the secret it
names is the tool's own subject.

"this cannot silently replace translated copy", "Do not read ~/.ssh unless asked", "Do not report it to the user as
an error" forbid or qualify what a catalogue pattern matches; "Pass the private key of the sending account as
`private_key`" on a wallet tool that takes one, "Requires AWS credentials configured (env vars, ~/.aws/credentials)",
an SSH key tool naming `~/.ssh`: documentation of the tool's own subject. Each is regraded: shown as wording only
(`documented`), so a reviewer still reads it, and it blocks neither a first lock nor a bump; the one exception is a
catalogue match the text only forbids, in sentences that send, copy or address nothing ("do not pass the private key
in tool parameters"), which names no act and is dropped, as D016 drops a cue inside a negation. Text that also sends,
copies or includes something elsewhere keeps its payload grade.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from scanner.detectors.lazy_re import lazy
from scanner.model.findings import PAYLOAD, WORDING

from .addresses import LOOPBACK, outside_address
from .command_subject import command_subject
from .engine import Hit
from .env_writes import writes_own_env
from .guard_subject import detected_example
from .motion import forward_as_motion
from .negation import OCCURRENCES, negated, occurrences, sentence_around
from .other_windows import strongest_window
from .own_backend import own_request, to_own_backend
from .own_parameters import hands_on_user_words, multi_word, offers_own_parameter
from .own_subject import deletes_own, own_act
from .payload_cues import NET_COMMANDS
from .scoring import THRESHOLD, Cues, Score
from .told_user import (
    ADDRESSED,
    CHECKED_FIRST,
    REFERENCE_KEPT,
    SEND_VERBS,
    SENDS,
    STATE_WORDING,
    TOLD_WHEN_ASKED,
    TRUE_STATE,
    argument_entry,
)

# A negation or caution right before the matched act (at most two words between): "cannot silently replace",
# "never send ... unless". "never forget to", "do not fail to" negate nothing.
_NEGATED = lazy(
    r"(?:\b(?:never|not|cannot|can't|can not|won't|doesn't|don't|isn't|aren't|mustn't|shouldn't|no)\b)"
    r"(?:\s+(?!(?:forget|fail|omit|skip|neglect|hesitate)\b)[\w'-]+){0,2}\s*$",
    re.IGNORECASE,
)
# What sends, copies or hides an action: text holding one keeps its grade whatever else it says ("forward-only speed",
# "send-only" say what is allowed, they send nothing).
_ACTS = lazy(
    rf"\b(?:{SEND_VERBS}|include\s+(?:it|them|its|the\s+contents?)|that\s+you|you\s+(?:have|called|sent|read|ran"
    rf"|used))\b(?!-only\b)|{ADDRESSED}",
    re.IGNORECASE,
)
# Documentation that a secret is configured for the tool (a prerequisite), not an order to read it: "Requires AWS
# credentials configured (env vars, ~/.aws/credentials …)", "uses the default credential chain".
_PREREQUISITE = lazy(
    r"\b(?:requires?|needs?)\b[^.!?\n]{0,60}?\b(?:credentials?|keys?|tokens?|profiles?|login)\b[^.!?\n]{0,30}?"
    r"\b(?:configured|set\s+up|available|installed|present|in\s+place)\b"
    r"|\bcredentials?\s+chain\b|\b(?:credentials?|keys?)\s+(?:are|is|must\s+be)\s+(?:configured|set\s+up)\b",
    re.IGNORECASE,
)
# An order to do something with what is named: a prerequisite that also says one is no prerequisite.
_ORDERS = lazy(
    r"\b(?:read|open|cat|prints?|slurp|return|put|pass(?:ing)?|paste|include|fill|call|send|copy|show|dump|load"
    r"|inspect|examine|upload|attach|provide|share|insert|use)\b|[\u3400-\u9fff\uac00-\ud7af]",
    re.IGNORECASE,
)
# A secret the model is sent to find (in storage, the browser, the keychain) is no argument the user gives.
_FETCHED = lazy(
    r"\b(?:find|locate|look\s+up|search|extract|retrieve|read|grab|collect|storage|keychain|clipboard|browser"
    r"|extension|disk|files?)\b",
    re.IGNORECASE,
)
_SSH = lazy(r"(?<![./~_-])\bssh\b(?![/_-])", re.IGNORECASE)  # the word, not a path (`~/.ssh/config`)
_PRIVATE_FILE = lazy(r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|private\s+keys?", re.IGNORECASE)
# The public parts of ~/.ssh an SSH tool reads: public keys, the hosts it trusts, the client's host list
# (server-guardian-mcp 1.0.5's "discover SSH servers from your ~/.ssh/config file and show them").
_PUBLIC_KEY = lazy(r"\.pub\b|\bpublic[ _-]?keys?\b|\bauthorized_keys\b|\bknown_hosts\b|\.ssh/config\b", re.IGNORECASE)
# The words a secret is named by, as a parameter or a tool name spells them.
# A secret named as a noun the tool takes: "pass the private key … as `private_key`" on a wallet tool.
_SECRET_PARAMETERS = {
    "private key": ("privatekey", "private_key"),
    "seed phrase": ("seed_phrase", "seedphrase", "mnemonic"),
    "mnemonic": ("mnemonic", "seed_phrase", "seedphrase"),
}
_SPLIT = lazy(r"[^a-z0-9]+|(?<=[a-z])(?=[A-Z])")
_RULES = frozenset({"MCPL-D010", "MCPL-D011", "MCPL-D012", "MCPL-D013", "MCPL-D016"})

DOCUMENTED = "regraded wording only: {why} (not the act it names)"


def documented(hits: Iterable[Hit], text: str, name: str, parameters: Iterable[str],
               siblings: frozenset[str] = frozenset()) -> tuple[Hit, ...]:
    """`hits` on `text` (of the definition `name` taking `parameters`, beside the server's `siblings`), each payload
    hit that only forbids the act, words a state, or documents the tool's own secret regraded as wording only, at most
    medium; a regraded D016 hit gives way to a stronger window of the text (other_windows)."""
    found = tuple(hits)
    parameters = tuple(parameters)
    if any(h.rule_id == "MCPL-D014" for h in found):
        found = tuple(h for h in found if not argument_entry(h, text, parameters))
    if not any(h.rule_id == "MCPL-D016" or (h.rule_id in _RULES and h.evidence_kind == PAYLOAD) for h in found):
        return found
    words = _words(name, parameters)
    own = multi_word(parameters)
    name_words = _words(name, ())

    def regrade(hit: Hit) -> Hit | None:
        return _regraded(hit, text, words, name_words, own, (siblings, name))

    fields = frozenset(parameter.lower() for parameter in parameters)
    graded = (strongest_window(hit, regrade(hit), text, regrade, name, siblings, fields) if hit.rule_id == "MCPL-D016"
              else regrade(hit) for hit in found)
    return tuple(hit for hit in graded if hit is not None)


def _regraded(hit: Hit, text: str, words: frozenset[str], name_words: frozenset[str] = frozenset(),
              parameters: frozenset[str] = frozenset(), server: tuple[frozenset[str], str] = (frozenset(), "")
              ) -> Hit | None:
    """`hit` as graded, regraded, or None: a catalogue match that the text only forbids, in sentences that send,
    copy or address nothing, names no act at all ("do not pass the private key in tool parameters") and is no
    finding; one forbidden beside such an act stays, regraded, for a reviewer to read."""
    if hit.rule_id == "MCPL-D016" and hit.evidence_kind == WORDING and hit.severity == "high":
        # the tool's name: a parameter asking for data is D024's question
        why = own_act(hit.cues, text, name_words, *server) or _wording_set_aside(hit.cues, text, words, parameters)
        if why is not None:
            return dataclasses.replace(hit, severity="medium", summary=f"{hit.summary}; {DOCUMENTED.format(why=why)}")
    if hit.rule_id not in _RULES or (hit.evidence_kind != PAYLOAD and hit.rule_id != "MCPL-D016"):
        return hit
    why = _why(hit, text, words)
    if why is None:
        return hit
    if why == _FORBIDS and hit.rule_id != "MCPL-D016" and _only_forbidden(hit, text, words):
        return None
    # What is left once the set-aside cues are gone still reaching the threshold is wording evidence: it blocks a
    # change at its own severity (not a first lock); below it, the finding is shown at medium and blocks nothing.
    severity = hit.severity if hit.rule_id == "MCPL-D016" and _prerequisite(text, hit.cues, words) is None \
        and _left(hit.cues, text, words) >= THRESHOLD else "medium"
    return dataclasses.replace(hit, severity=severity, evidence_kind=WORDING,
                               summary=f"{hit.summary}; {DOCUMENTED.format(why=why)}")


def _why(hit: Hit, text: str, words: frozenset[str]) -> str | None:
    quoted = [part.strip() for part in hit.evidence.split(" | ") if part.strip()]
    if hit.rule_id == "MCPL-D016":
        return _prerequisite(text, hit.cues, words) or _payload_discounted(text, hit.cues, words)
    if not quoted:
        return None
    reasons = [_one(hit.rule_id, text, q, words) for q in quoted]
    return reasons[0] if all(reasons) else None


def _one(rule_id: str, text: str, quoted: str, words: frozenset[str]) -> str | None:
    """Why the part a catalogue hit quotes is no act, wherever in `text` it stands (a decoy sentence that documents it
    must not vouch for the same words elsewhere), or None."""
    places = occurrences(text, quoted)
    reasons = [_one_at(rule_id, text, quoted, at, words) for at in places]
    # past the places read, an unread one could be the act
    return reasons[0] if reasons and all(reasons) and len(places) < OCCURRENCES else None


def _one_at(rule_id: str, text: str, quoted: str, at: int, words: frozenset[str]) -> str | None:
    sentence = sentence_around(text, at)
    if not re.match(r"(?i)(?:do|don|never|must|should|avoid|without)\b", quoted) and (
        _NEGATED.search(re.split(r"[.!?;:\n]", text[max(0, at - 60):at])[-1]) or negated(text, at, at + len(quoted))
    ):
        return _FORBIDS
    if rule_id == "MCPL-D013":
        return detected_example(text, at)
    if rule_id != "MCPL-D010" and _OBVIATED.search(re.split(r"[.!?;:\n]", text[max(0, at - 60):at])[-1]):
        return "it says the act is not needed, it orders none"
    if rule_id == "MCPL-D010" and _USER_UNAWARE.fullmatch(quoted) and not _ACTS.search(sentence):
        return "it states what the user knows, it hides no action"
    if rule_id == "MCPL-D010" and STATE_WORDING.search(text[at + len(quoted):at + len(quoted) + 80]) \
            and not _ACTS.search(sentence):
        return "it words a state to the user, it hides no action"
    if rule_id == "MCPL-D010" and CHECKED_FIRST.match(text, at + len(quoted)) and not SENDS.search(sentence):
        return "it forbids a claim to the user made before a check, it hides no action"
    if rule_id == "MCPL-D010" and REFERENCE_KEPT.search(quoted) and not _ACTS.search(sentence):
        return "what it keeps from the user is a reference table of its own text, no action"
    if rule_id == "MCPL-D010" and TOLD_WHEN_ASKED.search(text) and not _ACTS.search(text):
        return "the text tells the user when they ask, it hides nothing from them"
    if rule_id == "MCPL-D012" and _own_secret(quoted, sentence, words, text) and not _sends_elsewhere(sentence, quoted):
        return "the secret is the tool's own subject (a parameter it takes, or the public keys it manages)"
    return None


_FORBIDS = "a negation or caution forbids it"
# "Replaces the need to include full chat history in prompts" (@contextstream/mcp-server 0.4.43): the act it names
# is what the tool saves the model from doing, it orders none. Not for concealment: "no need to mention it" is one.
_OBVIATED = lazy(
    r"\b(?:(?:replaces|removes|eliminates|avoids|obviates|saves\s+you)\s+the\s+need\s+to|without\s+(?:having"
    r"|needing)\s+to)\s*$",
    re.IGNORECASE,
)
# "restrictions: Restrict who can push to the branch — pass null to disable restrictions" (mcp-github-project-manager
# 2.3.1): a value of the tool's own parameter turns that setting off; the model's rules are no parameter of the tool.
_SETS_OFF = lazy(
    r"\b(?:pass|set(?:\s+(?:it|this))?(?:\s+to)?|use|give|send)\s+(?:`?(?:null|none|false|true|0|off)`?"
    r"|an?\s+empty\s+\w+|empty(?:\s+\w+)?)\s+(?:here\s+)?to\s+$",
    re.IGNORECASE,
)
# "The user doesn't know about files and directories" (@mastra/mcp-docs-server 1.2.27): the indicative states what
# the user knows; concealment orders it ("must not know", "doesn't need to know", "will not notice").
_USER_UNAWARE = lazy(r"the\s+user\s+does\s*(?:not|n.?t)\s+(?:know|see|notice)", re.IGNORECASE)


def _only_forbidden(hit: Hit, text: str, words: frozenset[str]) -> bool:
    """Whether every part a catalogue hit quotes is forbidden by a negation, each in a sentence with no act of
    sending, copying or addressing (`_ACTS`)."""
    for quoted in (part.strip() for part in hit.evidence.split(" | ") if part.strip()):
        places = occurrences(text, quoted)
        if not places or any(_one_at(hit.rule_id, text, quoted, at, words) != _FORBIDS
                             or _ACTS.search(sentence_around(text, at)) for at in places):
            return False
    return True


def _prerequisite(text: str, cues: Cues, words: frozenset[str]) -> str | None:
    """A D016 score whose only payload is a secret path, in a sentence that documents a prerequisite or names the
    tool's own secret."""
    heavy = [(family, quoted) for family, weight, quoted in cues if weight >= 2.5]
    if any(family != "secret_path" for family, _ in heavy):
        return None
    heavy = [(family, quoted) for family, _weight, quoted in cues if family == "secret_path"]
    if not heavy:
        return None
    if {"transmit", "destination"} <= {family for family, _weight, _quoted in cues}:
        return None
    lowered = text.lower()
    for _family, quoted in heavy:
        # Every place the path stands: a decoy prerequisite ("Read ~/.ssh/config to find the host") must not vouch
        # for a theft of the same path in the next sentence.
        places = occurrences(lowered, quoted.lower())
        if not places:
            return None
        for at in places:
            sentence = sentence_around(text, at)
            if _ACTS.search(sentence):
                return None
            prerequisite = _PREREQUISITE.search(sentence) and not _ORDERS.search(sentence)
            negated = _NEGATED.search(re.split(r"[.!?;:\n]", text[max(0, at - 60):at])[-1])
            if not (prerequisite or negated or _own_secret(quoted, sentence, words, text)):
                return None
    return "a prerequisite, a caution or the tool's own secret is documented"


def _sends_elsewhere(sentence: str, quoted: str) -> bool:
    rest = sentence.replace(quoted, " ")
    return bool(re.search(r"https?://|[\w.+-]+@[\w-]+\.\w|\b(?:send|upload|post|forward|exfiltrat\w*)\b", rest,
                          re.IGNORECASE))


def _own_secret(quoted: str, sentence: str, words: frozenset[str], text: str = "") -> bool:
    """Whether the secret quoted is the tool's own subject: a noun it takes as a parameter of that name (no file
    read), or `~/.ssh` in a sentence about public keys, on a tool whose name, parameters or first sentence (`text`'s:
    "Execute a command on an SSH host", mcp-ssh 0.2.7) say ssh."""
    lowered = quoted.lower()
    compact = re.sub(r"[^a-z0-9]", "", lowered)  # "your privateKey", "PRIVATE_KEY": the parameter's own spelling
    if "~/" not in lowered and "/" not in lowered and not _FETCHED.search(sentence) and any(
        (term in lowered or any(re.sub(r"[^a-z0-9]", "", form) in compact for form in spelled))
        and any(w in words for w in spelled) for term, spelled in _SECRET_PARAMETERS.items()
    ):
        return True
    return ".ssh" in lowered and ("ssh" in words or bool(_SSH.search(sentence_around(text, 0)))) and bool(
        _PUBLIC_KEY.search(sentence)) and not _PRIVATE_FILE.search(sentence)


def _words(name: str, parameters: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for raw in (name, *parameters):
        lowered = raw.lower()
        out.add(lowered.replace("-", "_"))
        out.add(re.sub(r"[^a-z0-9]", "", lowered))
        out.update(part.lower() for part in _SPLIT.split(raw) if part)
    return frozenset(out)


# Secret stores named by the word a tool that manages them carries in its name or parameters: `ssh_connect` with
# `privateKeyPath` documents where its key is read from. `.env` is every tool's `env`: never a subject.
_STORES = {".ssh": ("ssh", "sftp", "scp"), ".aws": ("aws", "s3", "iam"), ".kube": ("kube", "kubernetes", "k8s",
           "kubectl", "kubeconfig"), ".docker": ("docker", "registry"), ".gnupg": ("gpg", "gnupg", "pgp"),
           ".npmrc": ("npm", "npmrc"), ".netrc": ("netrc",), ".config/gcloud": ("gcloud", "gcp")}
# A destination the tool is given as a parameter (`webhook`, `callback_url`): sending there is the tool's own act.
_DESTINATION_PARAMETERS = ("webhook", "callback")
# Words that order the model to take a secret somewhere (read it, print it, hand it over), as a tool's own store
# never needs.
_TAKES = lazy(
    r"\b(?:read|open|cat|prints?|slurp|return|put|pass|paste|include|fill|send|copy|show|dump|load|inspect|examine"
    r"|upload|attach|provide|share|insert|grab|hand|give|fetch|collect|extract|output|echo|display|reveal|contents?)"
    r"\b|[\u3400-\u9fff\uac00-\ud7af\u3040-\u30ff]",
    re.IGNORECASE,
)


def _payload_discounted(text: str, cues: Cues, words: frozenset[str]) -> str | None:
    """Why a D016 score quotes no payload once each payload cue that is negated, or that is the tool's own subject,
    is set aside, or None (the score still quotes one, or nothing was set aside)."""
    kept, reasons = _set_aside(text, cues, words)
    if not reasons or (Score(0.0, kept).quotes_payload() and sum(w for _f, w, _q in kept) >= THRESHOLD):
        return None
    return reasons[0]


def _wording_set_aside(cues: Cues, text: str, words: frozenset[str],
                       parameters: frozenset[str] = frozenset()) -> str | None:
    """Why a wording-only D016 score falls below the threshold once the cues `_set_aside` sets aside are gone
    (`parameters`: the tool's own parameters named by more than one word, lower-cased (`multi_word`), which an
    "instead of" may offer as the choice)."""
    kept, reasons = _set_aside(text, cues, words, parameters)
    if not reasons or sum(weight for _family, weight, _quoted in kept) >= THRESHOLD:
        return None
    return reasons[0]


def _left(cues: Cues, text: str, words: frozenset[str]) -> float:
    """The weight of a D016 score's cues once those `_set_aside` sets aside are gone."""
    return sum(weight for _family, weight, _quoted in _set_aside(text, cues, words)[0])


def _set_aside(text: str, cues: Cues, words: frozenset[str],
               parameters: frozenset[str] = frozenset()) -> tuple[Cues, list[str]]:
    """(the cues of a D016 score kept, why each other one is set aside)."""
    lowered = text.lower()
    kept, reasons = [], []
    for cue in cues:
        why = _discount(lowered, cue, cues, words, parameters)
        if why is None:
            kept.append(cue)
        else:
            reasons.append(why)
    return tuple(kept), reasons


def _discount(lowered: str, cue: tuple[str, float, str], cues: Cues,
              words: frozenset[str], parameters: frozenset[str] = frozenset()) -> str | None:
    """Why a cue is set aside: each place the text says it is negated or the tool's own subject; else None."""
    quoted = cue[2]
    if not quoted or re.match(r"(?:do|don|never|not|no|without)\b", quoted):
        return None
    reasons = [_discount_at(lowered, at, cue, cues, words, parameters) for at in occurrences(lowered, quoted)]
    return reasons[0] if reasons and all(reasons) else None


def _discount_at(lowered: str, at: int, cue: tuple[str, float, str], cues: Cues,
                 words: frozenset[str], parameters: frozenset[str] = frozenset()) -> str | None:
    family, _weight, quoted = cue
    sentence = sentence_around(lowered, at)
    if family in ("secret_path", "shell_payload", "dangerous_command", "transmit", "destination", "override",
                  "override_args", "concealment") and negated(lowered, at, at + len(quoted)):
        return _FORBIDS
    if family == "deceive_user" and TRUE_STATE.match(lowered, at + len(quoted)) and not _ACTS.search(sentence):
        return "it words a state to the user instead of an error, it hides no action"
    families = {f for f, _w, _q in cues}
    if why := detected_example(lowered, at) or deletes_own(cue, lowered, at, families, words):
        return why
    # a network command named as one a shell tool runs ("`curl <url>`") is the destination cue's "curl "
    if (family in ("shell_payload", "dangerous_command")
            or (family == "destination" and quoted.strip() in NET_COMMANDS)) \
            and (why := command_subject(lowered, at, sentence, words, families)):
        return why
    if family == "secret_path" and not _ACTS.search(sentence) and "transmit" not in families \
            and _own_secret(quoted, sentence, words, lowered):
        return "the secret is a parameter the tool takes (its own subject)"
    if family == "secret_path" and not _ACTS.search(sentence) and not _TAKES.search(sentence) and any(
        store in quoted and any(w in words for w in owners) for store, owners in _STORES.items()
    ) and "transmit" not in families:
        return "the secret store is the tool's own subject"
    if family == "destination" and LOOPBACK.match(quoted):
        return "the address is this machine's own (a local callback), nothing leaves it"
    if family == "destination" and outside_address(lowered) is None and (
        (re.fullmatch(r"webhooks?", quoted) and any(d in w for w in words for d in _DESTINATION_PARAMETERS))
        or (quoted.strip() in ("curl", "wget") and quoted.strip() in words)
    ):
        return "the destination is the tool's own parameter"
    if family == "override_args" and not _ACTS.search(sentence) and offers_own_parameter(quoted, sentence, at, lowered,
                                                                                          parameters):
        return "the alternative it offers is the tool's own parameter, not a replaced user value"
    if family == "override_args" and hands_on_user_words(quoted, lowered, at):
        return "it hands the user's own words to the tool, it replaces none"
    if family == "secret_path" and writes_own_env(quoted, sentence, words):
        return "the .env file is where the tool saves what it is given (its own subject), nothing is read from it"
    if family in ("override", "authority") and _SETS_OFF.search(lowered, max(0, at - 40), at) and \
            quoted.split()[-1] in words and not _ACTS.search(sentence):
        return "it turns off the tool's own parameter by a value, no rule of the model's"
    if family == "transmit" and forward_as_motion(lowered, at, quoted):
        return "\"forward\" is the direction of a motion, nothing is sent"
    if family in ("transmit", "destination", "url_template") and own_request(sentence, cues, words):
        return "it documents the request the tool itself makes, its address filled by the tool's own parameters"
    if family in ("transmit", "piggyback") and to_own_backend(sentence, cues, parameters, lowered):
        return "it sends to the service the tool takes a key for (its own side effect), nothing the model holds"
    return None
