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


# -- issue 36, item 3: lists match what is fetched, not its spelling ---------------------------------------

DENIED_URL = "http://127.0.0.1:8765"


def _locked(repo: Repo) -> None:
    """A lock pinning one server, so that `check --offline` judges what is added after it."""
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0


@pytest.mark.parametrize(
    "url",
    [
        "HTTP://127.0.0.1:8765/mcp",
        "http://localhost:8765/mcp",
        "http://127.1:8765/mcp",
        "http://x@127.0.0.1:8765/mcp",
        "http://[::ffff:127.0.0.1]:8765/mcp",
        "http://2130706433:8765/mcp",
        "http://127.0.0.1:99999/mcp",  # cannot be parsed: refused by a deny list with URL entries
    ],
)
@pytest.mark.parametrize("where", ["policy", "managed"])
def test_a_denied_url_is_denied_however_spelled(repo: Repo, tmp_path: Path, url: str, where: str) -> None:
    _locked(repo)
    repo.add_entry("remote", {"type": "http", "url": url})
    env = None
    if where == "policy":
        (repo.root / "mcp-lock.yaml").write_text(f"deny:\n  - url: '{DENIED_URL}/*'\n", encoding="utf-8")
    else:
        managed = tmp_path / "managed-settings.json"
        managed.write_text(json.dumps({"deniedMcpServers": [{"serverUrl": f"{DENIED_URL}/*"}]}), encoding="utf-8")
        env = {"MCP_LOCK_MANAGED_SETTINGS": str(managed)}
    code, found = findings(repo, "--offline", env=env)
    assert "server-not-allowed" in [f["rule"] for f in found], found
    assert code == 1


def test_a_url_the_deny_list_does_not_name_is_not_refused(repo: Repo) -> None:
    """The control: another loopback address, another port, and the exact spelling the allowlist names."""
    _locked(repo)
    repo.add_entry("a", {"type": "http", "url": "http://127.0.0.2:8765/mcp"})
    repo.add_entry("b", {"type": "http", "url": "https://MCP.example.com:443/mcp"})
    allow = "  - url: 'http://127.0.0.2:8765/*'\n  - url: 'https://mcp.example.com/*'\n  - name: notes\n"
    policy = f"deny:\n  - url: '{DENIED_URL}/*'\nallow:\n{allow}"
    (repo.root / "mcp-lock.yaml").write_text(policy, encoding="utf-8")
    _, found = findings(repo, "--offline")
    assert "server-not-allowed" not in [f["rule"] for f in found], found


@pytest.mark.parametrize(
    ("policy", "args"),
    [
        ("allow:\n  - package: mailpkg\n  - name: notes\n", ["npx", "-y", "mailpkg@npm:imposter@1.0.0"]),
        ("deny:\n  - package: evilpkg\n", ["uvx", "--from", "EvilPkg==1.0.0", "evilpkg"]),
        ("deny:\n  - package: evil-pkg\n", ["uvx", "evil_pkg==1.0.0"]),
        ("deny:\n  - name: evil\n", ["npx", "-y", "ok@1.0.0"]),
    ],
)
def test_a_package_or_name_is_matched_by_identity(repo: Repo, policy: str, args: list[str]) -> None:
    _locked(repo)
    repo.add_entry("Evil", {"command": args[0], "args": args[1:]})
    (repo.root / "mcp-lock.yaml").write_text(policy, encoding="utf-8")
    code, found = findings(repo, "--offline")
    assert "server-not-allowed" in [f["rule"] for f in found], found
    assert code == 1


def test_an_allowlisted_package_and_its_alias_of_itself_are_admitted(repo: Repo) -> None:
    _locked(repo)
    repo.add_entry("mail", {"command": "npx", "args": ["-y", "mailpkg@1.0.0"]})
    repo.add_entry("mail2", {"command": "npx", "args": ["-y", "other@npm:mailpkg@1.0.0"]})
    repo.add_entry("py", {"command": "uvx", "args": ["--from", "Mail_Pkg==1.0.0", "mail"]})
    allow = "allow:\n  - package: mailpkg\n  - package: mail-pkg\n  - name: notes\n"
    (repo.root / "mcp-lock.yaml").write_text(allow, encoding="utf-8")
    _, found = findings(repo, "--offline")
    assert "server-not-allowed" not in [f["rule"] for f in found], found
