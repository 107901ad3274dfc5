"""Which servers may be declared at all: the policy's `allow:`/`deny:` (the base's under `check --base`) and an
enterprise managed-settings.json (allowedMcpServers / deniedMcpServers) that the CI names. A server outside
them is a blocking `server-not-allowed` finding and is never booted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fixture_repo import SPEC_SERVER, Repo
from vcs.gitrepo import GitRepo, git, notes, record_boots


def findings(repo: Repo, *args: str, env: dict[str, str] | None = None) -> tuple[int, list[dict]]:
    result = repo.run("check", *args, "--format", "json", env=env)
    return result.exit_code, json.loads(result.stdout)["findings"] if result.stdout.startswith("{") else []


def test_a_server_the_policy_does_not_allow_fails_and_is_not_booted(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.add_stdio("notes")
    repo.add_stdio("extra")
    assert repo.run("lock").exit_code == 0
    (repo.root / "mcp-lock.yaml").write_text(
        f"allow:\n  - command: '{sys.executable} {SPEC_SERVER} specs/notes.json'\n", encoding="utf-8"
    )
    booted = record_boots(monkeypatch)
    code, found = findings(repo)
    assert code == 1
    [refused] = [f for f in found if f["rule"] == "server-not-allowed"]
    assert refused["server"] == "extra" and refused["blocking"] and "allowlist" in refused["message"]
    assert booted == ["notes"]


def test_a_denied_package_fails_even_offline(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    repo.add_entry("mail", {"command": "npx", "args": ["-y", "postmark-mcp@1.0.16"]})
    (repo.root / "mcp-lock.yaml").write_text("deny:\n  - package: postmark-*\n", encoding="utf-8")
    code, found = findings(repo, "--offline")
    assert code == 1
    [refused] = [f for f in found if f["rule"] == "server-not-allowed"]
    assert refused["server"] == "mail" and "mcp-lock.yaml deny[0] (package: postmark-*)" in refused["message"]


@pytest.mark.parametrize("how", ["option", "environment"])
def test_the_enterprise_managed_settings_format(repo: Repo, tmp_path: Path, how: str) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    repo.add_entry("fs", {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.1.14", "/"]})
    repo.add_entry("remote", {"type": "http", "url": "https://api.githubcopilot.com/mcp/"})
    settings = tmp_path / "managed-settings.json"
    settings.write_text(
        json.dumps(
            {
                "allowedMcpServers": [
                    {"serverUrl": "https://api.githubcopilot.com/*"},
                    {"serverCommand": [sys.executable, str(SPEC_SERVER), "specs/notes.json"]},
                    {"serverName": "fs"},
                ],
                "deniedMcpServers": [
                    {"serverCommand": ["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.1.14", "/"]}
                ],
            }
        ),
        encoding="utf-8",
    )
    if how == "option":
        args, env = ("--managed-settings", str(settings)), None
    else:
        args, env = (), {"MCP_LOCK_MANAGED_SETTINGS": str(settings)}
    code, found = findings(repo, "--offline", *args, env=env)
    assert code == 1
    refused = {f["server"]: f["message"] for f in found if f["rule"] == "server-not-allowed"}
    # fs is allowed by name but denied by its exact command; notes and remote match their entries
    assert set(refused) == {"fs"} and "managed-settings.json deniedMcpServers[0]" in refused["fs"]


def test_a_command_entry_binds_stdio_servers_a_name_is_not_enough(repo: Repo, tmp_path: Path) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    settings = tmp_path / "managed-settings.json"
    settings.write_text(
        json.dumps({"allowedMcpServers": [{"serverName": "notes"}, {"serverCommand": ["npx", "-y", "other"]}]}),
        encoding="utf-8",
    )
    code, found = findings(repo, "--offline", "--managed-settings", str(settings))
    assert code == 1 and [f["server"] for f in found if f["rule"] == "server-not-allowed"] == ["notes"]
    settings.write_text(json.dumps({"allowedMcpServers": []}), encoding="utf-8")
    code, found = findings(repo, "--offline", "--managed-settings", str(settings))
    assert any("the allowlist is empty" in f["message"] for f in found)


@pytest.mark.parametrize(
    ("text", "message"),
    [("allow: {package: x}\n", "must be a list"), ("deny:\n  - {pkg: x}\n", "one key of package, command, url, name")],
)
def test_a_bad_list_is_a_usage_error(repo: Repo, text: str, message: str) -> None:
    repo.add_stdio("notes")
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2 and message in result.output


def test_under_base_a_change_cannot_allow_its_own_server(tmp_path: Path) -> None:
    pr = GitRepo(tmp_path / "top")
    pr.add_in_dir("a", "a")
    pr.write("mcp-lock.yaml", f"allow:\n  - command: '{sys.executable} {SPEC_SERVER} a/spec.json'\n")
    assert pr.run("lock").exit_code == 0
    pr.commit("Pin a, allow only a")
    pr.branch("feature")
    pr.add_in_dir("b", "b")
    pr.write("mcp-lock.yaml", f"allow:\n  - command: '{sys.executable} {SPEC_SERVER} *'\n")
    pr.run("lock")
    pr.commit("Add b and allow it")
    report = pr.report("--base", "main", "--offline")
    assert report["exit_code"] == 1, report["output"]
    assert [f["server"] for f in notes(report, "server-not-allowed")] == ["b"]
    [loosened] = notes(report, "policy-loosened")
    assert "allow" in loosened["message"]
    git(pr.top, "checkout", "-q", "main")
    assert pr.report("--offline")["exit_code"] == 0  # main itself is within its list
