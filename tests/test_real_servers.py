"""Real published servers at pinned versions, installed from npm and PyPI by the tests themselves.

A dependency bot's version bump of a real server is the best drift test there is: these tests pin an
old release, bump the version in `.mcp.json` the way Dependabot would, and watch `check` fail on the
tools that really changed until `update` re-pins them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repo import Repo

pytestmark = pytest.mark.network
FS_OLD, FS_NEW = "2025.7.1", "2026.8.31"
TIME_OLD, TIME_NEW = "2025.9.25", "2026.10.19"
EVERYTHING = "2026.1.14"
TIMEOUT = "240"  # first runs download the package


def _tool_path(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed; `pip install -e '.[test]'` installs uv, Node.js provides npx")
    return found


@pytest.fixture
def path_env() -> dict[str, str]:
    """PATH with this interpreter's bin first, so `uvx` from the test extra is found by servers' launches."""
    return {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def filesystem(version: str) -> dict[str, object]:
    return {"command": "npx", "args": ["-y", f"@modelcontextprotocol/server-filesystem@{version}", "."]}


def time_server(version: str) -> dict[str, object]:
    # Old releases declare mcp>=1.0 without an upper bound and crash on SDK 2.x; this is how users run them.
    # The new release needs SDK 2.x, so the bump drops the constraint as well.
    legacy = ["--with", "mcp<2"] if version == TIME_OLD else []
    return {"command": "uvx", "args": [*legacy, f"mcp-server-time=={version}"]}


def test_npm_version_bump_fails_check_until_update(repo: Repo, path_env: dict[str, str]) -> None:
    _tool_path("npx")
    repo.add_entry("filesystem", filesystem(FS_OLD))
    lock = repo.run("lock", "--timeout", TIMEOUT, env=path_env)
    assert lock.exit_code == 0, lock.output
    old_tools = repo.lock_json()["servers"]["filesystem"]["tools"]
    assert "read_file" in old_tools

    repo.add_entry("filesystem", filesystem(FS_NEW))  # the bot's one-line bump
    check = repo.run("check", "--timeout", TIMEOUT, env=path_env)
    assert check.exit_code == 1, check.output
    assert f"server-filesystem@{FS_NEW}" in check.output  # launch-changed shows the new argument
    assert "launch-changed" in check.output
    assert "filesystem: tool `" in check.output  # and the real tool changes, by name

    update = repo.run("update", "filesystem", "--timeout", TIMEOUT, env=path_env)
    assert update.exit_code == 0, update.output
    assert "accepted filesystem: tool `" in update.output
    assert repo.lock_json()["servers"]["filesystem"]["launch"]["args"][1].endswith(FS_NEW)
    # Every tool the new release added or dropped was named by check, and nothing else was.
    new_tools = repo.lock_json()["servers"]["filesystem"]["tools"]
    for name in new_tools.keys() - old_tools.keys():
        assert f"tool `{name}` was added" in check.output
    for name in old_tools.keys() - new_tools.keys():
        assert f"tool `{name}` was removed" in check.output
    for name in old_tools.keys() & new_tools.keys():
        changed = old_tools[name]["digest"] != new_tools[name]["digest"]
        assert (f"tool `{name}` changed" in check.output) == changed
    assert repo.run("check", "--timeout", TIMEOUT, env=path_env).exit_code == 0


def test_pypi_version_bump_and_timezone_independence(repo: Repo, path_env: dict[str, str]) -> None:
    _tool_path("uvx")
    repo.add_entry("time", time_server(TIME_OLD))
    lock = repo.run("lock", "--timeout", TIMEOUT, env={**path_env, "TZ": "Europe/Berlin"})
    assert lock.exit_code == 0, lock.output
    pinned = json.dumps(repo.lock_json()["servers"]["time"]["tools"])
    assert "Europe/Berlin" not in pinned  # the laptop's timezone does not leak into the pin
    assert "get_current_time" in pinned

    same = repo.run("check", "--timeout", TIMEOUT, env={**path_env, "TZ": "America/New_York"})
    assert same.exit_code == 0, same.output  # a lock made in Berlin passes in CI elsewhere

    repo.add_entry("time", time_server(TIME_NEW))
    check = repo.run("check", "--timeout", TIMEOUT, env=path_env)
    assert check.exit_code == 1, check.output
    assert "launch-changed" in check.output
    update = repo.run("update", "--timeout", TIMEOUT, env=path_env)
    assert update.exit_code == 0, update.output
    assert repo.run("check", "--timeout", TIMEOUT, env=path_env).exit_code == 0


def test_everything_server_pins_every_kind(repo: Repo, path_env: dict[str, str]) -> None:
    _tool_path("npx")
    package = f"@modelcontextprotocol/server-everything@{EVERYTHING}"
    repo.add_entry("everything", {"command": "npx", "args": ["-y", package]})
    lock = repo.run("lock", "--timeout", TIMEOUT, env=path_env)
    assert lock.exit_code == 0, lock.output
    pinned = repo.lock_json()["servers"]["everything"]
    assert "echo" in pinned["tools"]
    assert pinned["prompts"] and pinned["resources"] and pinned["resourceTemplates"]
    assert pinned["serverInfo"]["name"] == "mcp-servers/everything"
    check = repo.run("check", "--timeout", TIMEOUT, env=path_env)
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize("launcher", ["npx", "uvx"])
def test_sandboxed_launchers_check_without_network(repo: Repo, path_env: dict[str, str], launcher: str) -> None:
    """npx and uvx boot in the sandbox from the caller's cache, warmed outside mcp-lock without running the
    package (the sandbox never writes it), with network and then without."""
    tool = _tool_path(launcher)
    if launcher == "npx":
        package = f"@modelcontextprotocol/server-everything@{EVERYTHING}"
        warm = [tool.replace("npx", "npm"), "exec", "--yes", "--ignore-scripts", f"--package={package}", "--", "true"]
        repo.add_entry("real", {"command": "npx", "args": ["-y", package]})
    else:
        warm = [tool, "--from", f"mcp-server-time=={TIME_NEW}", "python", "-c", "pass"]
        repo.add_entry("real", time_server(TIME_NEW))
    warmed = subprocess.run(warm, capture_output=True, text=True, timeout=300, env={**os.environ, **path_env}, cwd="/")
    assert warmed.returncode == 0, warmed.stderr
    (repo.root / "mcp-lock.yaml").write_text("sandbox: on\nnetwork: allow\n", encoding="utf-8")
    lock = repo.run("lock", "--timeout", TIMEOUT, env=path_env)
    assert lock.exit_code == 0, lock.output
    assert repo.lock_json()["servers"]["real"]["tools"]
    (repo.root / "mcp-lock.yaml").write_text("sandbox: on\nnetwork: deny\n", encoding="utf-8")
    check = repo.run("check", "--timeout", TIMEOUT, env=path_env)
    assert check.exit_code == 0, check.output
