"""HTTP servers that misbehave: each run ends in bounded time with one clear line per server.

Every fixture here listens on 127.0.0.1 only, on a free port, in a thread of the test process.
A well-behaved stdio server is declared next to the hostile one and must still be pinned.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fixture_repo import Repo, free_port

Behaviour = Callable[[BaseHTTPRequestHandler], None]


def status(code: int, body: bytes = b"", content_type: str = "text/plain", **headers: str) -> Behaviour:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(code)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def redirect_to_self(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(307)
    handler.send_header("Location", handler.path)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


HTML = b"<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>"
BEHAVIOURS: dict[str, Behaviour] = {
    "401": status(401, b"unauthorized", WWW_Authenticate='Bearer realm="mcp"'),
    "403": status(403, b"forbidden"),
    "404": status(404, b"not found"),
    "500": status(500, b"Traceback (most recent call last):\n  boom"),
    "html": status(200, HTML, "text/html; charset=utf-8"),
    "redirect-loop": redirect_to_self,
}


def _handler(behaviour: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            behaviour(self)

        do_GET = do_POST = do_DELETE = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def hostile() -> Iterator[Callable[[Behaviour], int]]:
    servers: list[ThreadingHTTPServer] = []

    def start(behaviour: Behaviour) -> int:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(behaviour))
        server.daemon_threads = True
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return int(server.server_address[1])

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def silent() -> Iterator[Callable[[], int]]:
    """A socket that accepts connections and never answers a byte."""
    sockets: list[socket.socket] = []
    threads: list[threading.Thread] = []
    stop = threading.Event()

    def start() -> int:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(0.2)
        sockets.append(listener)

        def accept() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except (TimeoutError, OSError):
                    continue
                sockets.append(conn)

        threads.append(threading.Thread(target=accept, daemon=True))
        threads[-1].start()
        return int(listener.getsockname()[1])

    yield start
    stop.set()
    # Closed while a thread still waits in accept(), a socket's number can go to a later test's listener,
    # whose connections that thread would then take: the loops end first.
    for thread in threads:
        thread.join(timeout=5)
    for sock in sockets:
        sock.close()


def run_lock(repo: Repo, url: str, timeout: str = "15", **entry: Any) -> str:
    repo.add_stdio("notes")
    repo.add_entry("remote", {"type": "http", "url": url, **entry})
    # The healthy server gets its own generous timeout. The remote one answers at once (an error status, a
    # redirect, HTML) except where a test passes a short `timeout` to see it expire: the first HTTP boot of a
    # process builds the SDK's models, which took over 3 s on a loaded machine (so a 3 s budget failed by
    # test order, with pytest-randomly).
    (repo.root / "mcp-lock.yaml").write_text("servers:\n  notes:\n    timeout: 120\n")
    result = repo.run("lock", "--timeout", timeout)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert list(repo.lock_json()["servers"]) == ["notes"], "the healthy stdio server must still be pinned"
    return remote_line(result.output)


def remote_line(output: str) -> str:
    lines = [line for line in output.splitlines() if "remote" in line and "could not be booted" in line]
    assert len(lines) == 1, output
    return lines[0]


AUTH_HINT = '"headers": {"Authorization": "Bearer ${TOKEN}"}'


@pytest.mark.parametrize("code", ["401", "403"])
def test_auth_required_says_how_to_pass_a_header(repo: Repo, hostile: Any, code: str) -> None:
    port = hostile(BEHAVIOURS[code])
    line = run_lock(repo, f"http://127.0.0.1:{port}/mcp", headers={"X-Api-Key": "sekrit-value-123"})
    assert f"HTTP {code}" in line
    assert "authentication" in line
    assert AUTH_HINT in line
    assert "sekrit-value-123" not in line
    assert "timed out" not in line  # reported from the answer itself, not when the deadline passed


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("404", "HTTP 404 (not found) from http://127.0.0.1:"),
        ("500", "HTTP 500 (internal server error)"),
        ("html", "answered with text/html, not JSON-RPC"),
        ("redirect-loop", "too many redirects"),
    ],
)
def test_http_error_is_one_clear_line(repo: Repo, hostile: Any, case: str, expected: str) -> None:
    port = hostile(BEHAVIOURS[case])
    line = run_lock(repo, f"http://127.0.0.1:{port}/mcp")
    assert expected in line
    assert f"127.0.0.1:{port}" in line or case in ("500", "html")
    assert "timed out" not in line  # reported from the answer itself, not when the deadline passed


def test_connection_refused(repo: Repo) -> None:
    port = free_port()  # nothing listens here
    line = run_lock(repo, f"http://127.0.0.1:{port}/mcp")
    assert f"connection refused by 127.0.0.1:{port}" in line
    assert "is the server running" in line
    assert "timed out" not in line  # reported from the answer itself, not when the deadline passed


def test_tls_to_a_plain_http_port(repo: Repo, hostile: Any) -> None:
    port = hostile(BEHAVIOURS["404"])
    line = run_lock(repo, f"https://127.0.0.1:{port}/mcp")
    assert f"TLS handshake with 127.0.0.1:{port} failed" in line
    assert "http://" in line  # suggests the plain scheme
    assert "timed out" not in line  # reported from the answer itself, not when the deadline passed


def test_accepts_and_never_answers(repo: Repo, silent: Any) -> None:
    port = silent()
    line = run_lock(repo, f"http://127.0.0.1:{port}/mcp", timeout="3")
    assert "timed out after 3s" in line


def test_header_values_never_printed(repo: Repo, hostile: Any) -> None:
    port = hostile(BEHAVIOURS["500"])
    line = run_lock(
        repo, f"http://user:pa55word@127.0.0.1:{port}/mcp?token=q-secret", headers={"Authorization": "Bearer s3cr3t"}
    )
    for secret in ("s3cr3t", "pa55word", "q-secret"):
        assert secret not in line


def endless(content_type: str, chunk: bytes) -> Behaviour:
    """200 with `content_type`, then `chunk` again and again (256 MiB at most, should the client read on)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.end_headers()
        try:
            for _ in range(256 * 1024 * 1024 // len(chunk)):
                handler.wfile.write(chunk)
        except OSError:
            pass

    return answer


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from scanner.transports import http_errors

    monkeypatch.setattr(http_errors, "MAX_RESPONSE_BYTES", 4 * 1024 * 1024)


def test_endless_response_is_cut_off(repo: Repo, hostile: Any, small_cap: None) -> None:
    port = hostile(endless("application/json", b" " * 65536))
    line = run_lock(repo, f"http://127.0.0.1:{port}/mcp")
    assert f"http://127.0.0.1:{port}/mcp sent more than 4 MiB in one response during the initialize handshake" in line


def test_endless_sse_stream_is_cut_off(repo: Repo, hostile: Any, small_cap: None) -> None:
    # Event after event, each under the SDK's 1 MiB event limit, and never the endpoint to post to.
    port = hostile(endless("text/event-stream", b"event: noise\ndata: " + b"x" * 65000 + b"\n\n"))
    line = run_lock(repo, f"http://127.0.0.1:{port}/sse", type="sse")
    assert f"http://127.0.0.1:{port}/sse sent more than 4 MiB in one response" in line
