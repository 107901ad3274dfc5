"""The pin against the 2026-07-28 revision and open proposals: every definition field is digested, list-level
caching hints are not, MCP Apps UI resources are pinned or noted, and a detached signature file is left alone."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_repo import FIXTURES, Repo, base_spec

from scanner.lock.pin import pin_server
from scanner.snapshot import Snapshot

RAW_SERVER = FIXTURES / "servers" / "raw_server.py"
TOOL: dict[str, Any] = {
    "name": "send",
    "description": "Send a message.",
    "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]},
}
# One change per field a definition may carry (2026-07-28 revision, MCP Apps, header mapping, extensions).
VARIANTS: dict[str, dict[str, Any]] = {
    "title": {"title": "Send"},
    "icons": {"icons": [{"src": "https://example.com/i.png", "mimeType": "image/png"}]},
    "annotations": {"annotations": {"readOnlyHint": True}},
    "outputSchema": {"outputSchema": {"type": "object"}},
    "_meta": {"_meta": {"ui": {"resourceUri": "ui://mail/compose.html"}}},
    "execution": {"execution": {"taskSupport": "optional"}},
    "x-mcp-header": {
        "inputSchema": {
            "type": "object",
            "properties": {"to": {"type": "string", "x-mcp-header": "X-Mail-To"}},
            "required": ["to"],
        }
    },
    "unknown-field": {"x-vendor-hint": {"any": "value"}},
}


def tool_digest(tool: dict[str, Any]) -> str:
    snapshot = Snapshot("2025-11-25", {"name": "mail"}, {"tools": {}}, None)
    snapshot.definitions["tools"] = [tool]
    pin, problems = pin_server([], {}, snapshot)
    assert problems == []
    return pin.tools["send"].digest


@pytest.mark.parametrize("field", sorted(VARIANTS))
def test_every_field_of_a_definition_is_digested(field: str) -> None:
    changed = {**copy.deepcopy(TOOL), **VARIANTS[field]}
    assert tool_digest(changed) != tool_digest(TOOL)


def test_each_field_digests_differently() -> None:
    digests = {tool_digest({**copy.deepcopy(TOOL), **variant}) for variant in VARIANTS.values()}
    assert len(digests) == len(VARIANTS)


def add_raw(repo: Repo, list_extra: dict[str, Any]) -> None:
    path = repo.root / "raw.behaviour.json"
    path.write_text(json.dumps({"pages": [[TOOL]], "list_extra": list_extra}), encoding="utf-8")
    repo.add_entry("raw", {"command": sys.executable, "args": [str(RAW_SERVER), str(path)]})


def test_list_level_caching_hints_are_not_pinned(repo: Repo) -> None:
    add_raw(repo, {"ttlMs": 60000, "cacheScope": "session"})
    assert repo.run("lock").exit_code == 0
    text = repo.lock_path.read_text(encoding="utf-8")
    assert "ttlMs" not in text and "cacheScope" not in text
    add_raw(repo, {"ttlMs": 5, "cacheScope": "global"})
    result = repo.run("check")
    assert result.exit_code == 0, result.output
    assert repo.lock_path.read_text(encoding="utf-8") == text


def test_a_listing_that_is_not_a_complete_result_fails_closed(repo: Repo) -> None:
    # 2026-07-28 results carry `resultType`: "complete" is a listing like any other (and not pinned), anything else
    # (a server asking for more input first) is not the whole listing.
    add_raw(repo, {"resultType": "complete"})
    assert repo.run("lock").exit_code == 0
    assert "resultType" not in repo.lock_path.read_text(encoding="utf-8")
    add_raw(repo, {"resultType": "input_required"})
    result = repo.run("check")
    assert result.exit_code != 0
    assert "tools/list page 1 is not a complete result (resultType 'input_required')" in result.output


def apps_spec(listed: bool) -> dict[str, Any]:
    spec = base_spec()
    spec["tools"][0]["_meta"] = {"ui": {"resourceUri": "ui://notes/view.html"}}
    spec["resources"] = [{"uri": "ui://notes/view.html", "name": "view", "mimeType": "text/html;profile=mcp-app"}]
    if not listed:
        spec["resources"] = [{"uri": "file:///notes.txt", "name": "notes"}]
    return spec


def test_a_listed_ui_resource_is_pinned_with_the_tool_that_points_at_it(repo: Repo) -> None:
    repo.add_stdio("apps", apps_spec(listed=True))
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    pinned = repo.lock_json()["servers"]["apps"]
    assert pinned["tools"]["add_note"]["definition"]["_meta"] == {"ui": {"resourceUri": "ui://notes/view.html"}}
    assert pinned["resources"]["ui://notes/view.html"]["definition"]["mimeType"] == "text/html;profile=mcp-app"
    assert "MCP Apps" not in result.output
    spec = apps_spec(listed=True)
    spec["resources"][0]["mimeType"] = "text/html"
    repo.write_spec("apps", spec)
    assert repo.run("check").exit_code == 1  # the UI resource's pin is checked like any resource


def test_an_unlisted_ui_resource_is_noted(repo: Repo, tmp_path: Path) -> None:
    repo.add_stdio("apps", apps_spec(listed=False))
    report = tmp_path / "lock.json"
    assert repo.run("lock", "--json", str(report)).exit_code == 0
    [note] = [f for f in json.loads(report.read_text())["findings"] if f["rule"] == "server-note"]
    assert "ui://notes/view.html (tool add_note)" in note["message"] and "not pinned" in note["message"]


def test_a_detached_signature_beside_the_lock_is_left_alone(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    signature = repo.root / "mcp-lock.json.sig"
    signature.write_text("eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl\n", encoding="utf-8")
    offline = repo.run("check", "--offline")
    assert offline.exit_code == 0, offline.output
    assert repo.run("check").exit_code == 0
    assert repo.run("update").exit_code == 0
    assert signature.read_text(encoding="utf-8") == "eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl\n"
    listed = repo.run("list")
    assert listed.exit_code == 0 and ".sig" not in listed.output
