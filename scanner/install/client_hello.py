"""The server name a TLS client asks for (SNI), read from the first bytes of a tunnel through mcp-lock's gate.

A `CONNECT host:port` names where the tunnel goes, not which site the client speaks TLS to: at one address a
CDN or a shared host serves many names, and the name chosen is the ClientHello's `server_name` extension
(RFC 6066 section 3). So the gate reads the ClientHello the client sends first (scanner.install.netgate) and
lets the tunnel on only when that name is the allowed host. The bytes are the step's, so hostile: every
length is checked against what is there, reading is bounded (HELLO_LIMIT), and anything that is not exactly
one well-formed ClientHello is an answer that refuses, never an exception:

- `Hello(name)`: a ClientHello with one host name (None when it names none: RFC 6066 says an address is not
  sent as a name);
- `Malformed(why)`: not TLS, truncated, two names, a name that is not a DNS name, or an encrypted
  ClientHello (ECH: the name that counts is then inside, unreadable here).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

HELLO_LIMIT = 64 * 1024  # bytes of handshake records read: a ClientHello is a few hundred bytes to a few KiB
RECORD_LIMIT = 16384 + 2048  # a TLSCiphertext fragment's largest length (RFC 8446 section 5.2)
HANDSHAKE, CLIENT_HELLO = 0x16, 0x01
SERVER_NAME, ENCRYPTED_CLIENT_HELLO = 0x0000, 0xFE0D
HOST_NAME = 0
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")


@dataclass(frozen=True)
class Hello:
    name: str | None  # lower-cased, without a trailing dot


@dataclass(frozen=True)
class Malformed:
    why: str


class _Short(Exception):
    """The bytes end before a length they state."""


class _Bad(Exception):
    """The bytes are not what a ClientHello holds."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, count: int) -> bytes:
        if self.at + count > len(self.data):
            raise _Short
        part = self.data[self.at : self.at + count]
        self.at += count
        return part

    def number(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big")

    def vector(self, size: int) -> _Reader:
        return _Reader(self.take(self.number(size)))

    def done(self) -> bool:
        return self.at == len(self.data)


def read_hello(receive: Callable[[int], bytes]) -> tuple[Hello | Malformed, bytes]:
    """Read TLS records with `receive` (a socket's recv) until they hold the whole ClientHello (at most
    HELLO_LIMIT bytes); what it asks for, and every byte read, to be sent on when it passes."""
    data = b""
    while True:
        handshake = _handshake_bytes(data)
        if isinstance(handshake, Malformed):
            return handshake, data
        if handshake is not None and len(handshake) >= 4:
            length = int.from_bytes(handshake[1:4], "big")
            if 4 + length > HELLO_LIMIT:
                return Malformed(f"a ClientHello of {length} bytes"), data
            if len(handshake) >= 4 + length:
                return parse_hello(handshake[: 4 + length]), data
        if len(data) >= HELLO_LIMIT:
            return Malformed(f"no whole ClientHello in its first {HELLO_LIMIT} bytes"), data
        chunk = receive(HELLO_LIMIT - len(data))
        if not chunk:
            return Malformed("the connection ended before a whole ClientHello" if data else "no TLS was sent"), data
        data += chunk


def _handshake_bytes(data: bytes) -> bytes | Malformed | None:
    """The handshake bytes the whole records at the start of `data` carry (None: not one whole record yet)."""
    reader, carried = _Reader(data), b""
    while not reader.done():
        try:
            kind, version, length = reader.number(1), reader.number(2), reader.number(2)
        except _Short:
            break
        if kind != HANDSHAKE or version >> 8 != 3:
            return Malformed("what was sent through the tunnel is not TLS")
        if length == 0 or length > RECORD_LIMIT:
            return Malformed(f"a TLS record of {length} bytes")
        try:
            carried += reader.take(length)
        except _Short:
            break
        if len(carried) >= 4 and len(carried) >= 4 + int.from_bytes(carried[1:4], "big"):
            break  # the ClientHello is whole: what follows is the client's next records, not read here
    return carried or None


def parse_hello(message: bytes) -> Hello | Malformed:
    """The server name of one handshake message (type, 3-byte length, body), which must be a ClientHello."""
    try:
        reader = _Reader(message)
        if reader.number(1) != CLIENT_HELLO:
            return Malformed("the first TLS message is not a ClientHello")
        body = reader.vector(3)
        if not reader.done():
            return Malformed("bytes after the ClientHello")
        return _hello_body(body)
    except _Short:
        return Malformed("a truncated ClientHello")
    except _Bad as why:
        return Malformed(str(why))


def _hello_body(body: _Reader) -> Hello:
    body.take(2 + 32)  # legacy_version, random
    if len(body.vector(1).data) > 32:
        raise _Bad("a ClientHello with a session id longer than 32 bytes")
    suites = body.vector(2)
    if not suites.data or len(suites.data) % 2:
        raise _Bad("a ClientHello with no cipher suites, or half of one")
    if not body.vector(1).data:
        raise _Bad("a ClientHello with no compression method")
    if body.done():
        return Hello(None)  # no extensions at all
    extensions = body.vector(2)
    if not body.done():
        raise _Bad("bytes after the ClientHello's extensions")
    seen: set[int] = set()
    name: str | None = None
    while not extensions.done():
        kind, data = extensions.number(2), extensions.vector(2)
        if kind in seen:
            raise _Bad(f"a ClientHello with extension {kind} twice")
        seen.add(kind)
        if kind == ENCRYPTED_CLIENT_HELLO:
            raise _Bad("an encrypted ClientHello (ECH), whose server name cannot be read")
        if kind == SERVER_NAME:
            name = _server_name(data)
    return Hello(name)


def _server_name(extension: _Reader) -> str:
    names = extension.vector(2)
    if not extension.done():
        raise _Bad("bytes after the server name list")
    found: list[bytes] = []
    while not names.done():
        kind, value = names.number(1), names.vector(2).data
        if kind != HOST_NAME:
            raise _Bad(f"a server name of type {kind}")
        found.append(value)
    if len(found) != 1:
        raise _Bad(f"a server name extension with {len(found)} host names")
    try:
        text = found[0].decode("ascii").lower().removesuffix(".")
    except UnicodeDecodeError:
        raise _Bad("a server name that is not ASCII") from None
    if len(text) > 253 or not all(_LABEL.fullmatch(label) for label in text.split(".")):
        raise _Bad(f"a server name that is not a DNS name: {text[:80]!r}")
    return text
