"""A `.gitattributes` line that hides mcp-lock.json's diff in review is a blocking finding; one for other
files, or that only sets line endings, is not."""

from __future__ import annotations

import json

import pytest
from fixture_repo import Repo


@pytest.mark.parametrize(
    "line",
    [
        "mcp-lock.json linguist-generated",
        "mcp-lock.json -diff",
        "*.json binary",
        "/mcp-lock.json linguist-generated=true",
    ],
)
def test_an_attribute_that_hides_the_lock_diff_fails_the_check(repo: Repo, line: str) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    (repo.root / ".gitattributes").write_text(f"*.png binary\n{line}\n", encoding="utf-8")
    result = repo.run("check", "--offline", "--format", "json")
    assert result.exit_code == 1, result.output
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "lock-diff-hidden"]
    assert finding["blocking"] and finding["location"] == {"file": ".gitattributes", "line": 2}


@pytest.mark.parametrize(
    "line", ["mcp-lock.json text eol=lf", "*.png binary", "mcp-lock.json linguist-generated=false"]
)
def test_other_attributes_are_fine(repo: Repo, line: str) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    (repo.root / ".gitattributes").write_text(line + "\n", encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 0, result.output
    assert "lock-diff-hidden" not in result.output
