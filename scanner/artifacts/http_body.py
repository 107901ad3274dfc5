"""A network answer's body read within bounds, shared by the OSV client and the registry client: one socket
read at a time, so that neither its size nor a trickle of bytes goes unbounded, and a body shorter than its
Content-Length is refused. Each caller names the answer and the error it raises."""

from __future__ import annotations

import functools
import ssl
import urllib.parse
from collections.abc import Callable
from typing import Any

CHUNK = 64 * 1024


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One default TLS context per run: urllib would make one per request, loading the system's CA bundle each
    time (tens of ms of CPU per request, the larger part of asking a registry about a tree's hundred packages)."""
    return ssl.create_default_context()


def read_body(
    response: Any, limit: int, deadline: float, clock: Callable[[], float], *,
    answer: str, late: str, error: Callable[[str], Exception],
) -> bytes:
    """The body of `response`; `error("<answer> …")` when it passes `limit` bytes, is still arriving after
    `deadline` (`late` says so) or stops short of its Content-Length."""
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(CHUNK):
        size += len(chunk)
        if size > limit:
            raise error(f"{answer} is larger than {limit >> 20} MiB")
        if clock() > deadline:
            raise error(f"{answer} {late}")
        chunks.append(chunk)
    if getattr(response, "length", None):  # bytes its Content-Length promised that never came
        raise error(f"{answer} was cut off before its end")
    return b"".join(chunks)


def shown_url(url: str) -> str:
    """`url` without its user, port, query or fragment: what a message may show of it."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.hostname or "", parts.path, "", ""))
