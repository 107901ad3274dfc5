"""A newcomer's first day: the silent no-ops and misleading messages a first run used to meet."""

from __future__ import annotations

import json
import sys

from fixture_repo import SPEC_SERVER, Repo, base_spec
from test_hostile import add_raw, tool

UNSET = {"MCP_LOCK_TEST_UNSET_TOKEN": None}  # type: ignore[dict-item]


def write_policy(repo: Repo, text: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")


def test_optional_list_answering_method_not_found_is_pinned_empty_with_a_note(repo: Repo) -> None:
    # raw_server answers -32601 to every method but initialize and tools/list.
    add_raw(repo, "devtools", {"pages": [[tool("a")]], "capabilities": {"tools": {}, "resources": {}, "prompts": {}}})
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    pinned = repo.lock_json()["servers"]["devtools"]
    assert sorted(pinned["tools"]) == ["a"]
    assert pinned["resources"] == {} and pinned["resourceTemplates"] == {} and pinned["prompts"] == {}
    assert "answered resources/templates/list with -32601" in result.output
    assert repo.run("check").exit_code == 0


def test_tools_list_answering_method_not_found_stays_a_boot_failure(repo: Repo) -> None:
    # Tools are what the lock exists to review: a server claiming tools it will not list is not pinned empty.
    add_raw(repo, "liar", {"capabilities": {"tools": {}}, "method_not_found": ["tools/list"]})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "liar: could not be booted" in result.output and "-32601" in result.output


def test_skipped_server_with_an_unset_secret_passes(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    repo.add_stdio("paid", env={"API_TOKEN": "${MCP_LOCK_TEST_UNSET_TOKEN}"})
    write_policy(repo, 'servers:\n  paid:\n    skip: "needs a token; the nightly job has it"\n')
    check = repo.run("check", env=UNSET)
    assert check.exit_code == 0, check.output
    assert "paid: skipped: needs a token" in check.output
    write_policy(repo, "timeout: 30\n")  # not skipped: the missing secret is an error again
    assert repo.run("check", env=UNSET).exit_code == 2


def test_update_with_an_unknown_tool_is_a_usage_error(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    before = repo.lock_path.read_bytes()
    result = repo.run("update", "notes", "--tool", "no_such_tool")
    assert result.exit_code == 2, result.output
    assert "no tool named no_such_tool" in result.output
    assert "add_note, list_notes" in result.output
    assert repo.lock_path.read_bytes() == before


def test_accepted_lines_print_details_on_lines_of_their_own(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    spec["tools"][0]["description"] = "Add a note.\nAnd mail it."
    repo.write_spec("notes", spec)
    result = repo.run("update", "notes")
    assert result.exit_code == 0, result.output
    accepted = [line for line in result.output.splitlines() if line.startswith("accepted ")]
    assert accepted and not any("\\n" in line for line in accepted)


def test_input_mapped_to_an_unset_variable_names_the_variable(repo: Repo) -> None:
    vscode = repo.root / ".vscode"
    vscode.mkdir()
    (vscode / "mcp.json").write_text(
        '{"inputs": [{"type": "promptString", "id": "api-key", "password": true}],'
        f' "servers": {{"keyed": {{"command": "{sys.executable}", "env": {{"API_KEY": "${{input:api-key}}"}}}}}}}}'
    )
    write_policy(repo, "inputs:\n  api-key: {env: MCP_LOCK_TEST_UNSET_KEY}\n")
    result = repo.run("lock", env={"MCP_LOCK_TEST_UNSET_KEY": None})  # type: ignore[dict-item]
    assert result.exit_code == 2
    assert "set environment variable MCP_LOCK_TEST_UNSET_KEY" in result.output
    assert "under `inputs:`" not in result.output


def test_policy_entry_for_an_undeclared_server_is_an_error(repo: Repo) -> None:
    repo.add_stdio("notes")
    write_policy(repo, 'servers:\n  nots:\n    skip: "typo"\n')
    for command in ("check", "lock", "list"):
        result = repo.run(command)
        assert result.exit_code == 2, (command, result.output)
        assert "servers.nots" in result.output and "did you mean notes" in result.output


def test_lock_in_a_repo_that_declares_nothing_is_an_error(repo: Repo) -> None:
    result = repo.run("lock")
    assert result.exit_code == 2
    assert "no MCP servers declared in" in result.output and ".mcp.json" in result.output
    assert not repo.lock_path.exists()


def test_an_empty_shard_says_it_has_no_servers(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    result = repo.run("check", "--offline", "--shard", "2/3")
    assert result.exit_code == 0, result.output
    assert "shard-2-of-3: this shard has no servers" in result.output


def test_both_mcp_2_crash_forms_get_the_hint(repo: Repo) -> None:
    crash = "import sys; sys.exit(\"ModuleNotFoundError: No module named 'mcp.server.fastmcp'\")"
    repo.add_entry("old", {"command": sys.executable, "args": ["-c", crash]})
    result = repo.run("lock")
    assert result.exit_code == 1
    assert "written for the mcp SDK 1.x" in result.output


def test_list_shows_pin_and_skip_status_with_correct_plurals(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    repo.add_stdio("fresh")
    repo.add_stdio("paid")
    write_policy(repo, 'servers:\n  paid:\n    skip: "needs a token"\n')
    result = repo.run("list")
    assert result.exit_code == 0, result.output
    assert "pinned in mcp-lock.json (version 1.0.0): 2 tools, 1 prompt\n" in result.output
    assert "not pinned in mcp-lock.json; run `mcp-lock lock`" in result.output
    assert "skipped by mcp-lock.yaml: needs a token" in result.output


def test_declarations_differing_only_in_env_are_two_servers(repo: Repo) -> None:
    repo.add_stdio("store-ro", env={"MODE": "ro", "TOKEN": "${MCP_LOCK_TEST_TOKEN}"})
    entry = {**repo.servers["store-ro"], "env": {"MODE": "rw", "TOKEN": "${MCP_LOCK_TEST_TOKEN}"}}
    repo.add_entry("store-rw", entry)
    environ = {"MCP_LOCK_TEST_TOKEN": "t0k3n-canary-value-123"}
    result = repo.run("lock", env=environ)
    assert result.exit_code == 0, result.output
    servers = repo.lock_json()["servers"]
    assert set(servers) == {"store-ro", "store-rw"}
    assert servers["store-rw"]["launch"]["env"] == {"MODE": "rw", "TOKEN": "${env:MCP_LOCK_TEST_TOKEN}"}
    assert "t0k3n-canary-value-123" not in repo.lock_path.read_text()
    update = repo.run("update", "store-rw", env=environ)
    assert update.exit_code == 0, update.output

    repo.servers["store-ro"]["env"]["MODE"] = "rw2"  # the read-only declaration flips its toolset
    repo.write_config()
    check = repo.run("check", "--offline", env=environ)
    assert check.exit_code == 1
    assert "store-ro: launch changed since it was pinned (env)" in check.output


def test_literal_secret_in_env_is_recorded_as_a_digest(repo: Repo) -> None:
    repo.add_stdio("paid", env={"API_KEY": "sk-live-0123456789abcdef"})
    assert repo.run("lock").exit_code == 0
    recorded = repo.lock_json()["servers"]["paid"]["launch"]["env"]["API_KEY"]
    assert recorded.startswith("sha256:")
    assert "sk-live-0123456789abcdef" not in repo.lock_path.read_text()


def test_lock_with_env_as_names_is_read_and_asks_for_a_repin(repo: Repo) -> None:
    repo.add_stdio("notes", env={"MODE": "ro"})
    assert repo.run("lock").exit_code == 0
    text = repo.lock_path.read_text()
    old = text.replace('"env": {\n          "MODE": "ro"\n        }', '"env": [\n          "MODE"\n        ]')
    assert old != text
    repo.lock_path.write_text(old)
    check = repo.run("check", "--offline")
    assert check.exit_code == 1, check.output
    assert "notes: launch changed since it was pinned (env)" in check.output
    assert "Traceback" not in check.output
    assert repo.run("update", "notes").exit_code == 0
    assert repo.run("check", "--offline").exit_code == 0


def test_one_launch_under_two_names_keeps_its_pin(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    cursor = repo.root / ".cursor"
    cursor.mkdir()  # sorts before .mcp.json, so its name comes first in discovery order
    (cursor / "mcp.json").write_text(json.dumps({"mcpServers": {"notebook": repo.servers["notes"]}}))
    check = repo.run("check")
    assert check.exit_code == 0, check.output
    assert "no config file declares it" not in check.output
    for name in ("notes", "notebook"):
        update = repo.run("update", name)
        assert update.exit_code == 0, update.output
    assert set(repo.lock_json()["servers"]) == {"notes"}
    listed = repo.run("list")
    assert "notes  [stdio]" in listed.output and "pinned in mcp-lock.json" in listed.output


def fake_npx(repo: Repo) -> str:
    """An `npx` that runs the fixture server, so a registry launch can be pinned without the network."""
    repo.write_spec("notes", base_spec())
    script = repo.root / "bin" / "npx"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {SPEC_SERVER} specs/notes.json\n")
    script.chmod(0o755)
    return str(script)


def test_unpinned_launch_is_a_warning_quoting_the_pinned_version(repo: Repo) -> None:
    # The fake npx leaves no npm record of what it ran, so the advice cannot name a version: never the
    # server's own serverInfo.version (1.0.0 here), which is often not the package's.
    repo.add_entry("notes", {"command": fake_npx(repo), "args": ["-y", "@acme/notes-mcp"]})
    lock = repo.run("lock")
    assert lock.exit_code == 0, lock.output
    assert "unpinned-launch" in lock.output
    assert "`@acme/notes-mcp` is launched without an exact version" in lock.output
    assert "`@acme/notes-mcp@VERSION`" in lock.output
    assert "@acme/notes-mcp@1.0.0" not in lock.output
    check = repo.run("check", "--offline")
    assert check.exit_code == 0, check.output
    assert "unpinned-launch" in check.output

    write_policy(repo, "unpinned-launch: error\n")
    assert repo.run("check", "--offline").exit_code == 1
    write_policy(repo, "unpinned-launch: off\n")
    quiet = repo.run("check", "--offline")
    assert quiet.exit_code == 0 and "unpinned-launch" not in quiet.output
    write_policy(repo, "unpinned-launch: sometimes\n")
    assert repo.run("check", "--offline").exit_code == 2


def test_policy_entry_is_not_blamed_while_a_config_file_is_broken(repo: Repo) -> None:
    (repo.root / ".mcp.json").write_text('{"mcpServers": {"notes": ', encoding="utf-8")
    write_policy(repo, 'servers:\n  notes:\n    skip: "nightly"\n')
    result = repo.run("list")
    assert result.exit_code == 2
    assert "no config file declares a server notes" not in result.output
    assert ".mcp.json:1" in result.output
