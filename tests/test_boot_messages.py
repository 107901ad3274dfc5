"""A boot failure says what to do: the step that failed, the exit code, the last stderr lines and a fix for the
cause (a cold runner, a server that needs a login, `npx` without `-y`); a missing variable asks for the value."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_repo import Repo
from test_policy import write_policy


def script(repo: Repo, name: str, body: str) -> str:
    path = repo.root / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def details(report: Path, server: str) -> tuple[str, list[str]]:
    (finding,) = [f for f in json.loads(report.read_text())["findings"] if f["rule"] == "boot-failed"]
    assert finding["server"] == server
    return finding["message"], finding["details"]


def test_a_cold_runner_timeout_names_the_install_step_and_a_fix_that_runs_no_package_code(
    repo: Repo, tmp_path: Path
) -> None:
    repo.add_entry("slow", {"command": script(repo, "npx", "sleep 30\n"), "args": ["-y", "@acme/slow@1.0.0"]})
    result = repo.run("lock", "--timeout", "2", "--json", str(tmp_path / "r.json"))
    assert result.exit_code == 1, result.output
    message, lines = details(tmp_path / "r.json", "slow")
    assert message.startswith("slow: could not be booted: timed out after 2s")
    assert lines[0].startswith("failed at: install or start: npx installs the package")
    hint = next(line for line in lines if line.startswith("hint:"))
    # No advice to run the package on the runner outside the sandbox, and a timeout raised where it counts.
    assert "--help" not in hint and "install-timeout" in hint and "on the default branch" in hint


def test_a_server_that_needs_a_login_says_so_with_its_exit_code(repo: Repo, tmp_path: Path) -> None:
    said = "echo 'Error: not logged in. Run `acme login` to authenticate.' >&2\nexit 3\n"
    repo.add_entry("acme", {"command": script(repo, "acme-mcp", said)})
    result = repo.run("lock", "--json", str(tmp_path / "r.json"))
    assert result.exit_code == 1, result.output
    _, lines = details(tmp_path / "r.json", "acme")
    assert lines[0] == (
        "failed at: handshake: the server started but did not complete `initialize`; the server exited with code 3"
    )
    assert "stderr: Error: not logged in. Run `acme login` to authenticate." in lines
    assert any(line.startswith("hint: the server asks for a login or credentials") for line in lines)
    assert "acme login" in result.output and "exited with code 3" in result.output


def test_npx_without_yes_is_named_as_the_cause_with_the_fix(repo: Repo, tmp_path: Path) -> None:
    # npm 10's own words (npx with npm_config_yes=false and no terminal, the package not in its cache).
    said = (
        "echo 'npm error npx canceled due to missing packages and no YES option: [\"@acme/notes@1.0.0\"]' >&2\n"
        "echo 'npm error A complete log of this run can be found in: /tmp/x.log' >&2\nexit 1\n"
    )
    repo.add_entry("notes", {"command": script(repo, "npx", said), "args": ["@acme/notes@1.0.0"]})
    result = repo.run("lock", "--json", str(tmp_path / "r.json"))
    assert result.exit_code == 1, result.output
    message, lines = details(tmp_path / "r.json", "notes")
    assert message == (
        "notes: could not be booted: npx failed before the server started: npm error: npx canceled due to missing "
        'packages and no YES option: ["@acme/notes@1.0.0"]'
    )
    assert "closed the connection" not in message
    assert lines[0] == (
        "failed at: install: the launcher could not fetch or install the package, so no server started; "
        "`npx` exited with code 1"
    )
    assert any("add `-y` before the package" in line for line in lines)


def test_a_silent_exit_shows_its_code_and_what_to_try(repo: Repo, tmp_path: Path) -> None:
    repo.add_entry("mute", {"command": script(repo, "mute-mcp", "exit 7\n")})
    repo.run("lock", "--json", str(tmp_path / "r.json"))
    _, lines = details(tmp_path / "r.json", "mute")
    assert lines[0].endswith("; the server exited with code 7")
    assert lines[-1].startswith("hint: the server exited (code 7) without a word on stderr")


def test_a_missing_variable_asks_for_the_value_not_a_config_fix_and_list_passes(repo: Repo) -> None:
    repo.add_stdio("notes")
    repo.add_stdio("paid", env={"API_TOKEN": "${MCP_LOCK_TEST_UNSET_TOKEN}"})
    env = {"MCP_LOCK_TEST_UNSET_TOKEN": None}
    result = repo.run("lock", "paid", env=env)  # type: ignore[arg-type]
    assert result.exit_code == 2, result.output
    assert "fix the config files" not in result.output
    assert "set the variables or inputs named above where mcp-lock runs" in result.output
    assert "for paid, or `skip:` each such server in mcp-lock.yaml" in result.output
    listed = repo.run("list", env=env)  # type: ignore[arg-type]
    assert listed.exit_code == 0, listed.output  # list boots nothing
    assert "to boot it: server 'paid' cannot be launched here: set environment variable" in listed.output


def test_a_mistyped_server_name_gets_the_closest_ones(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(repo, "timeout: 30\n")
    for command in (["update", "note"], ["lock", "notse"], ["semver", "nots"]):
        result = repo.run(*command)
        assert result.exit_code == 2, result.output
        assert "did you mean notes?" in result.output, command
