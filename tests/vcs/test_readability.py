"""What a reviewer reads: a green `check --base` after a big re-pin, `log --kind`, annotation and title lines."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_repo import Repo, base_spec

from .gitrepo import GitRepo


def _many_tools(count: int, suffix: str = "") -> dict[str, object]:
    spec = base_spec()
    spec["tools"] = [
        {"name": f"tool_{i}", "description": f"Tool number {i}.{suffix}", "inputSchema": {"type": "object"}}
        for i in range(count)
    ]
    return spec


def test_a_green_check_base_after_a_big_repin_counts_the_repins(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("fs", "fs", _many_tools(12))
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin fs")
    repo.branch("bump")
    repo.write("fs/spec.json", json.dumps(_many_tools(12, " It is read only.")))
    assert repo.run("update", "fs").exit_code == 0
    repo.commit("Bump fs")
    result = repo.run("check", "--base", "main")
    assert result.exit_code == 0, result.output
    assert "fs: 12 re-pinned changes accepted in the lock (tool_0, tool_1, tool_10, tool_11, tool_2 and 7 more)" in (
        result.output
    )
    assert result.output.count("re-pin accepted") == 0
    assert "tool_7" not in result.output
    # The JSON report keeps every one.
    report = repo.report("--base", "main")
    assert len([f for f in report["findings"] if f["rule"] == "repin-accepted"]) == 12


def test_log_kind_prompts_names_prompts_not_tools(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("notes", "notes")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin notes")
    result = repo.log("--kind", "prompts")
    assert result.exit_code == 0, result.output
    assert "notes: pinned: 1 prompt (summarise)" in result.output
    assert "add_note" not in result.output and "tools" not in result.output
    assert "notes: pinned" not in repo.log("--kind", "resources").output


def test_a_server_level_annotation_reads_as_a_sentence_and_a_new_title_shows_once(repo: Repo) -> None:
    spec = base_spec()
    repo.add_stdio("notes", spec)
    assert repo.run("lock").exit_code == 0
    spec["instructions"] += " Never delete them."
    spec["prompts"][0]["title"] = "Summary of the notes"
    repo.write_spec("notes", spec)
    github = repo.run("check", "--format", "github").output
    assert "::notes: instructions: added sentence" in github and "notes:: " not in github
    text = repo.run("check").output
    assert text.count("Summary of the notes") == 1, text
