"""Tool schemas that are not valid JSON Schema: reported (never blocking), still pinned as sent.

The servers are raw_server.py: the SDK's own server refuses to send such schemas, real servers do not.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_repo import FIXTURES, Repo, base_spec

from scanner.diff import schema_validity
from scanner.diff.schema_validity import schema_findings, schema_problem
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import LockLocation

RAW_SERVER = FIXTURES / "servers" / "raw_server.py"
BROKEN = {
    "bad_type": {"type": "strng"},
    "bad_properties": {"type": "object", "properties": []},
    "bad_required": {"type": "object", "required": "x"},
}
# Where each finding must point in mcp-lock.json: the line that starts with this text.
BROKEN_LINES = {"bad_type": '"type": "strng"', "bad_properties": '"properties": [', "bad_required": '"required": "x"'}


def add_raw(repo: Repo, name: str, tools: list[dict[str, Any]]) -> None:
    """Declare (or, called again, change) a raw server listing `tools`."""
    path = repo.root / f"{name}.behaviour.json"
    path.write_text(json.dumps({"pages": [tools]}), encoding="utf-8")
    repo.add_entry(name, {"command": sys.executable, "args": [str(RAW_SERVER), str(path)]})


def broken_tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = list(base_spec()["tools"])
    for name, schema in BROKEN.items():
        tools.append({"name": name, "description": f"Tool {name}.", "inputSchema": schema})
    tools.append(
        {
            "name": "bad_output",
            "description": "Valid input, broken output schema.",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"n": {"minimum": "zero"}}},
        }
    )
    return tools


def schema_results(sarif: Path) -> list[dict[str, Any]]:
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    return [r for r in results if r["properties"]["rule"] == "schema-invalid"]


def test_lock_reports_each_invalid_schema_at_its_line(repo: Repo, tmp_path: Path) -> None:
    add_raw(repo, "notes", broken_tools())
    sarif, report = tmp_path / "lock.sarif", tmp_path / "lock.json"
    result = repo.run("lock", "--sarif", str(sarif), "--json", str(report))
    assert result.exit_code == 0, result.output  # not blocking: the tools are pinned as sent
    pinned = repo.lock_json()["servers"]["notes"]["tools"]
    assert pinned["bad_type"]["definition"]["inputSchema"] == BROKEN["bad_type"]

    results = schema_results(sarif)
    by_tool = {r["locations"][0]["logicalLocations"][0]["name"]: r for r in results}
    assert sorted(by_tool) == ["bad_output", "bad_properties", "bad_required", "bad_type"]  # valid ones: none
    lock_lines = repo.lock_path.read_text().splitlines()
    for name, text in {**BROKEN_LINES, "bad_output": '"minimum": "zero"'}.items():
        finding = by_tool[name]
        assert finding["level"] == "warning" and finding["properties"]["blocking"] is False
        location = finding["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "mcp-lock.json"
        assert lock_lines[location["region"]["startLine"] - 1].strip().startswith(text), (name, location)
    assert "'strng' is not valid under any of the given schemas" in by_tool["bad_type"]["message"]["text"]
    assert "outputSchema" in by_tool["bad_output"]["message"]["text"]
    pointers = {f["subject"]: f["location"]["pointer"] for f in json.loads(report.read_text())["findings"]}
    assert pointers["bad_required"] == "/servers/notes/tools/bad_required/definition/inputSchema/required"
    assert "schema-invalid" in result.output


def test_check_reports_only_new_or_changed_schemas(repo: Repo, tmp_path: Path) -> None:
    tools = broken_tools()
    add_raw(repo, "notes", tools)
    assert repo.run("lock").exit_code == 0
    unchanged = repo.run("check")
    assert unchanged.exit_code == 0, unchanged.output
    assert "schema-invalid" not in unchanged.output  # reported at lock; pinned anyway; no nagging

    tools[2]["description"] = "Tool bad_type, reworded."  # same invalid schema
    tools[3]["inputSchema"] = {"type": "object", "properties": {"a": {"type": "nmber"}}}
    tools.append({"name": "bad_new", "description": "A new tool.", "inputSchema": {"enum": 3}})
    add_raw(repo, "notes", tools)
    report = tmp_path / "check.json"
    result = repo.run("check", "--json", str(report))
    assert result.exit_code == 1  # for the drift, not the schemas
    flagged = sorted(f["subject"] for f in json.loads(report.read_text())["findings"] if f["rule"] == "schema-invalid")
    assert flagged == ["bad_new", "bad_properties"]


def test_valid_schemas_and_remote_refs_are_never_fetched(repo: Repo) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        remote = f"http://127.0.0.1:{listener.getsockname()[1]}"
        tools = [
            *base_spec()["tools"],
            {
                "name": "draft7",
                "inputSchema": {
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"n": {"$ref": f"{remote}/defs.json#/n"}},
                },
            },
            # Valid in draft-04 only: a boolean exclusiveMinimum.
            {
                "name": "draft4",
                "inputSchema": {
                    "$schema": "http://json-schema.org/draft-04/schema#",
                    "type": "object",
                    "minimum": 0,
                    "exclusiveMinimum": True,
                },
            },
            {"name": "custom", "inputSchema": {"$schema": f"{remote}/meta", "$ref": f"{remote}/schema.json"}},
            {"name": "dynamic", "inputSchema": {"$dynamicRef": f"{remote}/x#meta", "$id": f"{remote}/root"}},
        ]
        add_raw(repo, "notes", tools)
        result = repo.run("lock")
        assert result.exit_code == 0, result.output
        assert "schema-invalid" not in result.output
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected


def test_hostile_schemas_are_bounded(repo: Repo) -> None:
    deep: Any = {"type": "string"}
    for _ in range(60):  # 120 levels: past the check's bound, within what the SDK client parses
        deep = {"type": "object", "properties": {"a": deep}}
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x"} for i in range(30_000)}}
    tools = [
        {"name": "deep", "inputSchema": deep},
        {"name": "huge", "inputSchema": huge},
        {"name": "text", "inputSchema": "not a schema"},
        {"name": "array", "inputSchema": [{"type": "object"}]},
        {"name": "weird_dialect", "inputSchema": {"$schema": ["not", "a", "uri"], "type": "object"}},
        {"name": "bad_uri_dialect", "inputSchema": {"$schema": "http://[::1", "type": "object"}},
        {"name": "bad_regex", "inputSchema": {"type": "string", "pattern": "(("}},
        # `re` raises OverflowError (not re.error) for this one; it used to end `lock` in a traceback
        {"name": "huge_repeat", "inputSchema": {"type": "object", "patternProperties": {"a{99999999999999}": {}}}},
    ]
    add_raw(repo, "hostile", tools)
    # The check bounds its own work (depth and size limits, asserted below), not a clock.
    result = repo.run("lock", "--format", "json", "--timeout", "60")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    findings = json.loads(result.stdout)["findings"]
    found = {f["subject"]: f["message"] for f in findings if f["rule"] == "schema-invalid"}
    # An unparsable $schema URI falls back to 2020-12; whether it is then flagged depends on the URI format checker.
    found.pop("bad_uri_dialect", None)
    assert sorted(found) == ["array", "bad_regex", "deep", "huge", "huge_repeat", "text", "weird_dialect"]
    assert "is not a 'regex'" in found["huge_repeat"]
    assert "inputSchema is too large to check as a JSON Schema (2020-12): nested deeper than 64 levels" in found["deep"]
    assert "inputSchema is too large to check as a JSON Schema (2020-12): more than 10000 values" in found["huge"]
    assert "is not a 'regex'" in found["bad_regex"]
    assert sorted(repo.lock_json()["servers"]["hostile"]["tools"]) == sorted(t["name"] for t in tools)


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, None),
        (True, None),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 0, "exclusiveMinimum": True}, None),
        ({"minimum": 0, "exclusiveMinimum": True}, "True is not of type 'number'"),  # 2020-12 by default
        ({"$schema": "https://example.com/unknown", "type": 7}, "7 is not valid under any of the given schemas"),
        ({"required": "x"}, "'x' is not of type 'array'"),
        (None, "None is not of type 'object', 'boolean'"),
    ],
)
def test_schema_problem(schema: Any, problem: str | None) -> None:
    found = schema_problem(schema)
    assert (found and found.message) == problem


def test_a_server_with_too_much_schema_is_checked_only_up_to_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_validity, "MAX_NODES_PER_SERVER", 20_000)
    per_tool = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(4_000)}}  # 8,003 values
    tools = {f"t{i}": Pin({"name": f"t{i}", "inputSchema": per_tool}, "") for i in range(5)}
    live = ServerPin([], {}, "2025-06-18", {}, {}, None, tools=tools)
    (finding,) = schema_findings("big", None, live)  # three fit in the budget, and are valid
    assert finding.message == (
        "big: 2 tool schema(s) not checked: the server's schemas exceed 20000 values in all "
        "(t3.inputSchema, t4.inputSchema)"
    )
    assert finding.location == LockLocation("/servers/big")
