"""Servers that misbehave: each run ends in bounded time, with a clear finding and nothing left running."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fixture_repo import FIXTURES, Repo

RAW_SERVER = FIXTURES / "servers" / "raw_server.py"
ODD_TOOL = {
    "name": "odd",
    "description": "A tool whose schema the SDK models reject.",
    "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"},  # no "type", as server-filesystem
    "x-vendor": {"kept": [1, 2.5, None]},
}


def add_raw(repo: Repo, name: str, behaviour: dict[str, Any]) -> None:
    path = repo.root / f"{name}.behaviour.json"
    path.write_text(json.dumps(behaviour), encoding="utf-8")
    repo.add_entry(name, {"command": sys.executable, "args": [str(RAW_SERVER), str(path)]})


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"Tool {name}.", "inputSchema": {"type": "object"}}


def test_pins_what_the_sdk_would_reject_and_follows_every_page(repo: Repo) -> None:
    add_raw(repo, "raw", {"pages": [[ODD_TOOL, tool("a")], [tool("b")], [tool("c")]], "protocolVersion": "2024-11-05"})
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    pinned = repo.lock_json()["servers"]["raw"]
    assert sorted(pinned["tools"]) == ["a", "b", "c", "odd"]
    assert pinned["tools"]["odd"]["definition"] == ODD_TOOL  # exactly as sent, unknown fields included
    assert pinned["protocolVersion"] == "2024-11-05"


def test_modern_only_server_is_pinned_through_discover(repo: Repo) -> None:
    behaviour = {"pages": [[tool("a")], [tool("b")]], "modern_only": True, "instructions": "Modern.",
                 "serverInfo": {"name": "modern", "version": "2.0"}}
    add_raw(repo, "modern", behaviour)
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    pinned = repo.lock_json()["servers"]["modern"]
    assert pinned["protocolVersion"] == "2026-07-28"
    assert pinned["serverInfo"] == {"name": "modern", "version": "2.0"}
    assert pinned["instructions"] == "Modern."
    assert sorted(pinned["tools"]) == ["a", "b"]


def test_cursor_loop_fails_closed(repo: Repo) -> None:
    add_raw(repo, "loop", {"pages": [[tool("a")]], "loop_cursor": True})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "pages in a loop" in result.output


def test_endless_pagination_fails_closed(repo: Repo) -> None:
    add_raw(repo, "endless", {"endless": True})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "did not end after 500 pages" in result.output


@pytest.mark.parametrize("method", ["initialize", "tools/list"])
def test_hang_is_bounded_by_the_timeout(repo: Repo, method: str) -> None:
    add_raw(repo, "hang", {"pages": [[tool("a")]], "hang_on": method})
    started = time.monotonic()
    result = repo.run("lock", "--timeout", "2")
    assert result.exit_code == 1
    assert f"timed out after 2s waiting for {'the initialize handshake' if method == 'initialize' else method}" in (
        result.output
    )
    assert time.monotonic() - started < 15


def test_exit_during_handshake(repo: Repo) -> None:
    add_raw(repo, "quitter", {"exit_on": "initialize"})
    result = repo.run("lock")
    assert result.exit_code == 1
    # The step and the exit code are named (issue 32): not "closed the connection", which is what every exit looks
    # like from the client's side.
    line = next(line for line in result.output.splitlines() if "quitter: could not be booted" in line)
    assert "the server exited with code 3 without a word on stdout or stderr during" in line
    assert "initialize" in line, line


def test_banner_on_stdout_is_ignored(repo: Repo) -> None:
    add_raw(repo, "chatty", {"pages": [[tool("a")]], "banner": "\x1b[32mServer ready!\x1b[0m"})
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert list(repo.lock_json()["servers"]["chatty"]["tools"]) == ["a"]
    # Said once, as a note that does not fail the run: a strict client may choke on the banner.
    assert "ignored 1 line(s) on stdout that are not JSON-RPC" in result.output
    assert "[server-note]" in result.output


def test_stderr_flood_does_not_deadlock(repo: Repo) -> None:
    add_raw(repo, "flood", {"pages": [[tool("a")]], "stderr_mb": 20})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("sandbox", ["on", "off"])  # off: the reaper's marker; on: the sandbox's PID namespace
def test_child_ignoring_sigterm_is_killed(repo: Repo, tmp_path: Path, sandbox: str) -> None:
    marker = tmp_path / "child.pid"
    add_raw(repo, "forker", {"pages": [[tool("a")]], "child_ignoring_sigterm": str(marker)})
    (repo.root / "mcp-lock.yaml").write_text(f"sandbox: {sandbox}\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert_gone(marker)


def marked(marker: Path) -> list[int]:
    """Processes whose command line carries `marker`, seen from outside any sandbox."""
    import subprocess

    done = subprocess.run(["pgrep", "-f", str(marker)], capture_output=True, text=True)
    return [int(pid) for pid in done.stdout.split()]


# Bounds on waiting, not on speed: generous, so that a loaded machine (pytest-xdist workers, other jobs) only
# makes these tests slower, never fails them.
WAIT = 120


def assert_gone(marker: Path) -> None:
    deadline = time.monotonic() + WAIT
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked(marker) == []


def default_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


def test_duplicate_tool_names_are_reported(repo: Repo) -> None:
    add_raw(repo, "dupes", {"pages": [[tool("a"), {**tool("a"), "description": "The other a."}]]})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "definition-invalid" in result.output


def test_schema_nested_past_pydantic_limit_is_still_pinned(repo: Repo) -> None:
    # 120 objects nest 240 JSON levels: past the 200 that pydantic's JSON parser takes, within the lock's 256.
    add_raw(repo, "deep", {"pages": [[tool("a"), {**tool("deep"), "inputSchema": "NESTED"}]], "nest_schema": 120})
    result = repo.run("lock", "--timeout", "30")
    assert "timed out" not in result.output
    assert sorted(repo.lock_json()["servers"]["deep"]["tools"]) == ["a", "deep"]


def test_response_too_deep_to_parse_fails_at_once_not_at_the_timeout(repo: Repo) -> None:
    add_raw(repo, "abyss", {"pages": [[{**tool("deep"), "inputSchema": "NESTED"}]], "nest_schema": 5000})
    add_raw(repo, "fine", {"pages": [[tool("a")]]})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 1
    assert "could not parse the response" in result.output and "nested too deeply" in result.output
    assert "timed out" not in result.output
    assert sorted(repo.lock_json()["servers"]) == ["fine"]


def test_line_past_the_size_limit_fails_its_request_without_buffering_it(repo: Repo) -> None:
    add_raw(repo, "huge", {"pages": [[{**tool("a"), "description": "PAD"}]], "pad_mb": 80})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 1
    assert "could not parse the response: a line longer than 67108864 bytes" in result.output
    assert "timed out" not in result.output


def test_non_utf8_bytes_do_not_crash(repo: Repo) -> None:
    add_raw(repo, "bytes", {"pages": [[{**tool("a"), "description": "bad BADBYTES here"}]], "raw_bytes": True})
    result = repo.run("lock")
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1)


def test_server_sees_a_minimal_reproducible_environment(repo: Repo, tmp_path: Path) -> None:
    add_raw(repo, "envy", {"pages": [[tool("a")]], "record_env": "tool"})
    repo.servers["envy"]["env"] = {"DECLARED": "yes"}
    repo.write_config()
    canary = {"GITHUB_TOKEN": "ghp_canary_secret_value", "AWS_SECRET_ACCESS_KEY": "canary", "TZ": "Europe/Berlin"}
    result = repo.run("lock", env=canary)
    assert result.exit_code == 0, result.output
    seen = json.loads(repo.lock_json()["servers"]["envy"]["tools"]["env"]["definition"]["description"])
    assert "GITHUB_TOKEN" not in seen and "AWS_SECRET_ACCESS_KEY" not in seen
    assert seen["TZ"] == "UTC" and seen["LC_ALL"] == "C.UTF-8"
    assert seen["DECLARED"] == "yes"
    assert "ghp_canary_secret_value" not in repo.lock_path.read_text()
    assert repo.lock_json()["servers"]["envy"]["launch"]["env"] == {"DECLARED": "yes"}
    assert sorted(repo.lock_json()["servers"]["envy"]["tools"]) == ["a", "env"]


def test_ctrl_c_ends_every_server_and_keeps_the_lock(repo: Repo, tmp_path: Path) -> None:
    import signal
    import subprocess

    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    before = repo.lock_path.read_bytes()
    marker = tmp_path / "child.pid"
    add_raw(repo, "hang", {"hang_on": "tools/list", "child_ignoring_sigterm": str(marker)})
    command = [sys.executable, "-m", "scanner", "update", "--repo", str(repo.root)]
    # Ctrl-C as a terminal delivers it: with SIGINT at its default, whatever this pytest inherited (a background
    # job of a non-interactive shell, which the workers of pytest-xdist then are too, starts with it ignored).
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    deadline = time.monotonic() + WAIT
    while not marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked(marker)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert repo.lock_path.read_bytes() == before
    assert_gone(marker)


def test_each_server_is_pinned_and_analysed_while_the_others_still_boot(repo: Repo, monkeypatch: Any) -> None:
    """A slow server does not hold up the work on a fast one; findings still come in declaration order."""
    from scanner.model.findings import Finding
    from scanner.model.rules import rule
    from scanner.run import pinning
    from scanner.run.offline import bootable
    from scanner.run.workspace import Options, open_workspace

    add_raw(repo, "slow", {"pages": [[tool("a")]], "hang_on": "initialize"})
    add_raw(repo, "fast", {"pages": [[tool("b")]]})
    events: list[str] = []
    real_failure = pinning.boot_failure

    def failure(server: Any, result: Any) -> Any:
        events.append(server.key)
        return real_failure(server, result)

    monkeypatch.setattr(pinning, "boot_failure", failure)

    def analyse(key: str, server_pin: Any) -> list[Any]:
        events.append(f"analysed {key}")
        return [Finding(rule("server-note"), key, f"{key}: analysed", None)]  # type: ignore[arg-type]

    workspace = open_workspace(repo.root, None)
    ready, _ = bootable(workspace, workspace.discovery.servers)
    live, findings = pinning.boot_and_pin(workspace, ready, Options(timeout=3), analyse)
    assert events == ["analysed fast", "slow"]  # fast was done before slow timed out
    assert list(live) == ["fast"]
    assert [(f.server, f.rule.id) for f in findings] == [("slow", "boot-failed"), ("fast", "server-note")]
