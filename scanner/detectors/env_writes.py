"""A `.env` that the text saves to is where an env-file tool writes what it is given; nothing is read from it.

"Save LLM/API keys to .env. Pass only keys you want to set; empty strings are skipped." (nlp2env 0.1.6,
`nlp2env_set_api`, which takes `env_file` and the keys as its own parameters): MCPL-D016's `secret_path` cue on
`.env`, where the sentence writes into the file and reads, sends, copies or addresses nothing, on a tool whose own
name or parameters say `env`. A theft reads the file (or its contents) and takes them elsewhere, and keeps the cue.
`purpose` sets such a cue aside (`purpose._STORES` leaves `.env` out because every tool has an `env`: here the
direction of the act, a write, is what makes it the tool's own).
"""

from __future__ import annotations

from scanner.detectors.lazy_re import lazy

from .addresses import outside_address

_ENV_FILE = lazy(r"\s*`?\.env(?:\.[a-z]+)?`?\s*")
_WRITES_TO_ENV = lazy(
    r"\b(?:save|saves|saved|write|writes|written|store|stores|stored|persist|persists|persisted|set|sets)\b"
    r"[^.;:!?\n]{0,60}?\b(?:to|into|in)\s+(?:the\s+|your\s+|a\s+|its\s+)?`?\.env\b"
)
# What takes the file somewhere, or its contents: a sentence holding one is no plain write.
_TAKES_FROM = lazy(
    r"\b(?:read|reads|open|cat|print|show|dump|load|contents?|copy|copies|send|sends|upload|post|forward|return"
    r"|output|reveal|display|echo|attach|paste|include|share|from)\b"
)


def writes_own_env(quoted: str, sentence: str, words: frozenset[str]) -> bool:
    """Whether the `secret_path` cue `quoted` is a `.env` that the lower-cased `sentence` only writes to, on a tool
    whose own name or parameters (`words`) say `env`."""
    return (
        "env" in words
        and _ENV_FILE.fullmatch(quoted) is not None
        and _WRITES_TO_ENV.search(sentence) is not None
        and _TAKES_FROM.search(sentence) is None
        and outside_address(sentence) is None
    )
