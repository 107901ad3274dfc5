"""Schema grading: each case names the class and severity a reviewer should see."""

from __future__ import annotations

import pytest

import scanner.diff.change as change_module
from scanner.diff.change import SEVERITY, TABLE
from scanner.diff.schema_diff import diff_schema, output_schema_changes


def obj(props: dict, required: list[str] | None = None, **extra) -> dict:
    schema = {"type": "object", "properties": props, **extra}
    if required is not None:
        schema["required"] = required
    return schema


def graded(old, new) -> list[tuple[str, str, str]]:
    return [(c.cls, c.path, c.severity) for c in diff_schema(old, new)]


def test_property_added_optional_and_required() -> None:
    base = obj({"text": {"type": "string"}}, ["text"])
    assert graded(base, obj({"text": {"type": "string"}, "tag": {"type": "string"}}, ["text"])) == [
        ("property-added-optional", "/properties/tag", "low")
    ]
    assert graded(base, obj({"text": {"type": "string"}, "query": {"type": "string"}}, ["text", "query"])) == [
        ("property-added-required", "/properties/query", "high")
    ]


def test_property_removed() -> None:
    assert graded(obj({"a": {}, "b": {}}), obj({"a": {}})) == [("property-removed", "/properties/b", "medium")]


def test_became_required_and_optional() -> None:
    props = {"a": {"type": "string"}}
    assert graded(obj(props), obj(props, ["a"])) == [("became-required", "/properties/a", "high")]
    assert graded(obj(props, ["a"]), obj(props, [])) == [("became-optional", "/properties/a", "low")]


def test_parameter_with_default_marked_required_by_generator_is_low() -> None:
    props = {"limit": {"type": "integer", "default": 10}}
    assert graded(obj(props), obj(props, ["limit"])) == [("became-required-with-default", "/properties/limit", "low")]


def test_real_world_boolean_widened_to_boolean_or_string() -> None:
    old = obj({"headless": {"type": "boolean"}})
    new = obj({"headless": {"type": ["boolean", "string"]}})
    assert graded(old, new) == [("type-broadened", "/properties/headless/type", "medium")]
    assert graded(new, old) == [("type-narrowed", "/properties/headless/type", "medium")]


def test_enum_widened_narrowed_changed() -> None:
    a, b, c = {"enum": ["x", "y"]}, {"enum": ["x", "y", "z"]}, {"enum": ["x", "q"]}
    assert graded(a, b) == [("enum-widened", "/enum", "medium")]
    assert graded(b, a) == [("enum-narrowed", "/enum", "low")]
    assert graded(a, c) == [("enum-changed", "/enum", "medium")]


@pytest.mark.parametrize("key", ["const", "default"])
def test_const_or_default_changed(key: str) -> None:
    assert graded({key: 1}, {key: 2}) == [(f"{key}-changed", f"/{key}", "medium")]


@pytest.mark.parametrize(
    ("old", "new", "cls"),
    [
        ({"maxLength": 10}, {"maxLength": 100}, "constraint-loosened"),
        ({"maxLength": 100}, {"maxLength": 10}, "constraint-tightened"),
        ({"maxItems": 3}, {}, "constraint-loosened"),
        ({"maximum": 5}, {"maximum": 50}, "constraint-loosened"),
        ({"minimum": 5}, {"minimum": 0}, "constraint-loosened"),
        ({"minimum": 0}, {"minimum": 5}, "constraint-tightened"),
        ({"pattern": "^[a-z]+$"}, {}, "constraint-loosened"),
        ({"pattern": "^[a-z]+$"}, {"pattern": ".*"}, "constraint-loosened"),
        ({"format": "uri"}, {}, "constraint-loosened"),
        ({}, {"format": "uri"}, "constraint-tightened"),
    ],
)
def test_constraints(old: dict, new: dict, cls: str) -> None:
    changes = diff_schema({"type": "string", **old}, {"type": "string", **new})
    assert [c.cls for c in changes] == [cls]
    assert changes[0].severity == ("medium" if cls == "constraint-loosened" else "low")


