"""What every loopback registry of the suite shares (tests/artifacts/npm_registry.py, osv_server.py,
simple_index_server.py, tests/loopback_pypi.py): a quiet request handler that answers a body, and a threaded
server on an ephemeral 127.0.0.1 port, so that tests on parallel pytest-xdist workers never meet on one port."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def answer(self, status: int, kind: str, body: bytes, *headers: tuple[str, str], head: bool = False) -> None:
        """Send `body` (or, for a HEAD request, only its headers) as `kind`, with `headers` added."""
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def start(handler: type[Handler]) -> tuple[ThreadingHTTPServer, str]:
    """Serve `handler` on a free loopback port in a daemon thread; the server and its `http://127.0.0.1:PORT`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
