"""The gate lets a tunnel carry TLS only for the allowed host's name (scanner.install.client_hello, netgate).

A step may CONNECT to the registry's host:port and then speak TLS for another name (a CDN or shared host at
that address serves it): the ClientHello's server name must be the allowed host. Real ClientHellos come from
Python's own TLS client (through memory BIOs, or through the gate to a loopback TLS server); the hostile ones
are cut or forged from them.
"""

from __future__ import annotations

import ssl

import pytest

from install.tls_server import through_gate
from scanner.install.client_hello import Hello, Malformed, parse_hello, read_hello
from scanner.install.netgate import open_gate, private_folder


def client_hello(server_hostname: str | None) -> bytes:
    """The first TLS record Python's client sends (a real ClientHello)."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=server_hostname)
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def feed(data: bytes, step: int = 7) -> tuple[Hello | Malformed, bytes]:
    """read_hello over `data` given `step` bytes at a time, as a slow client sends it."""
    chunks = [data[i : i + step] for i in range(0, len(data), step)]
    return read_hello(lambda _count: chunks.pop(0) if chunks else b"")


def record(message: bytes) -> bytes:
    return b"\x16\x03\x01" + len(message).to_bytes(2, "big") + message


def hello_with(extensions: bytes) -> bytes:
    body = b"\x03\x03" + b"r" * 32 + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00"
    body += len(extensions).to_bytes(2, "big") + extensions
    return b"\x01" + len(body).to_bytes(3, "big") + body


def server_name(*names: bytes, kind: int = 0) -> bytes:
    listed = b"".join(bytes([kind]) + len(n).to_bytes(2, "big") + n for n in names)
    data = len(listed).to_bytes(2, "big") + listed
    return b"\x00\x00" + len(data).to_bytes(2, "big") + data


def test_a_real_client_hello_names_its_server() -> None:
    data = client_hello("Registry.Example.")
    assert feed(data) == (Hello("registry.example"), data)  # every byte read is sent on
    assert feed(client_hello(None))[0] == Hello(None)


def test_a_client_hello_split_over_two_records_is_read_whole() -> None:
    message = client_hello("registry.example")[5:]
    assert feed(record(message[:40]) + record(message[40:]))[0] == Hello("registry.example")


@pytest.mark.parametrize("cut", [1, 4, 5, 9, 43, -1])
def test_a_truncated_client_hello_is_malformed(cut: int) -> None:
    hello, _ = feed(client_hello("registry.example")[:cut])
    assert isinstance(hello, Malformed), hello


@pytest.mark.parametrize(("sent", "why"), [
    (b"GET / HTTP/1.1\r\nHost: registry.example\r\n\r\n", "not TLS"),
    (b"\x16\x03\x01\x00\x00", "record of 0 bytes"),
    (b"\x16\x03\x01\xff\xff" + b"x" * 70000, "record of 65535 bytes"),
    (record(b"\x02\x00\x00\x00"), "not a ClientHello"),
    (record(b"\x01\xff\xff\xff"), "a ClientHello of 16777215 bytes"),  # refused before reading on
    (record(hello_with(server_name(b"registry.example", b"evil.example"))), "2 host names"),
    (record(hello_with(server_name(b"registry.example") * 2)), "extension 0 twice"),
    (record(hello_with(server_name(b"evil.example\x00registry.example"))), "not a DNS name"),
    (record(hello_with(server_name("régistry.example".encode()))), "not ASCII"),
    (record(hello_with(server_name(b"registry.example", kind=1))), "type 1"),
    (record(hello_with(server_name(b"registry.example") + b"\xfe\x0d\x00\x01\x00")), "ECH"),
    (record(hello_with(server_name(b"registry.example"))[:-3]), "ended before a whole ClientHello"),
    (record(b"\x01\x00\x00\x10" + b"\x03\x03" + b"r" * 14), "a truncated ClientHello"),  # no room for its random
    (b"", "no TLS was sent"),
])
def test_a_hostile_client_hello_is_malformed_with_its_reason(sent: bytes, why: str) -> None:
    hello, _ = feed(sent, step=4096)
    assert isinstance(hello, Malformed) and why in hello.why, hello


def test_a_forged_client_hello_with_one_name_is_read() -> None:
    assert parse_hello(hello_with(server_name(b"registry.example"))) == Hello("registry.example")
    assert parse_hello(hello_with(b"")) == Hello(None)


def test_tls_for_another_name_inside_a_tunnel_to_the_registry_is_refused(tls_server) -> None:
    port, names = tls_server
    with private_folder() as folder, open_gate({("localhost", port)}, folder) as gate:
        assert through_gate(gate.socket_path, f"localhost:{port}", "localhost") == b"ok"
        with pytest.raises((ssl.SSLError, OSError)):
            through_gate(gate.socket_path, f"localhost:{port}", "evil.example")
        with pytest.raises((ssl.SSLError, OSError)):
            through_gate(gate.socket_path, f"localhost:{port}", None)
    assert names == ["localhost"]  # the other handshakes never reached the server
    assert gate.refused == [
        f"TLS for evil.example inside a tunnel to localhost:{port}",
        f"a tunnel to localhost:{port} whose TLS names no server (no SNI), when it must name localhost",
    ]


def test_a_tunnel_to_an_address_may_carry_tls_naming_no_server_but_not_another_name(tls_server) -> None:
    port, names = tls_server
    with private_folder() as folder, open_gate({("127.0.0.1", port)}, folder) as gate:
        assert through_gate(gate.socket_path, f"127.0.0.1:{port}", None) == b"ok"
        with pytest.raises((ssl.SSLError, OSError)):
            through_gate(gate.socket_path, f"127.0.0.1:{port}", "evil.example")
    assert names == [""] and gate.refused == [f"TLS for evil.example inside a tunnel to 127.0.0.1:{port}"]
