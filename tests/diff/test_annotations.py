"""Annotations graded as the MCP spec defines them (2025-06-18 ToolAnnotations), defaults included: an absent
readOnlyHint is false, destructiveHint true, idempotentHint false, openWorldHint true. Only a loosened approval
hint is severe; a tightening is info; openWorldHint and idempotentHint are low, explained by what they mean. A new
parameter that lets a tool reach files, URLs or code is a capability change. The cases are the real ones of
issue 30, written by hand."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scanner.diff.compare import compare_server
from scanner.diff.grade import grade
from scanner.lock.lockfile import Pin, ServerPin


def tool(name: str = "move_file", annotations: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": name,
        "description": "Move or rename files and directories.",
        "inputSchema": {"type": "object", "properties": {"source": {"type": "string"},
                                                         "destination": {"type": "string"}},
                        "required": ["source", "destination"]},
        **extra,
    }
    if annotations is not None:
        definition["annotations"] = annotations
    return definition


def graded(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c.cls, c.severity) for c in grade(before, after)]


def test_destructive_hint_false_to_true_is_a_tightening() -> None:
    # server-filesystem's move_file: clients will now be *more* careful (was graded HIGH).
    before = tool(annotations={"readOnlyHint": False, "idempotentHint": False, "destructiveHint": False})
    after = tool(annotations={"readOnlyHint": False, "idempotentHint": False, "destructiveHint": True})
    ((cls, severity),) = graded(before, after)
    assert (cls, severity) == ("annotation-tightened", "info")
    assert "more careful" in grade(before, after)[0].detail


@pytest.mark.parametrize(("before", "after"), [
    ({"readOnlyHint": True}, {"readOnlyHint": False}),
    ({"readOnlyHint": True}, {}),  # absent means false
    ({"destructiveHint": False}, {}),  # absent means true
])
def test_every_tightening_is_info(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert graded(tool(annotations=before), tool(annotations=after)) == [("annotation-tightened", "info")]


@pytest.mark.parametrize(("before", "after"), [
    ({}, {"readOnlyHint": True}),
    ({"readOnlyHint": False}, {"readOnlyHint": True}),
    ({}, {"destructiveHint": False}),
    ({"destructiveHint": True}, {"destructiveHint": False}),
])
def test_only_a_loosened_approval_hint_is_severe(before: dict[str, Any], after: dict[str, Any]) -> None:
    (change,) = grade(tool(annotations=before), tool(annotations=after))
    assert (change.cls, change.severity) == ("annotation-loosened", "high")
    assert "ask" in change.detail


def test_open_world_and_idempotent_hints_are_low_and_say_what_they_mean() -> None:
    # Three routine bumps set these where they were absent: 36 and 6 MEDIUM "may now run it without asking".
    before = tool(annotations={"title": "Move"})
    after = tool(annotations={"title": "Move", "openWorldHint": False, "idempotentHint": True})
    changes = grade(before, after)
    assert [(c.cls, c.severity) for c in changes] == [("annotation-changed", "low"), ("annotation-changed", "low")]
    shown = " | ".join(c.detail for c in changes)
    assert "closed domain" in shown and "no further effect" in shown and "without asking" not in shown
    back = grade(tool(annotations={"openWorldHint": False}), tool(annotations={}))
    assert [(c.cls, c.severity) for c in back] == [("annotation-changed", "low")]
    assert "external entities" in back[0].detail


@pytest.mark.parametrize(("before", "after"), [
    ({}, {"openWorldHint": True}),
    ({}, {"readOnlyHint": False}),
    ({}, {"destructiveHint": True}),
    ({}, {"idempotentHint": False}),
    ({"readOnlyHint": True}, {"readOnlyHint": True, "destructiveHint": False}),  # meaningless while read-only
])
def test_a_hint_set_to_what_its_absence_meant_is_no_change(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert graded(tool(annotations=before), tool(annotations=after)) == [("annotation-restated", "info")]
    pinned = server(tool(annotations=before))
    (finding,) = compare_server("fs", pinned, server(tool(annotations=after)))
    assert finding.effective_severity == "info"


def test_leaving_read_only_with_a_non_destructive_hint_is_a_tightening_not_a_loosening() -> None:
    changes = graded(tool(annotations={"readOnlyHint": True}),
                     tool(annotations={"readOnlyHint": False, "destructiveHint": False}))
    assert changes == [("annotation-tightened", "info"), ("annotation-tightened", "info")]


def test_a_hint_that_is_not_a_boolean_is_graded_as_unknown() -> None:
    assert graded(tool(annotations={}), tool(annotations={"readOnlyHint": "true"})) == [("field-changed", "medium")]


def evaluate_script(**extra_properties: Any) -> dict[str, Any]:
    return {
        "name": "evaluate_script",
        "description": "Evaluate a JavaScript function inside the currently selected page.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "function": {"type": "string", "description": "A JavaScript function declaration to be executed "
                                                              "by the tool in the currently selected page."},
                "args": {"type": "array", "items": {"type": "object", "properties": {"uid": {"type": "string"}}}},
                **extra_properties,
            },
            "required": ["function"],
        },
    }


def test_a_parameter_that_reads_a_local_file_is_a_capability_change() -> None:
    # chrome-devtools-mcp: evaluate_script gained `sourcePath`, so it can load script source from a local file.
    before = evaluate_script()
    after = evaluate_script(sourcePath={"type": "string", "description": "Path to a local JavaScript file whose "
                                                                         "contents are evaluated."})
    (change,) = grade(before, after)
    assert (change.cls, change.severity) == ("property-added-capability", "medium")
    assert "files" in change.detail


@pytest.mark.parametrize(("name", "schema"), [
    ("webhookUrl", {"type": "string"}),
    ("target", {"type": "string", "format": "uri"}),
    ("script", {"type": "string"}),
])
def test_urls_and_code_are_capabilities_too(name: str, schema: dict[str, Any]) -> None:
    before = tool(name="notify")
    after = copy.deepcopy(before)
    after["inputSchema"]["properties"][name] = schema
    assert graded(before, after) == [("property-added-capability", "medium")]


def test_a_parameter_of_a_kind_the_tool_already_reaches_stays_an_optional_parameter() -> None:
    # read_text_file already takes a path: one more path is no new reach.
    before = tool(name="read_text_file")
    before["inputSchema"]["properties"] = {"path": {"type": "string"}}
    after = copy.deepcopy(before)
    after["inputSchema"]["properties"]["backupPath"] = {"type": "string"}
    assert graded(before, after) == [("property-added-optional", "low")]
    plain = copy.deepcopy(tool())
    plain["inputSchema"]["properties"]["overwrite"] = {"type": "boolean"}
    assert graded(tool(), plain) == [("property-added-optional", "low")]


def server(*tools: dict[str, Any]) -> ServerPin:
    return ServerPin(declarations=[], launch={}, protocol_version="2025-06-18", server_info={}, capabilities={},
                     instructions=None, tools={t["name"]: Pin(t, "sha256:" + str(hash(repr(t)))) for t in tools})
