"""What a hostile server cannot take: paths outside the repository, host disk, RAM past a bound, the process table.

Each attack here succeeded on the sandbox before binds, tmpfs sizes, the stderr pipe and the pids cgroup.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repo import Repo
from test_policy import write_policy

from scanner.transports import cgroup, sandbox
from transports.test_sandbox import add_attacker, described

ROOT = Path(__file__).parents[2]


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder under /tmp outside the repository, as a declaration would name it."""
    path = Path(tempfile.mkdtemp(prefix="mcp-lock-outside-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def listening(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(1)
    return listener


def messages(report: Path, rule: str) -> list[str]:
    return [f["message"] for f in json.loads(report.read_text())["findings"] if f["rule"] == rule]


def test_a_declared_path_entry_does_not_bind_a_host_folder_back(repo: Repo, outside: Path, tmp_path: Path) -> None:
    """`env.PATH` naming a folder under /tmp reached a host socket there, even with network: deny."""
    sock, alone = outside / "service.sock", Path(tempfile.mkdtemp(prefix="mcp-lock-sock-")) / "docker.sock"
    listeners = [listening(sock), listening(alone)]
    try:
        add_attacker(repo, "dialer", {"connect_unix": [str(sock), str(alone)]})
        repo.servers["dialer"]["env"] = {"PATH": f"{outside}:{alone}:{os.environ['PATH']}"}
        repo.write_config()
        write_policy(repo, "network: deny\n")
        result = repo.run("lock", "--json", str(tmp_path / "report.json"))
        assert json.loads(described(repo, "dialer", "unix")) == {str(sock): "ENOENT", str(alone): "ENOENT"}
        assert result.exit_code == 1, result.output  # the refusal is a finding
        (message,) = messages(tmp_path / "report.json", "sandbox-bind-refused")
        assert f"does not bind back env.PATH entry {outside}, env.PATH entry {alone}: each lies under" in message
    finally:
        for listener in listeners:
            listener.close()
        shutil.rmtree(alone.parent, ignore_errors=True)


def test_a_socket_the_sandbox_still_shows_refuses_connections(repo: Repo) -> None:
    """A listening socket inside what is bound back (here the repository, under /tmp) or outside /tmp and /run."""
    sock = repo.root / "service.sock"
    listener = listening(sock)
    try:
        add_attacker(repo, "dialer", {"connect_unix": [str(sock)]})
        assert repo.run("lock").exit_code == 0
        assert json.loads(described(repo, "dialer", "unix")) == {str(sock): "ECONNREFUSED"}
    finally:
        listener.close()


def test_a_working_directory_outside_the_repository_is_not_bound(repo: Repo, outside: Path) -> None:
    marker = outside / "secret.txt"
    marker.write_text("host file")
    add_attacker(repo, "mover", {"write_into": [str(marker)]})
    repo.servers["mover"]["cwd"] = str(outside)
    repo.write_config()
    result = repo.run("lock")
    assert result.exit_code == 1, result.output
    assert f"mover: could not be booted: cwd {outside} lies under /tmp or /run outside the repository" in result.output
    assert marker.read_text() == "host file"


# Runs a command and prints its exit code and its own peak RSS (KiB), from wait4 on that pid alone. A small
# launcher forks it: Linux carries a process's pre-exec high-water mark over into the program it execs, so
# a child forked (or vforked) from the test process would start at the test process's RSS; and
# RUSAGE_CHILDREN is the running maximum over every child the test process ever waited for.
PEAK_LAUNCHER = r"""
import json, os, resource, subprocess, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
stderr = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
child.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps([child.returncode, usage.ru_maxrss, stderr[-4000:].decode("utf-8", "replace")]))
"""


def peak_rss(command: list[str], env: dict[str, str], file_limit: int) -> tuple[int, int, str]:
    """Exit code, peak RSS in KiB (the command and the children it waited for) and stderr tail of `command`."""
    launcher = [sys.executable, "-S", "-c", PEAK_LAUNCHER, str(file_limit), *command]
    done = subprocess.run(launcher, capture_output=True, text=True, env=env, timeout=180, check=True)
    code, peak, stderr = json.loads(done.stdout)
    return code, peak, stderr


def test_stderr_flood_touches_no_host_file_and_stays_small(tmp_path: Path) -> None:
    """100 MiB on stderr: with a 16 MiB file-size limit, a stderr file on the host would kill the server."""
    repo = Repo(tmp_path)
    add_attacker(repo, "loud", {"stderr_bytes": 100 * 1024 * 1024})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "scanner", "lock", "--repo", str(tmp_path), "--quiet"]
    code, peak, stderr = peak_rss(command, env, 16 * 1024 * 1024)
    assert code == 0, stderr
    assert list(repo.lock_json()["servers"]["loud"]["tools"]) == ["idle"]
    assert peak < 400 * 1024  # KiB: mcp-lock and the server, not 100 MiB of stderr kept


def test_a_crashing_servers_stderr_tail_is_still_shown(repo: Repo) -> None:
    script = repo.root / "crash.py"
    script.write_text("import sys\nsys.stderr.write('x' * 100000 + '\\nImportError: the real cause\\n')\nsys.exit(3)\n")
    repo.add_entry("crash", {"command": sys.executable, "args": [str(script)]})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "stderr: ImportError: the real cause" in result.output


def test_filling_the_private_tmp_stops_at_its_size(repo: Repo) -> None:
    add_attacker(repo, "filler", {"fill_tmp": 64 * 1024 * 1024})
    write_policy(repo, "tmpfs-mib: 8\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    outcome = json.loads(described(repo, "filler", "fill"))
    assert outcome["error"] == "ENOSPC" and outcome["written"] <= 8 * 1024 * 1024


def test_the_policy_raises_the_tmpfs_size(repo: Repo) -> None:
    add_attacker(repo, "filler", {"fill_tmp": 12 * 1024 * 1024})
    write_policy(repo, "tmpfs-mib: 8\nservers:\n  filler:\n    tmpfs-mib: 16\n")
    assert repo.run("lock").exit_code == 0
    assert json.loads(described(repo, "filler", "fill")) == {"written": 12 * 1024 * 1024, "error": None}


def _pids_controller() -> bool:
    limit = cgroup.ProcessLimit.create()
    limit.close()
    return limit.path is not None


needs_pids = pytest.mark.skipif(not _pids_controller(), reason="no writable cgroup pids controller here")


@needs_pids
@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_fork_bomb_is_held_to_the_process_limit(repo: Repo, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.setattr(cgroup, "PIDS_MAX", 24)
    made: list[cgroup.ProcessLimit] = []
    create = cgroup.ProcessLimit.create
    recorded = classmethod(lambda cls, *a, **kw: made.append(create(*a, **kw)) or made[-1])
    monkeypatch.setattr(cgroup.ProcessLimit, "create", recorded)
    add_attacker(repo, "bomb", {"fork": 200})
    write_policy(repo, f"sandbox: {mode}\n")
    result = repo.run("lock")
    started = int(described(repo, "bomb", "fork"))
    assert 0 < started < 24
    assert result.exit_code == 1, result.output
    assert "more than 24 processes or threads" in result.output and "[sandbox-limit-hit]" in result.output
    assert made and all(limit.path is not None and not limit.path.exists() for limit in made)  # removed after


@needs_pids
def test_sandbox_off_a_daemon_that_dropped_its_environment_is_ended(repo: Repo) -> None:
    """It left the process group (setsid) and the marker (execve with {}); the per-boot cgroup still holds it."""
    marker = f"mcp-lock-test-daemon-{uuid.uuid4().hex}"
    add_attacker(repo, "daemon", {"daemon": marker})
    write_policy(repo, "sandbox: off\n")
    try:
        assert repo.run("lock").exit_code == 0
        deadline = time.monotonic() + 5
        while _pids(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _pids(marker) == []
    finally:
        for pid in _pids(marker):
            os.kill(pid, signal.SIGKILL)


def _pids(marker: str) -> list[int]:
    done = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_missing_command_is_named_behind_the_wrappers(repo: Repo, mode: str) -> None:
    """The cgroup's shell wrapper (and bwrap) would report their own exec failure; the command is named instead."""
    repo.add_entry("ghost", {"command": "no-such-mcp-server-binary"})
    write_policy(repo, f"sandbox: {mode}\n")
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "ghost: could not be booted: command not found: no-such-mcp-server-binary" in result.output


@pytest.mark.parametrize("mode", ["on", "off"])
def test_a_command_that_cannot_be_executed_is_named(repo: Repo, mode: str) -> None:
    script = repo.root / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    repo.add_entry("plain", {"command": "./server.sh"})
    write_policy(repo, f"sandbox: {mode}\n")
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "plain: could not be booted: cannot execute ./server.sh: permission denied" in result.output


def test_a_command_inside_a_bound_folder_is_not_refused_though_it_links_elsewhere(tmp_path: Path) -> None:
    # mcp-lock's own venv under /tmp (a CI checkout there): its bin/python links to the base interpreter.
    venv, elsewhere = tmp_path / "venv", tmp_path / "elsewhere"
    (venv / "bin").mkdir(parents=True)
    elsewhere.mkdir()
    (venv / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    (elsewhere / "server").write_text("#!/bin/sh\n", encoding="utf-8")
    (venv / "bin" / "escape").symlink_to(elsewhere / "server")  # leads to an unbound /tmp folder
    trusted = [str(venv)]
    assert sandbox._binds(str(venv / "bin" / "python3"), "", str(tmp_path), trusted)[1] == []
    refused = sandbox._binds(str(venv / "bin" / "escape"), "", str(tmp_path), trusted)[1]
    assert refused == [f"command {venv / 'bin' / 'escape'}"]
