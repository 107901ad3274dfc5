"""The repo policy file: skip, timeout, env passthrough, input values, and refusing a bad file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fixture_repo import Repo
from test_hostile import RAW_SERVER, add_raw, tool

from scanner.policy.settings import Policy, ServerPolicy


def write_policy(repo: Repo, text: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")


def test_env_passthrough_is_per_server(repo: Repo, tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    add_raw(repo, "proxied", {"pages": [[tool("a")]], "record_env": str(record)})
    # sandbox: off so the server can record outside the repository (and its record is not masked)
    write_policy(repo, "sandbox: off\nservers:\n  proxied:\n    env: [HTTPS_PROXY]\n")
    result = repo.run("lock", env={"HTTPS_PROXY": "http://proxy.internal:3128", "OTHER_SECRET": "x"})
    assert result.exit_code == 0, result.output
    seen = json.loads(record.read_text())
    assert seen["HTTPS_PROXY"] == "http://proxy.internal:3128"
    assert "OTHER_SECRET" not in seen
    assert "HTTPS_PROXY" not in repo.lock_json()["servers"]["proxied"]["launch"]["env"]  # policy, not launch


def test_timeout_from_policy(repo: Repo) -> None:
    add_raw(repo, "slow", {"hang_on": "initialize"})
    write_policy(repo, "servers:\n  slow:\n    timeout: 1\n")
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "timed out after 1s" in result.output


def test_vscode_input_values_come_from_the_policy(repo: Repo, tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    behaviour = tmp_path / "b.json"
    behaviour.write_text(json.dumps({"pages": [[tool("a")]], "record_env": str(record)}))
    vscode = repo.root / ".vscode"
    vscode.mkdir()
    (vscode / "mcp.json").write_text(
        json.dumps(
            {
                "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": True}],
                "servers": {
                    "keyed": {
                        "command": sys.executable,
                        "args": [str(RAW_SERVER), str(behaviour)],
                        "env": {"API_KEY": "${input:api-key}"},
                    }
                },
            }
        )
    )
    missing = repo.run("lock")
    assert missing.exit_code == 2
    assert "api-key" in missing.output

    write_policy(repo, "sandbox: off\ninputs:\n  api-key: {env: CI_API_KEY}\n")
    result = repo.run("lock", env={"CI_API_KEY": "k-123-canary"})
    assert result.exit_code == 0, result.output
    assert json.loads(record.read_text())["API_KEY"] == "k-123-canary"
    assert "k-123-canary" not in repo.lock_path.read_text()


def test_bad_policy_is_a_usage_error(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(repo, "servers:\n  notes:\n    skipp: typo\n")
    result = repo.run("check")
    assert result.exit_code == 2
    assert "unknown key(s) skipp" in result.output
    write_policy(repo, "timeout: [1\n")
    assert repo.run("list").exit_code == 2


def test_network_must_be_allow_or_deny(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(repo, "network: off\n")  # YAML reads a bare `off` as false
    result = repo.run("check")
    assert result.exit_code == 2
    assert "network must be allow or deny, got False" in result.output
    write_policy(repo, "servers:\n  notes:\n    network: none\n")
    result = repo.run("lock")
    assert result.exit_code == 2
    assert "servers.notes: network must be allow or deny, got 'none'" in result.output


def test_network_default_is_allow_and_a_server_entry_wins_over_the_file() -> None:
    policy = Policy(network="deny", servers={"open": ServerPolicy(network="allow")})
    assert policy.for_server("open").network == "allow"
    assert policy.for_server("other").network == "deny"
    assert Policy().for_server("any").network == "allow"  # no policy file: servers keep their network


def test_sandbox_and_client_settings(repo: Repo) -> None:
    from scanner.policy.settings import load_policy

    write_policy(
        repo,
        "sandbox: on\nclient: {name: Visual Studio Code, version: 1.106.0}\n"
        "servers:\n  legacy:\n    sandbox: off\n    client: {name: cursor-vscode, version: 1.0.0}\n",
    )
    policy = load_policy(repo.root, {})
    assert policy.for_server("legacy").sandbox == "off"  # a bare YAML `off` is read as false
    assert policy.for_server("legacy").client == {"name": "cursor-vscode", "version": "1.0.0"}
    assert policy.for_server("other").sandbox == "on"
    assert policy.for_server("other").client == {"name": "Visual Studio Code", "version": "1.106.0"}
    write_policy(repo, "timeout: 5\n")
    assert load_policy(repo.root, {}).for_server("any").sandbox == "on"  # the default
    assert load_policy(repo.root, {}).for_server("any").client is None  # the declaring client's


def test_bad_sandbox_or_client_is_a_usage_error(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(repo, "sandbox: maybe\n")
    result = repo.run("check")
    assert result.exit_code == 2
    assert "sandbox must be on or off, got 'maybe'" in result.output
    write_policy(repo, "servers:\n  notes:\n    client: {name: x}\n")
    result = repo.run("check")
    assert result.exit_code == 2
    assert "servers.notes: client must be a mapping with exactly name and version" in result.output