def test_additional_properties_opened_and_closed() -> None:
    closed = obj({}, additionalProperties=False)
    assert graded(closed, obj({})) == [("additional-properties-opened", "/additionalProperties", "medium")]
    assert graded(obj({}), closed) == [("additional-properties-closed", "/additionalProperties", "low")]


def test_output_schema_added_and_removed() -> None:
    assert [(c.cls, c.severity) for c in output_schema_changes(None, obj({}))] == [("output-schema-added", "low")]
    assert [(c.cls, c.severity) for c in output_schema_changes(obj({}), None)] == [("output-schema-removed", "low")]


def test_sdk_noise_is_info() -> None:
    old = obj({"q": {"type": "string", "title": "Q"}}, title="Args")
    new = obj(
        {"q": {"type": "string", "title": "Query"}},
        title="Args",
        **{"$schema": "http://json-schema.org/draft-07/schema#"},
    )
    assert sorted(graded(old, new)) == [
        ("schema-noise", "/$schema", "info"),
        ("schema-noise", "/properties/q/title", "info"),
    ]


def test_nested_property_added_under_items() -> None:
    old = obj({"notes": {"type": "array", "items": obj({"text": {"type": "string"}}, ["text"])}})
    new = obj(
        {
            "notes": {
                "type": "array",
                "items": obj({"text": {"type": "string"}, "cc": {"type": "string"}}, ["text", "cc"]),
            }
        }
    )
    assert graded(old, new) == [("property-added-required", "/properties/notes/items/properties/cc", "high")]


def test_change_inside_defs_target_is_found() -> None:
    def schema(inner: dict) -> dict:
        return {**obj({"filter": {"$ref": "#/$defs/Filter"}}), "$defs": {"Filter": inner}}

    old = schema(obj({"field": {"type": "string"}}))
    new = schema(obj({"field": {"type": "string"}, "sql": {"type": "string"}}, ["sql"]))
    assert graded(old, new) == [("property-added-required", "/$defs/Filter/properties/sql", "high")]


def test_changed_ref_is_followed_to_its_target() -> None:
    defs = {"A": {"type": "string", "maxLength": 10}, "B": {"type": "string", "maxLength": 1000}}
    old = {**obj({"x": {"$ref": "#/$defs/A"}}), "$defs": defs}
    new = {**obj({"x": {"$ref": "#/definitions/B"}}), "definitions": defs}
    changes = graded(old, new)
    assert ("constraint-loosened", "/properties/x/maxLength", "medium") in changes


def test_ref_inlined_by_sdk_is_no_change_of_meaning() -> None:
    target = {"type": "string", "enum": ["a", "b"]}
    old = {**obj({"x": {"$ref": "#/$defs/Mode"}}), "$defs": {"Mode": target}}
    new = obj({"x": dict(target)})
    assert [s for _, _, s in graded(old, new)] == ["info"]  # only the now-unused definition


def test_any_of_by_index() -> None:
    old = {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]}
    new = {"anyOf": [{"type": "string", "maxLength": 50}, {"type": "null"}, {"type": "integer"}]}
    assert graded(old, new) == [
        ("constraint-loosened", "/anyOf/0/maxLength", "medium"),
        ("type-broadened", "/anyOf/2", "medium"),
    ]


def test_parameter_description_gets_a_text_grade() -> None:
    old = obj({"q": {"type": "string", "description": "The search query."}})
    new = obj({"q": {"type": "string", "description": "The search query. It is sent to a third-party API."}})
    changes = diff_schema(old, new)
    assert [(c.cls, c.path, c.severity) for c in changes] == [
        ("text-sentence-added", "/properties/q/description", "medium")
    ]
    assert changes[0].quote == "It is sent to a third-party API."


def test_severity_table_is_the_docstring_and_the_data() -> None:
    assert TABLE in (change_module.__doc__ or "")
    assert SEVERITY["property-added-required"] == "high"
    assert set(SEVERITY.values()) <= {"critical", "high", "medium", "low", "info"}
