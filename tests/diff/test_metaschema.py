"""The flattened 2020-12 metaschema judges every schema exactly as the official one does."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import validators
from jsonschema_specifications import REGISTRY

from scanner.diff.metaschema import flat_2020_12

V = validators.Draft202012Validator
OFFICIAL = V(V.META_SCHEMA, registry=REGISTRY, format_checker=V.FORMAT_CHECKER)
FLAT = V(flat_2020_12(), registry=REGISTRY, format_checker=V.FORMAT_CHECKER)

KEYWORDS = [
    "type", "properties", "items", "prefixItems", "required", "enum", "const", "minimum", "exclusiveMinimum",
    "maxLength", "pattern", "format", "$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not", "if",
    "then", "else", "additionalProperties", "patternProperties", "dependentRequired", "dependentSchemas",
    "dependencies", "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$schema", "$comment", "title",
    "description", "default", "examples", "deprecated", "readOnly", "contentMediaType", "contentSchema",
    "unevaluatedProperties", "minItems", "uniqueItems", "contains", "propertyNames", "$recursiveAnchor",
    "$vocabulary", "multipleOf", "x-vendor",
]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.sampled_from(
        ["object", "string", "strng", "array", "#", "#/$defs/a", "^a+$", "((", "email", "uri", "a", "", "-1"]
    )
)


def schemas(depth: int = 3) -> st.SearchStrategy[Any]:
    leaf = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
    if depth == 0:
        return leaf
    inner = schemas(depth - 1)
    return st.one_of(
        leaf,
        st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=5),
        st.dictionaries(st.sampled_from(["a", "b", "$ref", "type"]), inner, max_size=3),
        st.lists(inner, max_size=3),
    )


def verdicts(validator: Any, schema: Any) -> tuple[bool, list[tuple[str, str]]]:
    errors = sorted((json.dumps(list(e.absolute_path)), e.message) for e in validator.iter_errors(schema))
    return validator.is_valid(schema), errors


@settings(max_examples=1500, deadline=None)
@given(schemas())
def test_same_verdict_and_errors_on_generated_schemas(schema: Any) -> None:
    assert verdicts(FLAT, schema) == verdicts(OFFICIAL, schema)


def test_same_verdict_on_known_cases() -> None:
    cases: list[Any] = [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "strng"},
        {"properties": []},
        {"required": "x"},
        {"definitions": {"a": {"type": 3}}},
        {"dependencies": {"a": ["b", 1]}},
        {"$defs": {"a": {"$ref": 5}}},
        {"items": {"items": {"items": {"minimum": "0"}}}},
        {"$recursiveAnchor": "not an anchor!"},
        {"$dynamicRef": 1},
        {"pattern": "(("},
        True,
        None,
    ]
    for schema in cases:
        assert verdicts(FLAT, schema) == verdicts(OFFICIAL, schema), schema
    assert sum(OFFICIAL.is_valid(s) for s in cases) == 2  # the corpus holds both kinds


def test_flat_metaschema_references_only_itself() -> None:
    text = json.dumps(flat_2020_12())
    refs = {part.split('"')[0] for part in text.split('"$ref": "')[1:]}
    assert refs and all(ref == "#" or ref.startswith("#/$defs/") for ref in refs)
