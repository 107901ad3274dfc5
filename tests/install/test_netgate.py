"""scanner.install.netgate on its own: what the gate lets through, matched on what is fetched, and how it says no.

The loopback npm registry stands in for the registry and a loopback listener for any other host; the client
speaks to the gate's Unix socket as the relay inside a step would.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from artifacts.npm_registry import Registry
from loopback_pypi import listener

from install.tls_server import ask
from scanner.install.netgate import open_gate, private_folder
from scanner.install.registry_hosts import npm_destinations, uv_indexes


@pytest.fixture
def registry(npm_registry: Registry) -> tuple[int, Registry]:
    npm_registry.publish("pkg", "1.0.0", "x")
    return int(npm_registry.url.rsplit(":", 1)[1].strip("/")), npm_registry


@pytest.fixture
def other() -> Iterator[tuple[int, list[bytes]]]:
    with listener() as found:
        yield found


def test_a_plain_request_passes_only_to_the_registry_in_origin_form(registry, other) -> None:
    (port, served), (elsewhere, heard) = registry, other
    with private_folder() as folder, open_gate({("127.0.0.1", port)}, folder) as gate:
        plain = f"GET http://127.0.0.1:{port}/pkg HTTP/1.1\r\nHost: evil.test\r\n\r\n"
        got = ask(gate.socket_path, plain.encode())
        refused = ask(gate.socket_path, f"GET http://127.0.0.1:{elsewhere}/x HTTP/1.1\r\n\r\n".encode())
    assert got.split(b"\r\n", 1)[0].endswith(b"200 OK") and b'"name": "pkg"' in got.replace(b'":"', b'": "'), got
    assert served.served == ["pkg"]  # asked in origin form (the registry reads paths only)
    assert refused.startswith(b"HTTP/1.1 403") and heard == []
    assert gate.refused == [f"127.0.0.1:{elsewhere}"]


def test_a_tunnel_opens_only_to_the_registry_and_only_for_tls(registry, other) -> None:
    """Through a tunnel the gate reads only the TLS server name (tests/install/test_tls_name.py): plain http
    inside one is refused, as it could name any host in its Host header."""
    (port, served), (elsewhere, heard) = registry, other
    with private_folder() as folder, open_gate({("127.0.0.1", port)}, folder) as gate:
        inner = "GET /pkg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        plain = ask(gate.socket_path, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n{inner}".encode())
        outside = f"CONNECT 127.0.0.1:{elsewhere} HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n"
        refused = ask(gate.socket_path, outside.encode())
    assert plain == b"HTTP/1.1 200 Connection established\r\n\r\n" and served.served == []
    assert refused.startswith(b"HTTP/1.1 403") and b"not 127.0.0.1:" in refused and heard == []
    assert gate.refused[0].startswith(f"a tunnel to 127.0.0.1:{port} that does not start with a readable TLS")


@pytest.mark.parametrize("request_line", [
    "GET /pkg HTTP/1.1",  # origin form: no destination named, nothing to match
    "GET https://127.0.0.1:{port}/pkg HTTP/1.1",  # https is a tunnel, never a forwarded request
    "GET file:///etc/passwd HTTP/1.1",
    "NONSENSE",
])
def test_anything_but_connect_or_an_absolute_http_uri_is_refused(registry, request_line: str) -> None:
    port, served = registry
    with private_folder() as folder, open_gate({("127.0.0.1", port)}, folder) as gate:
        answer = ask(gate.socket_path, (request_line.format(port=port) + "\r\n\r\n").encode())
    assert answer.startswith(b"HTTP/1.1 403") and served.served == []


def test_the_allowed_hosts_come_from_the_step_s_settings() -> None:
    env = {"npm_config_registry": "http://127.0.0.1:4873/", "npm_config_@corp:registry": "https://npm.corp.test/x/"}
    assert npm_destinations(env, "@other:registry=https://other.test:8443/\n") == {
        ("127.0.0.1", 4873), ("npm.corp.test", 443), ("other.test", 8443),
    }
    assert npm_destinations({}, "registry = https://mirror.test/\n") == {("mirror.test", 443)}
    toml = (
        'extra-index-url = ["https://extra.test/simple"]\n'
        '[[index]]\nurl = "https://own.test/simple"\ndefault = true\n'
    )
    assert uv_indexes({"UV_INDEX": "name=https://named.test/simple"}, toml) == [
        "https://own.test/simple", "https://named.test/simple", "https://extra.test/simple",
    ]


def test_an_allowed_registry_that_does_not_answer_is_a_502_naming_why_never_a_refusal() -> None:
    """npm prints the status line: a registry that refuses the connection reads as such (ECONNREFUSED), not as a
    'socket hang up' that sends the user to their proxy settings, and it is not an off-registry refusal."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with private_folder() as folder, open_gate({("127.0.0.1", port)}, folder) as gate:
        plain = ask(gate.socket_path, f"GET http://127.0.0.1:{port}/pkg HTTP/1.1\r\n\r\n".encode())
        tunnel = ask(gate.socket_path, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
    for answer in (plain, tunnel):
        status = answer.split(b"\r\n", 1)[0]
        assert status.startswith(b"HTTP/1.1 502 ") and f"127.0.0.1:{port}".encode() in status, answer
        assert b"ECONNREFUSED" in status, answer
    assert gate.refused == []
