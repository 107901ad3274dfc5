"""The one way out of a package-manager step's network namespace: a forwarding proxy of mcp-lock's own that
lets through only the registry hosts configured for that launch.

A step runs with `--unshare-net` (its own network namespace: loopback only). Inside, mcp-lock's relay
(scanner/install/relay.py, started by bwrap before the package manager) listens on 127.0.0.1:RELAY_PORT and
hands every connection to the Unix socket of a `Gate`, which runs here, in mcp-lock's process, outside the
sandbox. The package manager is pointed at the relay as its proxy (npm `proxy`/`https-proxy`, uv
`HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`). What the gate lets through is decided on what is fetched:
- `CONNECT host:port` (https): the tunnel opens only to an allowed (host, port), and carries only TLS whose
  ClientHello names that host (SNI, read by scanner.install.client_hello before a byte goes on; to an address,
  TLS that names no host): a tunnel to the registry's address cannot reach another site it serves;
- an absolute-URI request (`GET http://host:port/path`, plain http): only to an allowed (host, port), sent on
  as an origin-form request with `Host` set to that authority and `Connection: close`, so the upstream
  connection serves that one destination;
- anything else (an origin-form request, a malformed head, another scheme) is refused.
Where the runner has a proxy of its own (scanner.install.upstream_proxy), what is allowed goes on through it,
with its credentials, which the step never sees. The gate never follows a redirect: a registry that
redirects to another host makes the client ask for that host, which is refused like any other. Each refused
destination is kept (`refused`), so the step's failure can say what was asked for. Bounds: MAX_CONNECTIONS at
once, 16 KiB of request head, IDLE_SECONDS without traffic, CONNECTION_BYTES per connection and STEP_BYTES for
the whole step; closing the gate cuts every connection.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import shutil
import socket
import tempfile
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from scanner.install.client_hello import Hello, Malformed, read_hello
from scanner.install.splice_copy import spliced
from scanner.install.upstream_proxy import (
    NO_UPSTREAM,
    Destination,
    Proxy,
    ProxyFailed,
    Upstream,
    read_head,
    through,
)
from scanner.model.hosts import host_identity

SOCKET_NAME = "gate.sock"
MAX_CONNECTIONS = 64  # at once; npm opens up to 15 sockets per host by default (maxsockets)
IDLE_SECONDS = 120.0  # without a byte either way
IDLE_MS = int(IDLE_SECONDS * 1000)
CONNECT_SECONDS = 30.0
CONNECTION_BYTES = 4 * 1024**3  # one tarball or wheel, both directions together
STEP_BYTES = 16 * 1024**3  # everything one step moves
MAX_REFUSED = 20  # destinations kept for the message
CHUNK = 64 * 1024
DEFAULT_PORTS = {"http": 80, "https": 443}


def destination_of(url: str) -> Destination | None:
    """(host, port) of an http(s) URL as a client connects to it: host lower-cased, default port filled in."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.hostname.lower().rstrip("."), port or DEFAULT_PORTS[parts.scheme]


def _authority(text: str, default_port: int) -> Destination | None:
    """`host:port` (CONNECT's target, or a Host header), IPv6 in brackets."""
    return destination_of(f"http://{text}") if default_port == 80 else destination_of(f"https://{text}")


