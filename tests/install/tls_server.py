"""The clients and servers of the gate's tests: a request straight to a gate's Unix socket (as the relay inside a
step hands it on), a loopback TLS server answering `ok` (a self-signed certificate made with openssl), and a
TLS client that reaches it through the gate."""

from __future__ import annotations

import contextlib
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost"],
        check=True, capture_output=True,
    )
    return key, cert


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[tuple[int, list[str]]]:
    """A loopback TLS server answering `ok`; what it records: each handshake's server name."""
    key, cert = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str] = []
    context.sni_callback = lambda _tls, name, _context: names.append(name or "")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with contextlib.suppress(OSError, ssl.SSLError), context.wrap_socket(conn, server_side=True) as tls:
                tls.settimeout(5)
                tls.recv(1024)
                tls.sendall(b"ok")

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1], names
    finally:
        listener.close()


def through_gate(gate_socket: str, target: str, server_hostname: str | None) -> bytes:
    """CONNECT `target` through the gate, then TLS naming `server_hostname`; what the server answered."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(gate_socket)
        sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        with context.wrap_socket(sock, server_hostname=server_hostname) as tls:
            tls.sendall(b"hello")
            return tls.recv(1024)


def ask(path: str, request: bytes) -> bytes:
    """Send `request` to the gate listening at `path`; all it answered."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer
