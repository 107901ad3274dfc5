"""JSON pointers (RFC 6901): the one place reference tokens are escaped and split."""

from __future__ import annotations

from collections.abc import Iterable


def escape(token: object) -> str:
    """One reference token: `~` -> `~0`, `/` -> `~1` (in that order, as the RFC requires)."""
    text = str(token)
    if "~" not in text and "/" not in text:
        return text
    return text.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The inverse of `escape`: `~1` -> `/`, then `~0` -> `~`."""
    if "~" not in token:
        return token
    return token.replace("~1", "/").replace("~0", "~")


def join(parts: Iterable[object]) -> str:
    """A pointer from unescaped parts; the empty iterable gives the whole-document pointer ""."""
    return "".join("/" + escape(part) for part in parts)


def pointer(*parts: object) -> str:
    """`join` for parts given as arguments: pointer("servers", "a/b") == "/servers/a~1b"."""
    return join(parts)


def split(value: str) -> list[str]:
    """The unescaped parts of a pointer; "" is the whole document, and a pointer must start with "/"."""
    if value == "":
        return []
    if not value.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/': {value!r}")
    return [unescape(token) for token in value[1:].split("/")]
