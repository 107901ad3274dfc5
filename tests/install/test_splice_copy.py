"""The gate's and the relay's copy through a kernel pipe (os.splice): every byte arrives in order, the gate's
byte budget still stops a connection before the chunk that spends it goes on, and a silent peer ends the copy
after the idle bound instead of holding it open."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import pytest

from scanner.install import relay
from scanner.install.splice_copy import spliced

pytestmark = pytest.mark.skipif(not hasattr(os, "splice"), reason="os.splice is Linux-only")


def _pattern(size: int) -> bytes:
    return bytes(range(256)) * (size // 256)


def _feed(sock: socket.socket, data: bytes) -> threading.Thread:
    def send() -> None:
        with contextlib.suppress(OSError):  # the copy may stop (its budget spent) before all is sent
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _drain(sock: socket.socket, into: list[bytes]) -> threading.Thread:
    def receive() -> None:
        while chunk := sock.recv(1 << 16):
            into.append(chunk)

    thread = threading.Thread(target=receive, daemon=True)
    thread.start()
    return thread


def _pairs(timeout: float | None) -> tuple[socket.socket, socket.socket, socket.socket, socket.socket]:
    far_in, source = socket.socketpair()
    target, far_out = socket.socketpair()
    for sock in (source, target):
        sock.settimeout(timeout)
    return far_in, source, target, far_out


@pytest.mark.parametrize("copier", ["gate", "relay"])
def test_every_byte_arrives_in_order_through_the_pipe(copier: str) -> None:
    data = _pattern(5 * 1024 * 1024 + 256)
    far_in, source, target, far_out = _pairs(30.0 if copier == "gate" else None)
    got: list[bytes] = []
    counted: list[int] = []
    feeding, draining = _feed(far_in, data), _drain(far_out, got)
    if copier == "gate":
        assert spliced(source, target, lambda n: counted.append(n) or False, 30_000)
    else:
        assert relay._spliced(source, target)
    target.shutdown(socket.SHUT_WR)
    feeding.join(10), draining.join(10)
    assert b"".join(got) == data
    assert copier == "relay" or sum(counted) == len(data)


def test_the_budget_stops_the_copy_before_the_chunk_that_spends_it() -> None:
    limit = 1024 * 1024
    far_in, source, target, far_out = _pairs(30.0)
    got: list[bytes] = []
    total = [0]

    def over(count: int) -> bool:
        total[0] += count
        return total[0] > limit

    _feed(far_in, _pattern(8 * 1024 * 1024))
    draining = _drain(far_out, got)
    assert spliced(source, target, over, 30_000)
    target.shutdown(socket.SHUT_WR)
    draining.join(10)
    assert 0 < len(b"".join(got)) <= limit < total[0]


def test_a_silent_peer_ends_the_copy_after_the_idle_bound() -> None:
    far_in, source, target, far_out = _pairs(30.0)
    started = time.monotonic()
    assert spliced(source, target, lambda n: False, 200)
    assert time.monotonic() - started < 5
    far_in.close(), far_out.close()


@pytest.mark.parametrize("closed", ["source", "target"])
def test_a_socket_closed_under_the_copy_ends_it_without_an_error(closed: str) -> None:
    # The gate's close() closes every open connection while their copies run: a closed socket's fileno is -1,
    # which select.poll refuses with ValueError (not OSError), raised in the copy's thread on a fresh clone's run.
    left, source = socket.socketpair()
    target, right = socket.socketpair()
    for sock in (source, target):
        sock.settimeout(1)
    (source if closed == "source" else target).close()
    try:
        assert spliced(source, target, lambda _count: False, 100) is True
    finally:
        for sock in (left, source, target, right):
            sock.close()
