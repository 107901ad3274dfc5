"""Registry questions over connections kept open (scanner.artifacts.kept_alive): a first lock asks a registry
about each of thousands of packages, and a new TCP and TLS handshake for each one (urllib's way) was most of the
3 minutes the 28 real servers' facts took. On a loopback HTTP/1.1 server that counts the connections it accepts:
one connection serves many answers, errors read as urllib's, and whatever it does not do itself (a proxy, a
redirect) goes through urllib as before."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
from collections.abc import Iterator

import loopback_http
import pytest

from scanner.artifacts.http_body import read_body
from scanner.artifacts.kept_alive import Connections, opened
from scanner.artifacts.packument import PACKUMENT, RegistryError, fetch_json


class Server:
    def __init__(self) -> None:
        self.connections = 0
        self.paths: list[str] = []
        self.close_after = 0  # close each connection after this many answers (0: keep it)
        self.lock = threading.Lock()


@pytest.fixture
def server() -> Iterator[tuple[Server, str]]:
    state = Server()

    class Handler(loopback_http.Handler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the public registries answer

        def setup(self) -> None:
            super().setup()
            with state.lock:
                state.connections += 1
            self.answered = 0

        def do_GET(self) -> None:
            state.paths.append(self.path)
            self.answered += 1
            if state.close_after and self.answered >= state.close_after:
                self.close_connection = True
            if self.path.startswith("/missing"):
                self.answer(404, "application/json", b'{"error": "not found"}')
            elif self.path.startswith("/moved"):
                self.answer(301, "text/plain", b"", ("Location", "/doc/moved"))
            else:
                self.answer(200, "application/json", json.dumps({"path": self.path}).encode())

    http, address = loopback_http.start(Handler)
    yield state, address
    http.shutdown()
    http.server_close()


def ask(connections: Connections | None, url: str) -> object:
    return fetch_json(url, "application/json", time.monotonic() + 10, time.monotonic, absent={},
                      connections=connections)


def test_one_connection_answers_many_questions(server: tuple[Server, str]) -> None:
    state, address = server
    with Connections() as connections:
        answers = [ask(connections, f"{address}/doc/{n}?q={n}") for n in range(20)]
    assert answers == [{"path": f"/doc/{n}?q={n}"} for n in range(20)]
    assert state.connections == 1
    assert connections.opened == 1


def test_without_it_every_question_is_a_new_connection(server: tuple[Server, str]) -> None:
    """What urllib does (and every caller that passes no Connections still does)."""
    state, address = server
    for n in range(5):
        assert ask(None, f"{address}/doc/{n}") == {"path": f"/doc/{n}"}
    assert state.connections == 5


def test_an_error_answer_reads_as_urllibs_and_keeps_the_connection(server: tuple[Server, str]) -> None:
    state, address = server
    with Connections() as connections:
        assert ask(connections, f"{address}/missing/a") == {}  # 404: the registry has no such document
        with pytest.raises(urllib.error.HTTPError) as raised, connections.get(f"{address}/missing/b", "*/*", 5):
            pass
        assert raised.value.code == 404
        assert ask(connections, f"{address}/doc/after") == {"path": "/doc/after"}
    assert state.connections == 1


def test_a_connection_the_server_closed_is_replaced(server: tuple[Server, str]) -> None:
    state, address = server
    state.close_after = 2  # the server ends each connection after its second answer, as idle ones end
    with Connections() as connections:
        answers = [ask(connections, f"{address}/doc/{n}") for n in range(6)]
    assert answers == [{"path": f"/doc/{n}"} for n in range(6)]
    assert state.connections == 3


def test_a_redirect_is_followed_by_urllib(server: tuple[Server, str]) -> None:
    state, address = server
    with Connections() as connections:
        assert ask(connections, f"{address}/moved") == {"path": "/doc/moved"}
    assert state.paths == ["/moved", "/moved", "/doc/moved"]  # asked again by urllib, which follows it


def test_an_answer_past_its_bound_closes_its_connection(server: tuple[Server, str]) -> None:
    state, address = server
    with Connections() as connections:
        with pytest.raises(RegistryError, match="larger than"), \
                opened(f"{address}/doc/big", "*/*", 5, connections) as response:
            read_body(response, 4, time.monotonic() + 5, time.monotonic, answer="it", late="late",
                      error=RegistryError)
        assert ask(connections, f"{address}/doc/next") == {"path": "/doc/next"}
    assert state.connections == 2  # the half-read one was not handed out again
    assert PACKUMENT.bytes > 4


def test_a_proxy_the_environment_names_is_used(
    server: tuple[Server, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runner behind a proxy reaches its registry through it, as with urllib: the request goes to the proxy."""
    state, _ = server
    proxy_paths: list[str] = []

    class Proxy(loopback_http.Handler):
        def do_GET(self) -> None:
            proxy_paths.append(self.path)
            self.answer(200, "application/json", b'{"via": "proxy"}')

    proxy, proxy_address = loopback_http.start(Proxy)
    try:
        monkeypatch.setenv("http_proxy", proxy_address)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        with Connections() as connections:
            assert ask(connections, "http://registry.invalid/doc/x") == {"via": "proxy"}
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert proxy_paths == ["http://registry.invalid/doc/x"]
    assert state.connections == 0
