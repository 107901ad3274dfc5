"""GET requests that keep their connection to a registry open for the next one (HTTP/1.1 keep-alive).

urllib opens a new connection for every request: a TCP handshake and a TLS handshake (two more round trips
and the key exchange's CPU) before each of the thousands of small answers a first `lock` asks for (npm
attestations, PyPI simple pages; issue 35: the 28 real servers' 3,103 packages). `Connections` holds the
idle connections of one run, at most one per host and worker, and hands them out again.

What is sent and read is what urllib would send and read for the same GET: the same `Accept` and
`User-Agent`, the same TLS context (scanner.artifacts.http_body.tls_context, the host's name checked), the
same socket timeout, http.client's own bounds on the status line and headers, and the caller's own bounds on
the body. Anything this does not do itself goes through urllib exactly as before: a proxy the environment
names, a URL with a user, a scheme other than http(s), and every redirect (urllib follows it with its own
limits). An error status is raised as urllib raises it (`urllib.error.HTTPError`). A reused connection the
server closed meanwhile is retried once on a new one (a GET changes nothing).
"""

from __future__ import annotations

import contextlib
import http.client
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

from scanner.artifacts.http_body import tls_context

USER_AGENT = f"Python-urllib/{sys.version_info[0]}.{sys.version_info[1]}"  # what urllib sends
MAX_DRAINED = 64 * 1024  # bytes of an error answer read to keep its connection; past it, closed
MAX_IDLE = 32  # idle connections kept per host
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)

Host = tuple[str, str, int]


class Connections:
    """The idle connections of one run, by (scheme, host, port); safe to share between threads."""

    def __init__(self) -> None:
        self._idle: dict[Host, list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()
        self.opened = 0  # connections made, for a test to count

    def _take(self, host: Host, timeout: float) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            idle = self._idle.get(host)
            if idle:
                connection = idle.pop()
                connection.timeout = timeout
                if connection.sock is not None:
                    connection.sock.settimeout(timeout)
                return connection, True
            self.opened += 1
        scheme, name, port = host
        if scheme == "https":
            return http.client.HTTPSConnection(name, port, timeout=timeout, context=tls_context()), False
        return http.client.HTTPConnection(name, port, timeout=timeout), False

    def _give_back(self, host: Host, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(host, [])
            if len(idle) < MAX_IDLE:
                idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            held, self._idle = self._idle, {}
        for connections in held.values():
            for connection in connections:
                connection.close()

    def __enter__(self) -> Connections:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def get(self, url: str, accept: str, timeout: float) -> Iterator[Any]:
        """The response to a GET of `url`, as `urllib.request.urlopen` gives it (a 2xx response to read; an
        HTTPError raised for an error status)."""
        parts = urllib.parse.urlsplit(url)
        if not _direct(parts):
            with _urllib(url, accept, timeout) as response:
                yield response
            return
        host: Host = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection, response = self._send(host, target, accept, timeout)
        if 300 <= response.status < 400:  # urllib follows redirects, within its own limits
            connection.close()
            with _urllib(url, accept, timeout) as followed:
                yield followed
            return
        if response.status >= 400:
            error = urllib.error.HTTPError(url, response.status, response.reason, response.headers, None)
            self._drained(host, connection, response)
            raise error
        try:
            yield response
        except BaseException:
            connection.close()
            raise
        self._done_with(host, connection, response)

    def _done_with(self, host: Host, connection: http.client.HTTPConnection, response: Any) -> None:
        """Hand `connection` out again when its answer was read to the end and the server keeps it open."""
        if not response.isclosed() and response.length == 0:  # read to its Content-Length
            response.close()  # the answer's file, not the connection's socket
        if response.isclosed() and not response.will_close:
            self._give_back(host, connection)
        else:
            connection.close()

    def _send(
        self, host: Host, target: str, accept: str, timeout: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        while True:
            connection, reused = self._take(host, timeout)
            try:
                connection.request("GET", target, headers={"Accept": accept, "User-Agent": USER_AGENT})
                return connection, connection.getresponse()
            except _STALE:
                connection.close()
                if not reused:
                    raise
            except BaseException:
                connection.close()
                raise

    def _drained(self, host: Host, connection: http.client.HTTPConnection, response: Any) -> None:
        """Read a small error answer to its end so that its connection serves the next request; else close."""
        try:
            response.read(MAX_DRAINED)
        except (OSError, http.client.HTTPException):
            connection.close()
            return
        self._done_with(host, connection, response)


def _direct(parts: urllib.parse.SplitResult) -> bool:
    """Whether this module sends the request itself: plain http(s), no user in the URL, no proxy for it."""
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return False
    try:
        parts.port  # noqa: B018 - a port that is not a number raises here, as urllib would
    except ValueError:
        return False
    proxies = urllib.request.getproxies()
    return parts.scheme not in proxies or bool(urllib.request.proxy_bypass(parts.hostname))


def opened(url: str, accept: str, timeout: float, connections: Connections | None) -> Any:
    """The response to a GET of `url` (a context manager, as urlopen's): over `connections` when given, else
    urllib's own."""
    return connections.get(url, accept, timeout) if connections is not None else _urllib(url, accept, timeout)


def _urllib(url: str, accept: str, timeout: float) -> Any:
    request = urllib.request.Request(url, headers={"Accept": accept})
    return urllib.request.urlopen(request, timeout=timeout, context=tls_context())
