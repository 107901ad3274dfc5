"""The gate chains to the runner's own proxy (scanner.install.upstream_proxy): what it allows goes on through
that proxy, with the proxy's credentials, which the step never sees; what it refuses no proxy hears of.

Two loopback proxies: mcp-lock's gate, and a forward proxy standing in for the corporate one (it records what
it saw and demands credentials); the loopback npm registry and a loopback TLS server behind it.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry
from fixture_repo import Repo
from loopback_pypi import Index, serve

from install.corporate_proxy import corporate_proxy
from install.demo_npm import declare
from install.tls_server import ask, through_gate
from scanner.install.netgate import open_gate, private_folder
from scanner.install.registry_hosts import file_hosts
from scanner.install.upstream_proxy import Upstream, exempt, npm_upstream, proxy_of, uv_upstream

SECRET = "pr0xy-s3cret"
CREDENTIALS = "Basic " + base64.b64encode(f"corp user:{SECRET}@x".encode()).decode()
PROXY_URL = "http://corp%20user:" + SECRET + "%40x@127.0.0.1:{port}"


def registry_port(registry: Registry) -> int:
    return int(registry.url.rsplit(":", 1)[1].strip("/"))


def test_plain_http_goes_through_the_runner_s_proxy_with_its_credentials_and_never_the_step_s(
    npm_registry: Registry,
) -> None:
    npm_registry.publish("pkg", "1.0.0", "x")
    port = registry_port(npm_registry)
    with corporate_proxy(CREDENTIALS) as corp, private_folder() as folder:
        proxy = proxy_of(PROXY_URL.format(port=corp.port))
        with open_gate({("127.0.0.1", port)}, folder, Upstream(http=proxy)) as gate:
            step_says = "Proxy-Authorization: Basic c3RlcDpndWVzcw=="  # what package code in the step might add
            got = ask(gate.socket_path, f"GET http://127.0.0.1:{port}/pkg HTTP/1.1\r\n{step_says}\r\n\r\n".encode())
            refused = ask(gate.socket_path, b"GET http://127.0.0.1:9/x HTTP/1.1\r\n\r\n")
    assert got.split(b"\r\n", 1)[0].endswith(b"200 OK") and b'"pkg"' in got.replace(b'": "', b'":"'), got
    assert corp.seen == [(f"GET http://127.0.0.1:{port}/pkg HTTP/1.1", CREDENTIALS)]
    assert refused.startswith(b"HTTP/1.1 403") and npm_registry.served == ["pkg"]


def test_a_tunnel_goes_through_the_runner_s_proxy_and_still_carries_only_the_allowed_name(tls_server) -> None:
    port, names = tls_server
    with corporate_proxy(CREDENTIALS) as corp, private_folder() as folder:
        upstream = Upstream(https=proxy_of(PROXY_URL.format(port=corp.port)))
        with open_gate({("localhost", port)}, folder, upstream) as gate:
            assert through_gate(gate.socket_path, f"localhost:{port}", "localhost") == b"ok"
            with pytest.raises(OSError):
                through_gate(gate.socket_path, f"localhost:{port}", "evil.example")
            refused = ask(gate.socket_path, b"CONNECT elsewhere.example:443 HTTP/1.1\r\n\r\n")
    assert corp.seen == [(f"CONNECT localhost:{port} HTTP/1.1", CREDENTIALS)] * 2  # never elsewhere.example
    assert names == ["localhost"] and refused.startswith(b"HTTP/1.1 403")


def test_a_proxy_that_refuses_or_is_not_http_is_a_502_naming_it_never_a_direct_connection(tls_server) -> None:
    port, names = tls_server
    with corporate_proxy(CREDENTIALS) as corp:
        wrong = Upstream(https=proxy_of(f"http://127.0.0.1:{corp.port}"))  # no credentials: 407
        socks = Upstream(https=proxy_of(f"socks5://127.0.0.1:{corp.port}"))
        answers = []
        for upstream in (wrong, socks):
            with private_folder() as folder, open_gate({("localhost", port)}, folder, upstream) as gate:
                answers.append(ask(gate.socket_path, f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n".encode()))
    assert answers[0].startswith(b"HTTP/1.1 502 ") and b"407" in answers[0].split(b"\r\n")[0], answers[0]
    assert answers[1].startswith(b"HTTP/1.1 502 ") and b"not http://" in answers[1], answers[1]
    assert names == [] and SECRET.encode() not in b"".join(answers)


def test_no_proxy_exempts_a_destination_as_the_package_managers_read_it() -> None:
    assert exempt(("registry.corp.example", 443), ("corp.example",))
    assert exempt(("registry.corp.example", 443), (".corp.example",))
    assert not exempt(("evilcorp.example", 443), ("corp.example",))
    assert exempt(("10.1.2.3", 443), ("10.0.0.0/8",)) and exempt(("localhost", 80), ("127.0.0.1",))
    assert exempt(("a.example", 8443), ("a.example:8443",)) and not exempt(("a.example", 443), ("a.example:8443",))
    assert exempt(("::1", 443), ("[::1]",)) and exempt(("x.example", 1), ("*",))


def test_the_proxy_is_read_as_npm_and_uv_pick_it() -> None:
    env = {"HTTPS_PROXY": "http://env.example:3128", "no_proxy": "internal.example"}
    assert npm_upstream(env, None).https == proxy_of("http://env.example:3128")
    rc = "https-proxy=http://rc.example:8080\nproxy = http://plain.example:80\n"
    npm = npm_upstream(env, rc)
    assert (npm.https, npm.http, npm.no_proxy) == (
        proxy_of("http://rc.example:8080"), proxy_of("http://plain.example:80"), ("internal.example",),
    )
    assert npm_upstream({**env, "npm_config_https_proxy": "http://cfg.example:1"}, rc).https.host == "cfg.example"
    uv = uv_upstream({"ALL_PROXY": "http://all.example:1", "HTTP_PROXY": "http://h.example:2"})
    assert (uv.https.host, uv.http.host) == ("all.example", "h.example")


INSTALL_DUMP = {
    "install": "node -e \"const fs=require('fs');let rc='';try{rc=fs.readFileSync(process.env.npm_config_userconfig,"
               "'utf8')}catch(e){}fs.writeFileSync('seen.txt',JSON.stringify({env:process.env,rc:rc}))\""
}


def test_an_npm_install_reaches_the_registry_through_the_runner_s_proxy_and_no_step_sees_its_secret(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    npm_registry.publish("mcp-proxied", "1.0.0", "proxied", scripts=INSTALL_DUMP, hasInstallScript=True)
    declare(repo, npm_registry, "mcp-proxied@1.0.0")
    with corporate_proxy(CREDENTIALS) as corp:
        url = PROXY_URL.format(port=corp.port)
        npmrc = tmp_path / "user.npmrc"  # the user's npm configuration names the proxy for http
        npmrc.write_text(f"proxy={url}\nfund=false\n", encoding="utf-8")
        env = {**npm_env, "npm_config_userconfig": str(npmrc), "HTTPS_PROXY": url, "NO_PROXY": "", "no_proxy": ""}
        done = repo.run("lock", env=env)
    assert done.exit_code == 0, done.output
    port = registry_port(npm_registry)
    seen = {line for line, _ in corp.seen}
    assert f"GET http://127.0.0.1:{port}/mcp-proxied HTTP/1.1" in seen, corp.seen
    assert any(line.endswith(".tgz HTTP/1.1") for line in seen), corp.seen
    assert {auth for _, auth in corp.seen} == {CREDENTIALS}
    (dump,) = list((tmp_path / "store").rglob("seen.txt"))
    said = dump.read_text(encoding="utf-8")
    assert SECRET not in said and str(corp.port) not in said, said  # the step knows only the relay
    assert json.loads(said)["env"]["HTTPS_PROXY"] == "http://127.0.0.1:8119"
    assert json.loads(said)["rc"] == "\nfund=false\n"  # the step's copy of .npmrc: its proxy line taken out


def test_the_index_s_file_hosts_are_asked_through_the_runner_s_proxy(tmp_path: Path) -> None:
    """uv's index serves its files from hosts its page names: mcp-lock's own request for that page goes through
    the runner's proxy too, or a runner behind one could never install from such an index."""
    index = Index(tmp_path / "index")
    index.wheel("via-proxy", "1.0.0")
    with serve(index) as url, corporate_proxy(CREDENTIALS) as corp:
        hosts = file_hosts(url, "via-proxy", Upstream(http=proxy_of(PROXY_URL.format(port=corp.port))))
    assert hosts == {("127.0.0.1", int(url.rsplit(":", 1)[1].split("/")[0]))}
    assert [(line.split()[0], auth) for line, auth in corp.seen] == [("GET", CREDENTIALS)]
