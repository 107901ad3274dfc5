"""A loopback forward proxy standing in for a runner's corporate proxy: CONNECT tunnels and absolute-form
http requests, optionally demanding credentials; it records each request line and Proxy-Authorization it saw."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import urllib.parse
from collections.abc import Iterator

from scanner.install.upstream_proxy import read_head


class CorporateProxy(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, credentials: str | None = None) -> None:
        """`credentials`: the Proxy-Authorization value it demands (None: none)."""
        self.seen: list[tuple[str, str | None]] = []  # (request line, Proxy-Authorization)
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy.serve(self.request, credentials)

        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def serve(self, client: socket.socket, credentials: str | None) -> None:
        client.settimeout(10)
        head, rest = read_head(client)
        if head is None:
            return
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        given = headers.get("proxy-authorization")
        self.seen.append((lines[0], given))
        if credentials is not None and given != credentials:
            client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            return
        method, target, _version = lines[0].split(" ")
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            with socket.create_connection((host.strip("[]"), int(port)), timeout=10) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _pipe(client, upstream, rest)
            return
        parts = urllib.parse.urlsplit(target)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        kept = [line for line in lines[1:] if not line.lower().startswith(("proxy-", "connection"))]
        forwarded = "\r\n".join([f"{method} {path} HTTP/1.1", *kept, "Connection: close"]) + "\r\n\r\n"
        with socket.create_connection((parts.hostname, parts.port or 80), timeout=10) as upstream:
            _pipe(client, upstream, forwarded.encode("latin-1") + rest)


def _pipe(client: socket.socket, upstream: socket.socket, first: bytes) -> None:
    def back() -> None:
        with contextlib.suppress(OSError):
            while chunk := upstream.recv(65536):
                client.sendall(chunk)
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_WR)

    thread = threading.Thread(target=back, daemon=True)
    thread.start()
    with contextlib.suppress(OSError):
        upstream.sendall(first)
        while chunk := client.recv(65536):
            upstream.sendall(chunk)
    with contextlib.suppress(OSError):
        upstream.shutdown(socket.SHUT_WR)
    thread.join(10)


@contextlib.contextmanager
def corporate_proxy(credentials: str | None = None) -> Iterator[CorporateProxy]:
    proxy = CorporateProxy(credentials)
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
