"""The sandbox: a scanned stdio server cannot touch the verdict (each attack here succeeds with `sandbox: off`)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fixture_repo import FIXTURES, Repo
from test_hostile import add_raw, tool
from test_policy import write_policy

import scanner

ATTACKER = FIXTURES / "servers" / "attacker.py"
SCANNER_DIR = Path(scanner.__file__).parent


def add_attacker(repo: Repo, name: str, behaviour: dict[str, Any], config: str = ".mcp.json") -> None:
    path = repo.root / f"{name}.behaviour.json"
    path.write_text(json.dumps(behaviour), encoding="utf-8")
    repo.add_entry(name, {"command": sys.executable, "args": [str(ATTACKER), str(path)]})


def described(repo: Repo, server: str, tool_name: str) -> str:
    return str(repo.lock_json()["servers"][server]["tools"][tool_name]["definition"]["description"])


def test_server_cannot_write_into_mcp_locks_installation(repo: Repo) -> None:
    installed = Path(sys.prefix) / f"mcp_lock_sandbox_probe_{uuid.uuid4().hex}.py"  # in mcp-lock's venv
    planted = SCANNER_DIR / f"_planted_{uuid.uuid4().hex}.py"  # a new module in mcp-lock's own package
    installed.write_text("ORIGINAL = True\n")
    try:
        add_attacker(repo, "writer", {"write_into": [str(installed), str(planted)]})
        result = repo.run("lock")
        assert result.exit_code == 0, result.output
        outcome = json.loads(described(repo, "writer", "write"))
        assert outcome == {str(installed): "EROFS", str(planted): "EROFS"}
        assert installed.read_text() == "ORIGINAL = True\n"
        assert not planted.exists()
    finally:
        installed.unlink(missing_ok=True)
        planted.unlink(missing_ok=True)


def test_server_cannot_clobber_the_working_tree(repo: Repo) -> None:
    add_attacker(repo, "clobber", {"write_into": [str(repo.root / "mcp-lock.json"), str(repo.root / ".mcp.json")]})
    assert repo.run("lock").exit_code == 0
    lock, config = repo.lock_path.read_bytes(), (repo.root / ".mcp.json").read_bytes()
    assert set(json.loads(described(repo, "clobber", "write")).values()) == {"EROFS"}
    result = repo.run("check")
    assert result.exit_code == 0, result.output
    assert repo.lock_path.read_bytes() == lock
    assert (repo.root / ".mcp.json").read_bytes() == config


def test_server_cannot_read_the_scanners_environment(tmp_path: Path) -> None:
    """/proc shows only the sandbox's processes: not mcp-lock's, nor the CI job's around it."""
    repo = Repo(tmp_path)
    add_attacker(repo, "snoop", {"read_environs": True})
    canary = f"ghp_canary{uuid.uuid4().hex}"
    env = {**os.environ, "GITHUB_TOKEN": canary, "PYTHONPATH": str(Path(__file__).parents[2])}
    command = [sys.executable, "-m", "scanner", "lock", "--repo", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PATH=" in described(repo, "snoop", "environ")  # it did read an environment: the sandbox's own
    assert canary not in repo.lock_path.read_text()
    assert canary not in done.stdout + done.stderr


def test_detached_daemon_is_gone_after_the_boot(repo: Repo) -> None:
    marker = f"mcp-lock-test-daemon-{uuid.uuid4().hex}"
    add_attacker(repo, "daemon", {"daemon": marker})
    try:
        result = repo.run("lock")
        assert result.exit_code == 0, result.output
        deadline = time.monotonic() + 5
        while _pids(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _pids(marker) == []
    finally:
        for pid in _pids(marker):  # a failing defence must not leave the daemon behind
            os.kill(pid, signal.SIGKILL)


def _pids(marker: str) -> list[int]:
    done = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


@pytest.mark.parametrize(
    ("config", "expected"),
    [(".mcp.json", "claude-code"), (".vscode/mcp.json", "Visual Studio Code"), (".cursor/mcp.json", "cursor-vscode")],
)
def test_server_sees_the_declaring_clients_name(repo: Repo, config: str, expected: str) -> None:
    behaviour = repo.root / "b.json"
    behaviour.write_text(json.dumps({"echo_client": True, "cloak": True}))
    entry = {"command": sys.executable, "args": [str(ATTACKER), str(behaviour)]}
    key = "servers" if config == ".vscode/mcp.json" else "mcpServers"
    (repo.root / config).parent.mkdir(exist_ok=True)
    (repo.root / config).write_text(json.dumps({key: {"cloaked": entry}}))
    write_policy(repo, "env: [MCP_LOCK_DEBUG]\n")  # a scanner variable, even when allowed, is not passed on
    result = repo.run("lock", env={"MCP_LOCK_DEBUG": "1"})
    assert result.exit_code == 1, result.output  # the poisoned description is found
    (server,) = repo.lock_json()["servers"]
    assert json.loads(described(repo, server, "client"))["name"] == expected
    assert "<IMPORTANT>" in described(repo, server, "fetch")


def test_policy_sets_the_client_shown(repo: Repo) -> None:
    add_attacker(repo, "cloaked", {"echo_client": True, "cloak": True})
    write_policy(repo, "servers:\n  cloaked:\n    client: {name: mcp-lock, version: 9.9}\n")
    result = repo.run("lock")
    # The lock pins what the policy's client was shown; the second listing (as another client) saw the poison.
    assert result.exit_code == 1 and "[client-dependent-listing]" in result.output, result.output
    assert json.loads(described(repo, "cloaked", "client")) == {"name": "mcp-lock", "version": "9.9"}
    assert "<IMPORTANT>" not in described(repo, "cloaked", "fetch")  # the policy's name is the one it saw


def test_sandboxed_server_has_a_private_home_and_no_scanner_variables(repo: Repo) -> None:
    add_raw(repo, "envy", {"pages": [[tool("a")]], "record_env": "tool"})
    assert repo.run("lock").exit_code == 0
    seen = json.loads(described(repo, "envy", "env"))
    assert seen["HOME"] == "/tmp/home" and seen["TMPDIR"] == "/tmp"
    assert not [name for name in seen if name.startswith("MCP_LOCK_")]


def test_sandbox_off_keeps_the_old_launch(repo: Repo, tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    add_raw(repo, "plain", {"pages": [[tool("a")]], "record_env": str(record)})
    write_policy(repo, "sandbox: off\n")
    assert repo.run("lock").exit_code == 0
    assert json.loads(record.read_text())["HOME"] == os.environ["HOME"]


def test_no_bwrap_on_path_fails_closed(repo: Repo, tmp_path: Path) -> None:
    add_raw(repo, "boxed", {"pages": [[tool("a")]]})
    add_raw(repo, "open", {"pages": [[tool("b")]]})
    write_policy(repo, "servers:\n  open:\n    sandbox: off\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = repo.run("lock", env={"PATH": str(empty)})
    assert result.exit_code == 1
    assert "boxed: could not be booted: stdio servers run in a bubblewrap sandbox (`sandbox: on`, the default), " \
        "but there is no `bwrap` on PATH; not started" in result.output
    assert "package `bubblewrap`" in result.output and "`sandbox: off`" in result.output
    assert "sandbox: on is set" not in result.output and "AppArmor" not in result.output  # nothing set, no namespace
    assert list(repo.lock_json()["servers"]) == ["open"]


def test_bwrap_refused_a_user_namespace_fails_closed(repo: Repo, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls.log"
    fake = bin_dir / "bwrap"  # what bwrap prints under Ubuntu 24.04's AppArmor restriction
    refusal = "bwrap: setting up uid map: Permission denied"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho "{refusal}" >&2\nexit 1\n')
    fake.chmod(0o755)
    add_raw(repo, "boxed", {"pages": [[tool("a")]]})
    result = repo.run("lock", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert result.exit_code == 1
    assert "cannot start a sandbox here (bwrap: setting up uid map: Permission denied)" in result.output
    assert "profile bwrap /usr/bin/bwrap flags=(unconfined)" in result.output
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in result.output
    invocations = calls.read_text().splitlines()
    assert len(invocations) == 1 and "raw_server" not in invocations[0]  # probed once, never launched


def test_sandbox_works_for_a_user_without_root() -> None:
    root = Path(tempfile.mkdtemp(prefix="mcp-lock-nonroot-"))
    try:
        root.chmod(0o777)
        repo = Repo(root)
        marker = f"mcp-lock-test-daemon-{uuid.uuid4().hex}"
        add_attacker(repo, "hostile", {"daemon": marker, "write_into": [str(root / ".mcp.json")]})
        if os.getuid() == 0:  # our interpreter may sit under root's 0700 home; the system one is reachable
            repo.servers["hostile"]["command"] = "/usr/bin/python3"
            repo.write_config()
        write_policy(repo, "network: deny\n")
        for path in root.iterdir():
            path.chmod(path.stat().st_mode | stat.S_IROTH)
        (root / ".mcp.json").chmod(0o666)  # only the sandbox stands in the way
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
        command = [*drop, sys.executable, "-m", "scanner", "lock", "--repo", str(root), "--quiet"]
        env = {"PATH": os.environ["PATH"], "HOME": str(root), "PYTHONPATH": str(Path(__file__).parents[2])}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(described(repo, "hostile", "write")) == {str(root / ".mcp.json"): "EROFS"}
        assert _pids(marker) == []
    finally:
        for pid in _pids(marker):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)


def test_a_relative_repository_path_is_the_servers_working_directory(repo: Repo) -> None:
    add_raw(repo, "relative", {"pages": [[tool("a")]]})
    repo.servers["relative"]["args"] = [repo.servers["relative"]["args"][0], "relative.behaviour.json"]
    repo.write_config()  # the behaviour file is found only from the repository's own directory
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    command = [sys.executable, "-m", "scanner", "lock", "--repo", ".", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=repo.root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(repo.lock_json()["servers"]["relative"]["tools"]) == ["a"]


@pytest.mark.skipif(not os.access("/run", os.W_OK), reason="needs to create a service socket in /run (CI runs as root)")
def test_service_sockets_are_out_of_reach(repo: Repo, tmp_path: Path) -> None:
    """A read-only mount does not stop connect(): /run (Docker, D-Bus, PostgreSQL) is hidden, and so is /tmp."""
    import socket

    service = Path("/run") / f"mcp-lock-test-{uuid.uuid4().hex}"
    service.mkdir()
    paths = [str(service / "docker.sock"), str(tmp_path / "x11.sock")]
    listeners = []
    try:
        for path in paths:
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(path)
            listener.listen(1)
            listeners.append(listener)
        add_attacker(repo, "dialer", {"connect_unix": paths})
        repo.servers["dialer"]["args"] += paths  # naming them in the declaration does not bind them back
        repo.write_config()
        result = repo.run("lock")
        assert result.exit_code == 0, result.output
        assert json.loads(described(repo, "dialer", "unix")) == dict.fromkeys(paths, "ENOENT")
    finally:
        for listener in listeners:
            listener.close()
        shutil.rmtree(service, ignore_errors=True)


VSCODE = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}


@pytest.mark.parametrize(
    ("config", "version", "capabilities"),
    [
        (".mcp.json", "2025-06-18", {"roots": {}}),
        (".vscode/mcp.json", "2025-06-18", VSCODE),
        (".cursor/mcp.json", "2025-06-18", {"roots": {}, "elicitation": {}}),
    ],
)
def test_the_handshake_is_the_declaring_clients(repo: Repo, config: str, version: str, capabilities: Any) -> None:
    """Protocol version and capabilities as that client sends them (client_handshakes.json), not `{}` and the
    newest version for everyone; and a server asking `roots/list` gets the repository, as from the client."""
    behaviour = repo.root / "b.json"
    behaviour.write_text(json.dumps({"echo_hello": True, "ask_roots": True}))
    entry = {"command": sys.executable, "args": [str(ATTACKER), str(behaviour)]}
    key = "servers" if config == ".vscode/mcp.json" else "mcpServers"
    (repo.root / config).parent.mkdir(exist_ok=True)
    (repo.root / config).write_text(json.dumps({key: {"greeter": entry}}))
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    (server,) = repo.lock_json()["servers"]
    assert json.loads(described(repo, server, "hello")) == {"protocolVersion": version, "capabilities": capabilities}
    root = {"uri": repo.root.resolve().as_uri(), "name": repo.root.resolve().name}
    assert json.loads(described(repo, server, "roots")) == {"result": {"roots": [root]}}


def test_only_an_unsandboxed_boot_looks_for_its_marked_processes(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marker scan reads every process's environment on the machine; in the sandbox no process carries the
    marker (its PID namespace ends them all), so a sandboxed boot does not pay for the scan (issue 39 item 3)."""
    import scanner.transports.local as local

    scans: list[str] = []
    real = local.kill_marked
    monkeypatch.setattr(local, "kill_marked", lambda marker: scans.append(marker) or real(marker))
    add_raw(repo, "boxed", {"pages": [[tool("a")]]})
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert scans == []
    write_policy(repo, "sandbox: off\n")
    assert repo.run("update").exit_code == 0
    assert scans and len(set(scans)) >= 1  # unsandboxed: its marked processes are still found and ended
