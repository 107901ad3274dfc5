"""A host in its one spelling, whatever way it is written: what an allow entry, the gate's allowed registry and
a TLS server name are compared as (scanner.policy.identity, scanner.install.netgate)."""

from __future__ import annotations

import ipaddress
import re
import socket


def host_identity(host: str) -> str | None:
    """`host` lower-cased, without a trailing dot, in IDNA form; an IPv4 address in dotted-quad form whatever
    its spelling (`127.1`, `0x7f.0.0.1`, `2130706433`), an IPv4-mapped IPv6 address as IPv4, and `localhost` as
    127.0.0.1 (the same host; other loopback addresses are not). None when it cannot be a host."""
    host = host.strip().rstrip(".").lower()
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        return str(mapped) if mapped is not None else str(address)
    if address is not None:
        return str(address)
    if re.fullmatch(r"[0-9a-fx.]+", host) and not re.fullmatch(r"[a-f.]+", host):
        try:  # the shorthand spellings every resolver accepts: 127.1, 0x7f000001, 017700000001
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return host or None
