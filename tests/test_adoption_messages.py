"""Messages a new user meets: what to run for an unpinned server, why a launcher failed, an impossible date."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from fixture_repo import Repo

VENV_BIN = str(Path(sys.executable).parent)  # uv comes with the test extra


def write_policy(repo: Repo, text: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")


def _path_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
        "npm_config_cache": str(tmp_path / "empty-npm-cache"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
    }


def _need(tool: str) -> None:
    if shutil.which(tool, path=f"{VENV_BIN}:{os.environ.get('PATH', '')}") is None:
        pytest.fail(f"{tool} is not installed; Node.js provides npx, the test extra uv")


def test_offline_check_asks_to_lock_an_unpinned_server_not_to_update_it(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    repo.add_stdio("fresh")
    result = repo.run("check", "--offline")
    assert result.exit_code == 1, result.output
    assert "pin fresh with `mcp-lock lock`" in result.output and "`skip:`" in result.output
    assert "mcp-lock update" not in result.output


def test_npx_offline_without_the_package_cached_says_npm_failed(repo: Repo, tmp_path: Path) -> None:
    # Real npm, run offline by `network: deny`, with an empty cache: it fails before any server starts. (`-c`:
    # a launch mcp-lock does not install itself, so npx does the installing, in the sandbox.)
    _need("npx")
    args = ["-y", "-p", "@modelcontextprotocol/server-memory@2025.8.4", "-c", "mcp-server-memory"]
    repo.add_entry("memory", {"command": "npx", "args": args})
    write_policy(repo, "network: deny\n")
    result = repo.run("lock", env=_path_env(tmp_path))
    assert result.exit_code == 1, result.output
    assert "memory: could not be booted: npx failed before the server started: npm error ENOTCACHED" in result.output
    assert "closed the connection" not in result.output
    assert "hint: under `network: deny` npm runs offline" in result.output
    assert "code-unpinned" in result.output
    assert not repo.lock_path.exists()  # every boot failed: nothing written


def test_npx_of_the_repositorys_own_package_is_installed_from_the_registry_only(repo: Repo, tmp_path: Path) -> None:
    # The repository's package.json (or node_modules) never stands in for the package a launch names: mcp-lock
    # resolves it from the registry, here one that does not answer, and says which step failed.
    _need("npx")
    (repo.root / "package.json").write_text(
        '{"name": "@acme/server-notes", "version": "1.0.0", "bin": {"server-notes": "dist/index.js"}}',
        encoding="utf-8",
    )
    dead = {"npm_config_registry": "http://127.0.0.1:9/"}
    repo.add_entry("notes", {"command": "npx", "args": ["-y", "@acme/server-notes@1.0.0"], "env": dead})
    result = repo.run("lock", env={**_path_env(tmp_path), "npm_config_fetch_retries": "0"})
    assert result.exit_code == 1, result.output
    assert "installing the launch's packages failed at `npm install --package-lock-only`: exit code 1" in result.output
    assert "ECONNREFUSED" in result.output


def test_uv_run_syncing_in_the_read_only_repository_says_so(repo: Repo, tmp_path: Path) -> None:
    _need("uv")
    (repo.root / "pyproject.toml").write_text(
        '[project]\nname = "notes"\nversion = "1.0.0"\nrequires-python = ">=3.11"\ndependencies = []\n',
        encoding="utf-8",
    )
    (repo.root / "server.py").write_text("print('never reached')\n", encoding="utf-8")
    repo.add_entry("notes", {"command": "uv", "args": ["run", "server.py"]})
    write_policy(repo, "network: deny\n")
    result = repo.run("lock", env=_path_env(tmp_path))
    assert result.exit_code == 1, result.output
    assert "uv failed before the server started: uv error:" in result.output
    assert "Read-only file system" in result.output
    assert "hint: `uv run` re-syncs the project's environment" in result.output and "--no-sync" in result.output


def test_the_sdk_2_missing_decorator_gets_the_sdk_hint(repo: Repo) -> None:
    crash = "import sys; sys.exit(\"AttributeError: 'Server' object has no attribute 'list_tools'\")"
    repo.add_entry("old", {"command": sys.executable, "args": ["-c", crash]})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "written for the mcp SDK 1.x" in result.output


def test_a_lock_whose_every_boot_failed_writes_nothing(repo: Repo) -> None:
    repo.add_entry("broken", {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]})
    result = repo.run("lock")
    assert result.exit_code == 1, result.output
    assert not repo.lock_path.exists()
    assert "not written: no server was pinned" in result.output
    # A repository whose only server is skipped still gets its (empty) lock: nothing failed.
    write_policy(repo, 'servers:\n  broken:\n    skip: "needs hardware"\n')
    assert repo.run("lock").exit_code == 0
    assert repo.lock_json()["servers"] == {}


def test_an_impossible_until_date_names_its_line(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(
        repo,
        "ignore:\n  - rule: MCPL-D012\n    server: notes\n    reason: reviewed\n    until: 2027-02-30\n",
    )
    result = repo.run("check", "--offline")
    assert result.exit_code == 2
    assert "mcp-lock.yaml: line 5, column 12: 2027-02-30 is not a day of the calendar" in result.output


def test_a_server_that_exits_without_a_word_says_when_and_its_exit_code(repo: Repo) -> None:
    repo.add_entry("silent", {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]})
    result = repo.run("lock")
    assert result.exit_code == 1
    lead = "silent: could not be booted: the server exited with code 3 without a word on stdout or stderr during"
    assert lead in result.output, result.output


def test_a_server_writing_into_the_read_only_repository_gets_the_tmp_hint(repo: Repo) -> None:
    # the server opens a log file in its working directory, the repository, which the sandbox keeps read-only
    writes = "open('server.log', 'w').write('started')"
    repo.add_entry("logger", {"command": sys.executable, "args": ["-c", writes]})
    result = repo.run("lock")
    assert result.exit_code == 1, result.output
    assert "Read-only file system" in result.output
    assert "hint: the server wrote into a read-only place at start-up" in result.output
    assert not (repo.root / "server.log").exists()


def test_a_crash_that_writes_nothing_gets_no_tmp_hint(repo: Repo) -> None:
    repo.add_entry("crash", {"command": sys.executable, "args": ["-c", "raise SystemExit('no config found')"]})
    result = repo.run("lock")
    assert result.exit_code == 1, result.output
    assert "wrote into a read-only place" not in result.output
