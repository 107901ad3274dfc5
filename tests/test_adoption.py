"""Adopting mcp-lock on a real repository: re-pins that need only their own secrets, skipped servers that stay quiet."""

from __future__ import annotations

from fixture_repo import Repo, base_spec

UNSET = {"MCP_LOCK_TEST_UNSET_TOKEN": None}  # type: ignore[dict-item]


def write_policy(repo: Repo, text: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(text, encoding="utf-8")


def _two_servers_one_needing_a_secret(repo: Repo) -> None:
    repo.add_stdio("notes")
    repo.add_stdio("paid", env={"API_TOKEN": "${MCP_LOCK_TEST_UNSET_TOKEN}"})
    assert repo.run("lock", env={"MCP_LOCK_TEST_UNSET_TOKEN": "t0ken"}).exit_code == 0


def test_update_of_one_server_does_not_need_another_servers_secret(repo: Repo) -> None:
    _two_servers_one_needing_a_secret(repo)
    spec = base_spec()
    spec["tools"][0]["description"] = "Add a note to the notebook, with a date."
    repo.write_spec("notes", spec)
    result = repo.run("update", "notes", env=UNSET)
    assert result.exit_code == 0, result.output
    assert "with a date" in repo.lock_path.read_text(encoding="utf-8")
    assert "MCP_LOCK_TEST_UNSET_TOKEN" in result.output  # still said, as a note
    assert "not needed: this run launches only notes" in result.output
    # The server that needs the secret still does.
    assert repo.run("update", "paid", env=UNSET).exit_code == 2
    assert repo.run("update", env=UNSET).exit_code == 2


def test_update_of_a_skipped_server_does_not_need_its_secret(repo: Repo) -> None:
    _two_servers_one_needing_a_secret(repo)
    write_policy(repo, 'servers:\n  paid:\n    skip: "needs a token; the nightly job has it"\n')
    result = repo.run("update", "paid", env=UNSET)
    assert result.exit_code == 0, result.output
    assert "MCP_LOCK_TEST_UNSET_TOKEN" not in result.output
    assert "paid: skipped: needs a token" in result.output


def test_a_skipped_servers_missing_secret_is_not_a_warning_and_list_passes(repo: Repo) -> None:
    _two_servers_one_needing_a_secret(repo)
    write_policy(repo, 'servers:\n  paid:\n    skip: "needs a token"\n')
    check = repo.run("check", env=UNSET)
    assert check.exit_code == 0, check.output
    assert "MCP_LOCK_TEST_UNSET_TOKEN" not in check.output
    listed = repo.run("list", env=UNSET)
    assert listed.exit_code == 0, listed.output
    assert "skipped by mcp-lock.yaml: needs a token" in listed.output
    assert "MCP_LOCK_TEST_UNSET_TOKEN" not in listed.output
    write_policy(repo, "timeout: 30\n")  # not skipped: list names the missing secret, but boots nothing: exit 0
    listed = repo.run("list", env=UNSET)
    assert listed.exit_code == 0, listed.output
    assert "to boot it: server 'paid' cannot be launched here: set environment variable MCP_LOCK_TEST_UNSET_TOKEN" in (
        listed.output
    )
    assert "(or `skip:` it in mcp-lock.yaml)" in listed.output


def test_lock_of_named_servers_pins_only_them_and_needs_only_their_secrets(repo: Repo) -> None:
    repo.add_stdio("notes")
    repo.add_stdio("paid", env={"API_TOKEN": "${MCP_LOCK_TEST_UNSET_TOKEN}"})
    repo.add_stdio("later")
    result = repo.run("lock", "notes", env=UNSET)
    assert result.exit_code == 0, result.output
    assert set(repo.lock_json()["servers"]) == {"notes"}
    assert "not needed: this run launches only notes" in result.output
    assert repo.run("lock", "paid", env=UNSET).exit_code == 2  # its own secret is still needed
    assert repo.run("lock", "nosuch").exit_code == 2
    assert repo.run("lock", "later", env=UNSET).exit_code == 0
    assert set(repo.lock_json()["servers"]) == {"notes", "later"}
