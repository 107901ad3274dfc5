"""`network: deny`: a stdio server runs in its own network namespace, or is not started at all.

A listener in the test's (host) namespace on 127.0.0.1 is what an isolated server must not reach.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repo import Repo, free_port
from test_hostile import add_raw, assert_gone, tool
from test_policy import write_policy


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.settimeout(0.5)
        yield sock


def accepted(sock: socket.socket) -> int:
    count = 0
    while True:
        try:
            sock.accept()[0].close()
        except TimeoutError:
            return count
        count += 1


def net_description(repo: Repo, name: str) -> str:
    return str(repo.lock_json()["servers"][name]["tools"]["net"]["definition"]["description"])


# off: util-linux unshare, whose namespace keeps loopback down; on: bubblewrap's, whose loopback is up
# but its own (nothing listens there). Either way the host's listener is never reached.
@pytest.mark.parametrize(("sandbox", "refusal"), [("off", "Network is unreachable"), ("on", "Connection refused")])
def test_deny_blocks_what_allow_reaches(
    repo: Repo, listener: socket.socket, tmp_path: Path, sandbox: str, refusal: str
) -> None:
    port = listener.getsockname()[1]
    add_raw(repo, "open", {"connect_to": port, "record_netns": str(tmp_path / "open.ns")})
    add_raw(repo, "closed", {"connect_to": port, "record_netns": str(tmp_path / "closed.ns")})
    add_raw(repo, "default", {"connect_to": port})
    write_policy(repo, f"sandbox: {sandbox}\nnetwork: deny\nservers:\n  open:\n    network: allow\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert net_description(repo, "open") == "connected"
    for name in ("closed", "default"):  # per-server deny, and the file's default
        assert refusal in net_description(repo, name)
    assert accepted(listener) == 1
    if sandbox == "off":  # a sandboxed server's records stay in its private /tmp
        own = os.readlink("/proc/self/ns/net")
        assert (tmp_path / "open.ns").read_text() == own
        assert (tmp_path / "closed.ns").read_text() != own
    assert repo.run("check").exit_code == 0  # the isolated surface is as reproducible as any


def test_no_unshare_on_path_fails_closed(repo: Repo, tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    add_raw(repo, "closed", {"pages": [[tool("a")]], "record_env": str(record)})
    add_raw(repo, "open", {"pages": [[tool("b")]]})
    write_policy(repo, "sandbox: off\nservers:\n  closed:\n    network: deny\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = repo.run("lock", env={"PATH": str(empty)})
    assert result.exit_code == 1
    assert "no `unshare` on PATH; not started" in result.output
    assert "network: allow" in result.output
    assert not record.exists()  # never started, not even without isolation
    assert "open" in repo.lock_json()["servers"]  # the others are still pinned


def test_unshare_that_cannot_isolate_fails_closed(repo: Repo, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls.log"
    fake = bin_dir / "unshare"  # what unshare prints where user namespaces are disabled
    fake.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n'
    )
    fake.chmod(0o755)
    record = tmp_path / "env.json"
    add_raw(repo, "closed", {"pages": [[tool("a")]], "record_env": str(record)})
    write_policy(repo, "sandbox: off\nnetwork: deny\n")
    result = repo.run("lock", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert result.exit_code == 1
    assert "cannot create a network namespace here (unshare: unshare failed: Operation not permitted)" in (
        result.output
    )
    assert "kernel.unprivileged_userns_clone" in result.output
    assert not record.exists()
    invocations = calls.read_text().splitlines()
    assert invocations and all("raw_server" not in line for line in invocations)  # only probed, never launched


def test_remote_server_cannot_be_isolated(repo: Repo) -> None:
    repo.add_entry("remote", {"type": "http", "url": f"http://127.0.0.1:{free_port()}/mcp"})
    write_policy(repo, "servers:\n  remote:\n    network: deny\n")
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "network: deny applies only to stdio servers" in result.output


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_tree_inside_the_namespace_is_reaped(repo: Repo, tmp_path: Path, sandbox: str) -> None:
    marker = tmp_path / "child.pid"
    add_raw(repo, "forker", {"pages": [[tool("a")]], "child_ignoring_sigterm": str(marker)})
    write_policy(repo, f"sandbox: {sandbox}\nnetwork: deny\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert_gone(marker)


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_timeout_holds_inside_the_namespace(repo: Repo, tmp_path: Path, sandbox: str) -> None:
    marker = tmp_path / "child.pid"
    add_raw(repo, "hang", {"hang_on": "initialize", "child_ignoring_sigterm": str(marker)})
    write_policy(repo, f"sandbox: {sandbox}\nnetwork: deny\n")
    started = time.monotonic()
    result = repo.run("lock", "--timeout", "2")
    assert result.exit_code == 1
    assert "timed out after 2s waiting for the initialize handshake" in result.output
    assert time.monotonic() - started < 15
    assert_gone(marker)


def test_missing_command_is_named_under_isolation(repo: Repo) -> None:
    repo.add_entry("ghost", {"command": "no-such-mcp-server-binary", "args": []})
    write_policy(repo, "network: deny\n")
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "command not found: no-such-mcp-server-binary" in result.output


def test_isolation_works_for_a_user_without_root(listener: socket.socket) -> None:
    """CI runners are not root: run the whole lock as an unprivileged user (nobody, when we are root).

    With `sandbox: off`, so util-linux's namespace is what is tested (test_sandbox tests bubblewrap's)."""
    root = Path(tempfile.mkdtemp(prefix="mcp-lock-nonroot-"))
    try:
        root.chmod(0o777)
        repo = Repo(root)
        pidfile = root / "child.pid"
        port = listener.getsockname()[1]
        add_raw(repo, "forker", {"connect_to": port, "child_ignoring_sigterm": str(pidfile)})
        if os.getuid() == 0:  # our interpreter may sit under root's 0700 home; the system one is reachable
            repo.servers["forker"]["command"] = "/usr/bin/python3"
            repo.write_config()
        write_policy(repo, "sandbox: off\nnetwork: deny\n")
        for path in root.iterdir():
            path.chmod(path.stat().st_mode | stat.S_IROTH)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
        command = [*drop, sys.executable, "-m", "scanner", "lock", "--repo", str(root), "--quiet"]
        env = {"PATH": os.environ["PATH"], "HOME": str(root), "PYTHONPATH": str(Path(__file__).parents[2])}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
        net = json.loads((root / "mcp-lock.json").read_text())["servers"]["forker"]["tools"]["net"]
        assert "Network is unreachable" in net["definition"]["description"]
        assert accepted(listener) == 0
        assert_gone(pidfile)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_denied_server_is_told_to_use_package_caches(repo: Repo) -> None:
    # npx would otherwise wait out its registry timeouts (over a minute) before using its cache.
    add_raw(repo, "closed", {"pages": [[tool("a")]], "record_env": "tool"})
    add_raw(repo, "own", {"pages": [[tool("b")]], "record_env": "tool"})
    repo.servers["own"]["env"] = {"UV_OFFLINE": "0"}
    repo.write_config()
    add_raw(repo, "open", {"pages": [[tool("c")]], "record_env": "tool"})
    write_policy(repo, "network: deny\nservers:\n  open:\n    network: allow\n")
    assert repo.run("lock").exit_code == 0
    pinned = repo.lock_json()["servers"]
    seen = {n: json.loads(pinned[n]["tools"]["env"]["definition"]["description"]) for n in pinned}
    closed, own, open_ = seen["closed"], seen["own"], seen["open"]
    assert closed["npm_config_offline"] == "true" and closed["UV_OFFLINE"] == "1"
    assert own["UV_OFFLINE"] == "0"  # the declaration's own value wins
    assert "npm_config_offline" not in open_ and "UV_OFFLINE" not in open_
