"""The runner's own proxy, which mcp-lock's gate (scanner.install.netgate) forwards allowed traffic through.

A runner that reaches the registry only through a corporate proxy names it in its environment or npm's
configuration. The step never sees it (its proxy settings point at mcp-lock's relay, and the copy of `.npmrc`
it reads has no proxy lines): the gate, having allowed a destination, reaches it through that proxy, with the
proxy's credentials, which stay in mcp-lock's process. What is not allowed is refused before any proxy hears
of it.

Which proxy, as each package manager would pick it (`Upstream`):
- npm: for https `https-proxy`, else `proxy` (`npm_config_*` of the step's environment, then the user's
  `.npmrc`), else `HTTPS_PROXY`/`https_proxy`, else `HTTP_PROXY`/`http_proxy`; for http `proxy`, else
  `HTTP_PROXY`/`http_proxy`; hosts exempt: `noproxy`, else `NO_PROXY`/`no_proxy`.
- uv: for https `HTTPS_PROXY`/`https_proxy`, for http `HTTP_PROXY`/`http_proxy`, else `ALL_PROXY`/`all_proxy`
  for both; hosts exempt: `NO_PROXY`/`no_proxy`.
A NO_PROXY entry is `*`, a host or domain (`.corp.example` and `corp.example` both take its subdomains),
either with `:port`, or an address or network (`10.0.0.0/8`). Only an `http://` proxy is spoken to; another
scheme (`https://`, `socks5://`) fails the connection with a message naming it, never a direct connection.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from scanner.model.hosts import host_identity

Destination = tuple[str, int]
HEAD_LIMIT = 16 * 1024  # bytes of one request or response head
CHUNK = 64 * 1024
_NPMRC_PROXY = re.compile(r"^\s*(https-proxy|proxy|noproxy)\s*=\s*[\"']?([^\"'\s]*)", re.MULTILINE)


class ProxyFailed(OSError):
    """The upstream proxy could not be used for a destination; the message says why."""


@dataclass(frozen=True)
class Proxy:
    url: str  # as configured, credentials removed: what messages show
    scheme: str
    host: str
    port: int
    authorization: str | None  # the Proxy-Authorization value its credentials make


@dataclass(frozen=True)
class Upstream:
    https: Proxy | None = None  # for CONNECT tunnels
    http: Proxy | None = None  # for plain http requests
    no_proxy: tuple[str, ...] = ()

    def proxy_for(self, where: Destination, tunnel: bool) -> Proxy | None:
        proxy = self.https if tunnel else self.http
        return None if proxy is None or exempt(where, self.no_proxy) else proxy


NO_UPSTREAM = Upstream()


def proxy_of(url: str | None) -> Proxy | None:
    """The proxy a setting names (None for an empty or unreadable one)."""
    if not url or not url.strip():
        return None
    text = url.strip() if "://" in url else f"http://{url.strip()}"
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    authorization = None
    if parts.username is not None:
        pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    host = parts.hostname
    shown_host = f"[{host}]" if ":" in host else host
    shown = f"{parts.scheme}://{shown_host}" + (f":{port}" if port else "")
    return Proxy(shown, parts.scheme.lower(), host, port or (443 if parts.scheme == "https" else 80), authorization)


def _first(env: Mapping[str, str], *names: str) -> str | None:
    return next((env[n] for n in names if env.get(n)), None)


def _npm_setting(env: Mapping[str, str], npmrc: Mapping[str, str], key: str) -> str | None:
    wanted = {f"npm_config_{key.replace('-', '_')}", f"npm_config_{key}"}
    found = next((v for k, v in env.items() if k.lower() in wanted and v), None)
    return found or npmrc.get(key) or None


def npm_upstream(env: Mapping[str, str], npmrc: str | None) -> Upstream:
    """The proxy an npm step with `env` and the user's `.npmrc` text would use (before the step's own)."""
    rc = {key: value for key, value in _NPMRC_PROXY.findall(npmrc or "")}
    proxy = _npm_setting(env, rc, "proxy")
    https = _npm_setting(env, rc, "https-proxy") or proxy or _first(
        env, "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"
    )
    http = proxy or _first(env, "HTTP_PROXY", "http_proxy")
    exempt_hosts = _npm_setting(env, rc, "noproxy") or _first(env, "NO_PROXY", "no_proxy") or ""
    return Upstream(proxy_of(https), proxy_of(http), _no_proxy(exempt_hosts))


def uv_upstream(env: Mapping[str, str]) -> Upstream:
    """The proxy a uv step with `env` would use."""
    every = _first(env, "ALL_PROXY", "all_proxy")
    https = _first(env, "HTTPS_PROXY", "https_proxy") or every
    http = _first(env, "HTTP_PROXY", "http_proxy") or every
    return Upstream(proxy_of(https), proxy_of(http), _no_proxy(_first(env, "NO_PROXY", "no_proxy") or ""))


def without_proxy_lines(npmrc: str) -> str:
    """The user's `.npmrc` as the step reads it: no proxy setting (the gate uses it; its credentials stay out)."""
    return _NPMRC_PROXY.sub("", npmrc)


