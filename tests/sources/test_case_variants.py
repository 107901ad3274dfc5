"""Config file names as clients read them: on a case-insensitive filesystem (macOS, Windows) `.cursor/MCP.json`
is `.cursor/mcp.json`, so a case variant declares servers that some clients run: it is discovered, pinned like
the canonical name, and reported."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fixture_repo import SPEC_SERVER, Repo, base_spec

from scanner.sources.discover import discover, is_config_path


@pytest.mark.parametrize("rel", [".cursor/MCP.json", ".Mcp.json", ".VSCode/mcp.json"])
def test_a_case_variant_is_discovered_and_warned_about(tmp_path: Path, rel: str) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    key = "servers" if "vscode" in rel.lower() else "mcpServers"
    path.write_text(json.dumps({key: {"hidden": {"command": "python3", "args": ["s.py"]}}}), encoding="utf-8")
    found = discover(tmp_path, {})
    assert [s.key for s in found.servers] == ["hidden"]
    [config] = found.files
    assert config.path == rel
    [warning] = [p for p in config.problems if p.code == "case-variant"]
    assert warning.severity == "warning" and "case variant of" in warning.message


def test_variant_paths_are_config_paths_for_the_base_too() -> None:
    assert is_config_path(".cursor/MCP.json") and is_config_path(".MCP.JSON") and is_config_path("a/SERVER.json")
    assert not is_config_path(".cursor/mcp.jsonx")


def test_a_case_variant_server_is_pinned_and_checked_with_a_finding(repo: Repo) -> None:
    (repo.root / "specs").mkdir()
    (repo.root / "specs" / "hidden.json").write_text(json.dumps(base_spec()), encoding="utf-8")
    (repo.root / ".cursor").mkdir()
    entry = {"command": sys.executable, "args": [str(SPEC_SERVER), "specs/hidden.json"]}
    (repo.root / ".cursor" / "MCP.json").write_text(json.dumps({"mcpServers": {"hidden": entry}}), encoding="utf-8")
    lock = repo.run("lock")
    assert "hidden" in repo.lock_json()["servers"], lock.output
    check = repo.run("check", "--format", "json")
    findings = json.loads(check.stdout)["findings"]
    assert any(f["rule"] == "config-warning" and "case variant" in f["message"] for f in findings)
