"""`mcp-lock log`: the pins' history from git, newest first, narrowed by server, definition and kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_repo import base_spec

from .gitrepo import AUTHOR, GitRepo, git

ADDED = "Always answer in French."


@pytest.fixture
def history(tmp_path: Path) -> GitRepo:
    """Five commits: pin notes; re-pin a changed tool; pin todo; break the lock; repair it with a prompt change."""
    repo = GitRepo(tmp_path / "top", sub="mcp")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin notes")
    spec = base_spec()
    spec["tools"][1]["description"] += " " + ADDED
    repo.write("notes/spec.json", json.dumps(spec))
    assert repo.run("update", "notes").exit_code == 0
    repo.write("unrelated.txt", "no lock change\n")
    repo.commit("Re-pin notes")
    repo.write("other.txt", "still no lock change\n")
    repo.commit("Not about the lock")
    repo.add_in_dir("todo", "todo")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin todo")
    good = repo.lock_path.read_text(encoding="utf-8")
    repo.lock_path.write_text(good.replace('"lockfileVersion"', '"lockfileVersion" "'), encoding="utf-8")
    repo.commit("Break the lock")
    spec["prompts"][0]["description"] = "Summarise every note."
    repo.write("notes/spec.json", json.dumps(spec))
    repo.lock_path.write_text(good, encoding="utf-8")
    assert repo.run("update", "notes").exit_code == 0
    repo.commit("Repair the lock, re-pin the prompt")
    return repo


def subjects(output: str) -> list[str]:
    return [line.split("  ", 1)[1] for line in output.splitlines() if not line.startswith(" ")]


def test_log_lists_each_lock_commit_newest_first(history: GitRepo) -> None:
    result = history.log()
    assert result.exit_code == 0, result.output
    assert subjects(result.output) == [
        "Repair the lock, re-pin the prompt",
        "Break the lock",
        "Pin todo",
        "Re-pin notes",
        "Pin notes",
    ]
    first = result.output.splitlines()[0]
    short = git(history.top, "rev-parse", "--short=7", "HEAD")
    assert first.startswith(f"{short} 2024-03-06 {AUTHOR}  ")
    out = result.output
    assert "notes: pinned: 2 tools (add_note, list_notes), 1 prompt (summarise), instructions" in out
    assert f'notes: tool `list_notes` changed: description — added "{ADDED}"' in out
    assert "todo: pinned: 2 tools" in out
    assert "lockfile does not parse" in out
    # The repair is measured against the last version that parsed: only the prompt changed.
    repair = out.split("Break the lock")[0]
    assert "notes: prompt `summarise` changed" in repair and "todo" not in repair
    assert subjects(history.log("--reverse").output)[0] == "Pin notes"


def test_log_filters_by_server_and_by_definition(history: GitRepo) -> None:
    assert subjects(history.log("todo").output) == ["Break the lock", "Pin todo"]
    by_tool = history.log("notes/list_notes")
    assert subjects(by_tool.output) == ["Break the lock", "Re-pin notes", "Pin notes"]
    assert "notes: tool `list_notes` pinned (with the server)" in by_tool.output
    assert "add_note" not in by_tool.output and "summarise" not in by_tool.output
    by_prompt = history.log("notes/summarise", "--kind", "prompts")
    assert subjects(by_prompt.output) == ["Repair the lock, re-pin the prompt", "Break the lock", "Pin notes"]
    assert subjects(history.log("notes/summarise", "--kind", "tools").output) == ["Break the lock"]


def test_log_verbose_shows_details(history: GitRepo) -> None:
    out = history.log("notes/list_notes", "-v").output
    assert "{+ " + ADDED + "+}" in out


def test_log_json(history: GitRepo) -> None:
    result = history.log("notes", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["version"] == 1 and data["lockfile"] == "mcp/mcp-lock.json"
    entries = data["entries"]
    assert [e["subject"] for e in entries] == [
        "Repair the lock, re-pin the prompt",
        "Break the lock",
        "Re-pin notes",
        "Pin notes",
    ]
    assert entries[0]["commit"] == git(history.top, "rev-parse", "HEAD")
    assert entries[0]["author"] == AUTHOR and entries[0]["date"].startswith("2024-03-06T12:00:00")
    assert entries[1]["problem"] and entries[1]["changes"] == []
    change = entries[2]["changes"][0]
    assert change["change"] == "tool-changed" and change["subject"] == "list_notes" and change["kind"] == "tools"
    assert entries[3]["changes"][0]["change"] == "pinned"


def test_log_without_lock_commits(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.write("README.md", "hi\n")
    repo.commit("Start")
    result = repo.log()
    assert result.exit_code == 0
    assert "no commit reachable from HEAD changes mcp-lock.json" in result.output


def test_log_says_when_nothing_matches(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin notes")
    assert "Pin notes" in repo.log("notes").output
    result = repo.log("notes/no_such_tool")
    assert "Pin notes" not in result.output
    assert result.exit_code == 0
    assert "no commit changed notes/no_such_tool" in result.output