def _no_proxy(text: str) -> tuple[str, ...]:
    return tuple(word.strip().lower() for word in re.split(r"[,\s]+", text) if word.strip())


def exempt(where: Destination, entries: tuple[str, ...]) -> bool:
    """Whether NO_PROXY's `entries` exempt `where` from the proxy."""
    host = host_identity(where[0]) or where[0]
    for entry in entries:
        name, port = _entry_parts(entry)
        if port is not None and port != where[1]:
            continue
        if name == "*":
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(name, strict=False):
                return True
            continue
        except ValueError:
            pass
        domain = host_identity(name.lstrip("*.")) or ""
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


def _entry_parts(entry: str) -> tuple[str, int | None]:
    """A NO_PROXY entry's host (or network) and port: `[::1]:8080`, `host:8080`, `::1`, `10.0.0.0/8`."""
    bracketed = re.fullmatch(r"\[([^\]]+)\](?::([0-9]{1,5}))?", entry)
    if bracketed:
        return bracketed[1], int(bracketed[2]) if bracketed[2] else None
    plain = re.fullmatch(r"([^:]+):([0-9]{1,5})", entry)
    return (plain[1], int(plain[2])) if plain else (entry, None)


def read_head(sock: socket.socket) -> tuple[bytes | None, bytes]:
    """One HTTP head (at most HEAD_LIMIT bytes) and what followed it; None when the peer ends or overruns."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(CHUNK)
        if not chunk:
            return None, b""
        data += chunk
        if len(data) > HEAD_LIMIT and b"\r\n\r\n" not in data[: HEAD_LIMIT + 4]:
            return None, b""
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def authority(where: Destination) -> str:
    return f"[{where[0]}]:{where[1]}" if ":" in where[0] else f"{where[0]}:{where[1]}"


def through(proxy: Proxy, where: Destination, tunnel: bool, seconds: float) -> socket.socket:
    """A connection to `proxy` that reaches `where`: for a tunnel, the proxy's CONNECT answered 200; for plain
    http, the connection to send an absolute-form request on. ProxyFailed saying why it cannot be."""
    if proxy.scheme != "http":
        raise ProxyFailed(f"the runner's proxy {proxy.url} is not http://, the only kind mcp-lock's gate speaks to")
    try:
        sock = socket.create_connection((proxy.host, proxy.port), timeout=seconds)
    except OSError as error:
        raise ProxyFailed(f"the runner's proxy {proxy.url} does not answer ({error.strerror or error})") from None
    if not tunnel:
        return sock
    target = authority(where)
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    lines += [f"Proxy-Authorization: {proxy.authorization}"] if proxy.authorization else []
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        head, rest = read_head(sock)
    except OSError as error:
        sock.close()
        raise ProxyFailed(f"the runner's proxy {proxy.url} failed ({error.strerror or error})") from None
    status = head.split(b"\r\n", 1)[0].decode("latin-1", "replace") if head is not None else ""
    if not re.fullmatch(r"HTTP/1\.[01] 200( .*)?", status) or rest:
        sock.close()
        said = "".join(c if " " <= c <= "~" else "?" for c in status)[:120] or "no answer"
        raise ProxyFailed(f"the runner's proxy {proxy.url} refused a tunnel to {target} ({said})")
    return sock
