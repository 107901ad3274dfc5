"""Which declared values look like secrets, and what the lock records for a declared variable instead of one.

Read by discovery (the lock's record of a launch's env) and by redaction (what to mask in a server's answers),
so it lives at the bottom of the import graph.
"""

from __future__ import annotations

import hashlib
import re

# A canonical placeholder (scanner.sources.interpolate), with one level of nested default.
_PLACEHOLDER = re.compile(r"\$\{(?:[^{}]|\{[^{}]*\})*\}")


_SECRET_NAME = re.compile(r"token|secret|key|pass|auth|cookie|credential|session|bearer|private", re.I)
_CREDENTIAL = re.compile(r"(?=\S*[A-Za-z])(?=\S*\d)\S{16,}")


def recorded_env_value(name: str, template: str) -> str:
    """What the lock records for env `name` declared as `template` (placeholders canonical, unresolved).

    The template as written, unless its literal text (placeholders aside) looks like a secret: then only
    its digest, which still shows a change of value and never the value itself.
    """
    literal = _PLACEHOLDER.sub("", template)
    if literal and looks_secret(name, literal):
        return "sha256:" + hashlib.sha256(template.encode("utf-8")).hexdigest()
    return template


def looks_secret(name: str, value: str) -> bool:
    """A secret-sounding name (API_KEY, Authorization) or a credential-shaped value (16+ letters and digits)."""
    return bool(_SECRET_NAME.search(name) or _CREDENTIAL.fullmatch(value))