@dataclass
class Gate:
    """A running gate: its Unix socket in `folder` (private to this user), what it allows, what it refused."""

    allowed: frozenset[Destination]
    folder: str
    upstream: Upstream = NO_UPSTREAM  # the runner's own proxy, which allowed traffic goes through
    refused: list[str] = field(default_factory=list)
    moved: int = 0  # bytes through the gate, both directions
    _listener: socket.socket | None = None
    _open: set[socket.socket] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _slots: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(MAX_CONNECTIONS))
    _closed: bool = False

    @property
    def socket_path(self) -> str:
        return os.path.join(self.folder, SOCKET_NAME)

    def start(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.socket_path)
        listener.listen(MAX_CONNECTIONS)
        self._listener = listener
        threading.Thread(target=self._accept, name="mcp-lock-gate", daemon=True).start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sockets = list(self._open)
        for sock in [*sockets, *([self._listener] if self._listener else [])]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._slots.acquire(timeout=IDLE_SECONDS):
                client.close()
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _track(self, sock: socket.socket) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._open.add(sock)
            return True

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            if not self._track(client):
                return
            client.settimeout(IDLE_SECONDS)
            head, rest = read_head(client)
            if head is None:
                return
            opened = self._open_upstream(head)
            if isinstance(opened, Unreachable):
                _bad_gateway(client, opened)
                return
            if isinstance(opened, str):
                self._refuse(client, opened)
                return
            upstream, first, where = opened
            if not self._track(upstream):
                return
            if first is None:  # CONNECT: the tunnel is open, but only for TLS to the allowed host's name
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                hello, first = read_hello(_after(rest, client))
                rest = b""
                mismatch = tls_refusal(hello, where)
                if mismatch is not None:
                    self._keep(mismatch)
                    return
            upstream.sendall(first + rest)
            self._pump(client, upstream)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    with self._lock:
                        self._open.discard(sock)
                    with contextlib.suppress(OSError):
                        sock.close()
            self._slots.release()

    def _open_upstream(self, head: bytes) -> tuple[socket.socket, bytes | None, Destination] | str:
        """The upstream connection, the head to send it (None for a CONNECT tunnel) and where it goes; or what
        was refused."""
        lines = head.decode("latin-1").split("\r\n")
        words = lines[0].split(" ")
        if len(words) != 3 or not words[2].startswith("HTTP/"):
            return "a request that is not HTTP"
        method, target, version = words
        tunnel = method == "CONNECT"
        if tunnel:
            where = _authority(target, 443)
        else:
            where = destination_of(target) if target.lower().startswith("http://") else None
            if where is None:
                return f"{method} {target[:200]} (only absolute http:// requests and CONNECT pass)"
        if where is None:
            return f"{method} {target[:200]}"
        if _identity(where) not in {_identity(d) for d in self.allowed}:
            return f"{where[0]}:{where[1]}"
        proxy = self.upstream.proxy_for(where, tunnel)
        forwarded = None if tunnel else _request_head(method, target, version, lines[1:], where, proxy)
        try:
            if proxy is not None:  # the runner's own proxy: allowed traffic goes on through it, with its credentials
                upstream = through(proxy, where, tunnel, CONNECT_SECONDS)
            else:
                upstream = socket.create_connection(where, timeout=CONNECT_SECONDS)
        except ProxyFailed as error:
            return Unreachable(f"mcp-lock's gate could not reach {where[0]}:{where[1]}: {error}")
        except OSError as error:  # the registry itself does not answer: say so, as a direct connection would
            code = errno.errorcode.get(error.errno or 0, "") if error.errno else ""
            said = f"{code}: {error.strerror}" if code and error.strerror else (code or str(error) or "no answer")
            return Unreachable(f"mcp-lock's gate could not reach {where[0]}:{where[1]} ({said})")
        upstream.settimeout(IDLE_SECONDS)
        return upstream, forwarded, where

    def _keep(self, what: str) -> None:
        with self._lock:
            if what not in self.refused and len(self.refused) < MAX_REFUSED:
                self.refused.append(what)

    def _refuse(self, client: socket.socket, what: str) -> None:
        self._keep(what)
        _answer(client, "403 Forbidden", f"mcp-lock: only the configured registry is reachable from this step, not "
                                         f"{what}")

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        budget = [CONNECTION_BYTES]
        back = threading.Thread(target=self._copy, args=(upstream, client, budget), daemon=True)
        back.start()
        self._copy(client, upstream, budget)
        back.join()

    def _copy(self, source: socket.socket, target: socket.socket, budget: list[int]) -> None:
        try:
            if not spliced(source, target, self._count(budget), IDLE_MS):
                while True:
                    data = source.recv(CHUNK)
                    if not data or self._count(budget)(len(data)):
                        break
                    target.sendall(data)
        except OSError:
            pass
        for sock, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)

    def _count(self, budget: list[int]) -> Callable[[int], bool]:
        """Counts bytes received on one connection; True once its budget or the step's is spent (they are then
        not sent on)."""

        def over(count: int) -> bool:
            with self._lock:
                self.moved += count
                budget[0] -= count
                return budget[0] < 0 or self.moved > STEP_BYTES

        return over


