"""What an allow or deny entry is compared with: the thing fetched, not its spelling (issue 36, item 3).

A URL is compared after normalising its scheme and host case, dropping userinfo and a default port, and
writing an IPv4 address in dotted-quad form whatever its spelling (`127.1`, `0x7f.0.0.1`, `2130706433`), an
IPv4-mapped IPv6 address as IPv4, and `localhost` as 127.0.0.1 (the same host; other loopback addresses are
not). A URL that cannot be parsed matches nothing, and a deny list with URL entries refuses it. A PyPI name is
PEP 503-normalised; an npm alias (`pkg@npm:other@1`) is the package it fetches; server names are compared
case-insensitively.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from scanner.model.hosts import host_identity
from scanner.sources.unpinned import Unpinned

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
GLOB = re.compile(r"[*?\[]")


def url_identity(url: str, *, pattern: bool = False) -> str | None:
    """`url` in its one spelling; None when it cannot be parsed (a `pattern` keeps its glob characters)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
        host = parts.hostname
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme or host is None or any(ord(c) < 33 for c in url.strip()):
        return None
    host = host.rstrip(".")
    if not (pattern and GLOB.search(host)):
        host = host_identity(host)
        if host is None:
            return None
    if port is not None and port == DEFAULT_PORTS.get(scheme):
        port = None
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port is None else f"{shown}:{port}"
    path = parts.path or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{netloc}{path}{query}"


def package_identity(unpinned: Unpinned) -> str:
    """The name of the package the runner fetches: an npm alias followed, a PyPI name PEP 503-normalised."""
    name = unpinned.name
    if unpinned.ecosystem == "npm":
        spec = unpinned.package
        at = spec.find("@", 1) if spec.startswith("@") else spec.find("@")
        if at > 0 and spec[at + 1 :].startswith("npm:"):
            target = spec[at + 1 + len("npm:") :]
            end = target.find("@", 1) if target.startswith("@") else target.find("@")
            name = target if end <= 0 else target[:end]
    if unpinned.ecosystem == "pypi":
        return pypi_name(name)
    return name


def pypi_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
