"""Hostile YAML in the repository: an alias bomb fails at once with one short line, and errors quote no value."""

from __future__ import annotations

import time

from fixture_repo import Repo


def alias_bomb(levels: int, key: str = "network") -> str:
    """Nine aliases per level: `levels` levels stand for 9**levels strings in a few hundred bytes."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{','.join([f'*l{level - 1}'] * 9)}]")
    lines.append(f"{key}: [{','.join([f'*l{levels - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def test_a_policy_alias_bomb_fails_fast_in_one_short_line(repo: Repo) -> None:
    # Six levels (4.8 million strings, a 40 MB repr on the old loader) keep the old behaviour's failure bounded.
    (repo.root / "mcp-lock.yaml").write_text(alias_bomb(6), encoding="utf-8")
    started = time.monotonic()
    result = repo.run("check", "--offline")
    assert time.monotonic() - started < 5
    assert result.exit_code == 2, result.output[:300]
    assert len(result.output) < 300 and result.output.count("\n") == 1, result.output[:300]
    assert "mcp-lock.yaml: invalid YAML at line 2, column 10: aliases (*name) are not supported" in result.output
    assert "lol" not in result.output


def test_a_continue_block_alias_bomb_is_a_parse_problem_not_an_expansion(repo: Repo) -> None:
    folder = repo.root / ".continue" / "mcpServers"
    folder.mkdir(parents=True)
    (folder / "bomb.yaml").write_text(alias_bomb(7, key="mcpServers"), encoding="utf-8")
    started = time.monotonic()
    result = repo.run("list")
    assert time.monotonic() - started < 5
    assert "bomb.yaml is not valid YAML: line 2, column 10: aliases (*name) are not supported" in result.output
    assert len(result.output) < 2000 and "lol" not in result.output


def test_a_policy_value_of_the_wrong_kind_is_named_by_its_kind_not_quoted(repo: Repo) -> None:
    secretish = "x" * 5000
    (repo.root / "mcp-lock.yaml").write_text(f"sandbox: {secretish}\n", encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2, result.output[:300]
    assert "sandbox must be on or off, got a string" in result.output and secretish not in result.output


def test_an_ignore_entry_with_a_long_bad_rule_is_not_quoted(repo: Repo) -> None:
    rule = "R" * 3000
    (repo.root / "mcp-lock.yaml").write_text(
        f"ignore:\n  - {{rule: {rule}, server: a, reason: why}}\n", encoding="utf-8"
    )
    result = repo.run("check", "--offline")
    assert result.exit_code == 2, result.output[:300]
    assert "unknown rule a string" in result.output and rule not in result.output
