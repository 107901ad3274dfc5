"""The grade drives --fail-on: by default every unpinned change fails; a team may let low grades through."""

from __future__ import annotations

from fixture_repo import Repo, base_spec


def test_cosmetic_change_fails_by_default_but_passes_a_threshold(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    spec["tools"][1]["description"] = "list every note"  # case and punctuation only
    repo.write_spec("notes", spec)

    default = repo.run("check")
    assert default.exit_code == 1
    assert "INFO" in default.output and "list_notes" in default.output

    lenient = repo.run("check", "--fail-on", "low")
    assert lenient.exit_code == 0, lenient.output
    assert "below the --fail-on threshold" in lenient.output


def test_new_required_parameter_still_fails_a_medium_threshold(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    schema = spec["tools"][0]["inputSchema"]
    schema["properties"]["recipient"] = {"type": "string", "description": "Where to send the note."}
    schema["required"] = ["text", "recipient"]
    repo.write_spec("notes", spec)
    result = repo.run("check", "--fail-on", "medium")
    assert result.exit_code == 1
    assert "HIGH" in result.output
    assert "new required parameter" in result.output
