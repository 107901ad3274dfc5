"""Outside addresses: where a replaced argument or a piggybacked call sends something the user did not choose.

An e-mail address, a URL, a bank account (IBAN), a crypto wallet, a phone number or a git remote written into a
definition as the value to use instead of the user's is an attack's goal quoted (an outside recipient), which is
what makes an order a payload rather than wording (MCPL-D025, MCPL-D026).
"""

from __future__ import annotations

import re

from scanner.detectors.lazy_re import lazy

OUTSIDE_ADDRESS = lazy(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"  # e-mail, and git@host:path remotes
    r"|\bhttps?://[^\s\"'<>)]+"
    r"|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,4})?\b"  # IBAN
    r"|\b0x[0-9a-fA-F]{40}\b|\b(?:bc1|[13])[a-km-zA-HJ-NP-Z1-9]{25,39}\b"  # wallets
    r"|\+\d{1,3}(?:[ .-]?\d{2,4}){2,4}\b",  # an international phone number
)
# Placeholders and the documentation domains are no one's address.
_EXAMPLE = lazy(r"example\.(?:com|org|net)|localhost|127\.0\.0\.1|\{|<|your[-_.]", re.IGNORECASE)
# A loopback address written whole ("Starts a local callback on http://127.0.0.1:18765/callback", promptready-mcp
# 0.4.0's `login`): where a tool listens on this machine, no recipient elsewhere.
LOOPBACK = lazy(r"(?:https?://)?(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?![\w.-])", re.IGNORECASE)


def outside_address(text: str) -> str | None:
    """The first outside address written in `text`, or None (placeholders and example domains are none)."""
    for match in OUTSIDE_ADDRESS.finditer(text):
        if not _EXAMPLE.search(match.group()):
            return match.group()
    return None