def _after(rest: bytes, client: socket.socket) -> Callable[[int], bytes]:
    """A recv of the client's bytes that first gives back what came after the CONNECT head."""
    pending = [rest]

    def receive(count: int) -> bytes:
        if pending[0]:
            given, pending[0] = pending[0][:count], pending[0][count:]
            return given
        return client.recv(min(count, CHUNK))

    return receive


def tls_refusal(hello: Hello | Malformed, where: Destination) -> str | None:
    """Why a tunnel to `where` may not carry this ClientHello, or None: its server name must be the allowed
    host (compared normalised); to an address, none is sent (RFC 6066), and a name would pick another site."""
    shown = f"{where[0]}:{where[1]}"
    if isinstance(hello, Malformed):
        return f"a tunnel to {shown} that does not start with a readable TLS ClientHello ({hello.why})"
    allowed = host_identity(where[0])
    if hello.name is None:
        if _is_address(where[0]):
            return None
        return f"a tunnel to {shown} whose TLS names no server (no SNI), when it must name {where[0]}"
    if host_identity(hello.name) == allowed and allowed is not None:
        return None
    return f"TLS for {hello.name} inside a tunnel to {shown}"


def _identity(where: Destination) -> Destination:
    """A destination as it is fetched, whatever its spelling (scanner.model.hosts): `0x7f.1` is 127.0.0.1."""
    return host_identity(where[0]) or where[0], where[1]


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _request_head(
    method: str, target: str, version: str, headers: Iterable[str], where: Destination, proxy: Proxy | None
) -> bytes:
    """The request as the upstream server reads it: the path and query only (to the runner's proxy: the
    absolute URI, with the proxy's credentials, never the step's), its Host the destination's, and one request
    per connection."""
    parts = urllib.parse.urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    dropped = ("host", "connection", "proxy-connection", "proxy-authorization", "keep-alive")
    kept = [h for h in headers if h and h.split(":", 1)[0].strip().lower() not in dropped]
    host = f"[{where[0]}]" if ":" in where[0] else where[0]
    authority = host if where[1] == 80 else f"{host}:{where[1]}"
    if proxy is not None:
        path = f"http://{authority}{path}"
        kept += [f"Proxy-Authorization: {proxy.authorization}"] if proxy.authorization else []
    lines = [f"{method} {path} {version}", f"Host: {authority}", *kept, "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


@contextlib.contextmanager
def private_folder() -> Iterator[str]:
    """A folder only this user reads (the gate's socket, the step's copies of the user's configuration), bound
    read-only into the sandbox; removed after the step."""
    # Under /tmp, which every sandbox replaces with its own: no other step can see this gate's socket.
    folder = tempfile.mkdtemp(prefix="mcp-lock-gate-", dir="/tmp" if os.path.isdir("/tmp") else None)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def open_gate(allowed: Iterable[Destination], folder: str, upstream: Upstream = NO_UPSTREAM) -> Iterator[Gate]:
    """A running gate for one step, its socket in `folder`, reaching what it allows through `upstream`'s proxy
    where the runner has one; every connection cut when the block ends."""
    gate = Gate(frozenset(allowed), folder, upstream)
    try:
        gate.start()
        yield gate
    finally:
        gate.close()


class Unreachable(str):
    """Why an allowed destination could not be connected to (a 502 to the package manager, never a refusal)."""


def _bad_gateway(client: socket.socket, why: Unreachable) -> None:
    """A 502 whose reason phrase carries `why`: npm and uv print the status line, not the body."""
    reason = "".join(c if " " <= c <= "~" else "?" for c in why)[:300]
    _answer(client, f"502 {reason}", reason)


def _answer(client: socket.socket, status: str, said: str) -> None:
    """The gate's own answer to the package manager: `status` (code and reason), `said` as the body; then closed."""
    body = f"{said}\n".encode()
    head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
    with contextlib.suppress(OSError):
        client.sendall(head + body)
