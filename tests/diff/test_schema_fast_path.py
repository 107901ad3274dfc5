"""The fast path says "valid" only where the full check does, so every verdict and message stays the full check's.

`surely_valid` recognises plainly valid draft 2020-12 schemas without `jsonschema`; whatever it is unsure
of gets the full check. It must never pass a schema the full check fails.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.diff import schema_validity
from scanner.diff.metaschema import _LISTS as LISTS
from scanner.diff.metaschema import _MAPS as MAPS
from scanner.diff.metaschema import flat_2020_12
from scanner.diff.schema_validity import (
    CONSTRAINED,
    MAX_NODES,
    _count_depth_first,
    _walk,
    count_nodes,
    schema_problem,
    surely_valid,
)

from .test_metaschema import schemas

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"


def full(schema: Any) -> Any:
    """The full check alone: no fast path, no cache."""
    nodes, depth = count_nodes(schema, MAX_NODES)
    return schema_validity._problem(schema, nodes, depth)


def judged_alike(schema: Any) -> bool:
    """Asserts the fast path is sound on `schema` and the verdict is the full check's; whether it was fast."""
    fast = surely_valid(schema)
    expected = full(schema)
    if fast:
        assert expected is None, (schema, expected)
    # The cache is keyed on the sorted JSON: a schema equal but for key order, seen before, would bring
    # that one's message (its repr of the same value). Judge afresh.
    schema_validity._checked.clear()
    assert schema_problem(schema) == expected, schema
    return fast


# Generated schemas: the official-verdict corpus of test_metaschema.py, and near misses of every keyword
# the metaschema constrains (values of the right family mixed with values just outside it).
@settings(max_examples=1500, deadline=None)
@given(schemas())
def test_same_verdict_as_the_full_check_on_generated_schemas(schema: Any) -> None:
    judged_alike(schema)


NEAR_MISSES: list[Any] = [
    0, 1, -1, 1.5, 1.0, -0.5, 0.0, 2**70, float("inf"), True, False, None, "1",
    "", "a", "string", "strnig", "null", "#", "#/$defs/a", "a#b", "a#", "http://[::1", D2020, D7, "((", "^a+$",
    r"\p{L}", "(?P<x>a)", "a\n", "1a", "_a.b-c", "a b",
    [], ["a"], ["a", "a"], ["a", 1], ["string", "null"], ["string", "string"], ["strnig"], [1, 1], [[]],
]
KEYWORDS = [*sorted(CONSTRAINED), "x-vendor", "nullable", "additionalItems"]
NAMES = st.sampled_from(["a", "b", "^a", "((", "$ref", "type"])
# Values the metaschema accepts for each keyword that takes no schemas (read off the metaschema, not
# off the fast path), so that the corpus holds valid schemas as well as invalid ones.
_RIGHT: list[tuple[str, list[Any]]] = [
    ("title description $comment format contentEncoding contentMediaType", ["", "a b", "date-time"]),
    ("minimum maximum exclusiveMinimum exclusiveMaximum", [0, -1, 1.5, 2**70]),
    ("minLength maxLength minItems maxItems minProperties maxProperties minContains maxContains", [0, 1, 2**70]),
    ("uniqueItems deprecated readOnly writeOnly", [True, False]),
    ("default const", [None, 1, "a", {"a": [1]}]),
    ("multipleOf", [1, 0.5, 2**70]),
    ("type", ["string", "null", "object", ["string", "null"], ["integer"]]),
    ("required", [[], ["a"], ["a", "b"]]),
    ("enum", [[], [1, "a"], [None, None]]),
    ("examples", [[], [1, {"a": 2}]]),
    ("pattern", ["^a+$", "a|b", "\\d{2,}"]),
    ("$ref", ["#", "#/$defs/a", "other.json#/x"]),
    ("$id", ["https://example.com/a", "a#", "urn:x"]),
    ("$anchor $dynamicAnchor $recursiveAnchor", ["a", "_a.b-c"]),
    ("$dynamicRef $recursiveRef", ["#meta", "#"]),
    ("$schema", [D2020]),
    ("$vocabulary", [{D2020: True}]),
    ("dependentRequired", [{"a": ["b"]}, {}]),
]
RIGHT = {keyword: values for keywords, values in _RIGHT for keyword in keywords.split()}


def near_misses(depth: int = 2) -> st.SearchStrategy[Any]:
    schema_leaf = st.sampled_from([True, False, {}, {"type": "string"}, {"x-vendor": 1}])
    leaf = st.one_of(schema_leaf, schema_leaf, schema_leaf, st.sampled_from(NEAR_MISSES))
    if depth == 0:
        return leaf
    inner = near_misses(depth - 1)
    lists, maps = st.lists(inner, min_size=1, max_size=2), st.dictionaries(NAMES, inner, max_size=2)
    wrong = st.one_of(st.sampled_from(NEAR_MISSES), inner, lists, maps)

    def value(keyword: str) -> st.SearchStrategy[Any]:
        if keyword in RIGHT:
            right = st.sampled_from(RIGHT[keyword])
        else:  # a keyword that takes a subschema, a list or a map of them
            right = lists if keyword in LISTS else maps if keyword in MAPS else inner
        return st.one_of(right, right, right, right, right, wrong)  # mostly right

    schema = st.sampled_from(KEYWORDS).flatmap(lambda k: value(k).map(lambda v: (k, v)))
    return st.one_of(leaf, st.lists(schema, max_size=4).map(dict), st.lists(schema, max_size=4).map(dict))


@settings(max_examples=1500, deadline=None)
@given(near_misses())
def test_same_verdict_as_the_full_check_on_near_misses(schema: Any) -> None:
    judged_alike(schema)


# Hand-written invalid schemas, one or more per keyword family, with the message and place the full
# check reported before the fast path existed.
INVALID: list[tuple[Any, tuple[list[str], str, str]]] = [
    ({"type": "strnig"}, (["type"], "'strnig' is not valid under any of the given schemas", "2020-12")),
    ({"type": ["string", "string"]}, (["type"], "['string', 'string'] has non-unique elements", "2020-12")),
    ({"type": []}, (["type"], "[] should be non-empty", "2020-12")),
    (
        {"type": ["string", "nul"]},
        (["type", "1"], "'nul' is not one of ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']",
         "2020-12"),
    ),
    ({"required": "x"}, (["required"], "'x' is not of type 'array'", "2020-12")),
    ({"required": ["a", "a"]}, (["required"], "['a', 'a'] has non-unique elements", "2020-12")),
    ({"required": [1]}, (["required", "0"], "1 is not of type 'string'", "2020-12")),
    ({"minLength": -1}, (["minLength"], "-1 is less than the minimum of 0", "2020-12")),
    ({"maxItems": 1.5}, (["maxItems"], "1.5 is not of type 'integer'", "2020-12")),
    ({"minProperties": True}, (["minProperties"], "True is not of type 'integer'", "2020-12")),
    ({"minimum": "0"}, (["minimum"], "'0' is not of type 'number'", "2020-12")),
    ({"exclusiveMaximum": None}, (["exclusiveMaximum"], "None is not of type 'number'", "2020-12")),
    ({"multipleOf": 0}, (["multipleOf"], "0 is less than or equal to the minimum of 0", "2020-12")),
    ({"properties": {"a": 5}}, (["properties", "a"], "5 is not of type 'object', 'boolean'", "2020-12")),
    ({"properties": []}, (["properties"], "[] is not of type 'object'", "2020-12")),
    (
        {"items": [{"type": "string"}]},
        (["items"], "[{'type': 'string'}] is not of type 'object', 'boolean'", "2020-12"),
    ),
    ({"additionalProperties": "no"}, (["additionalProperties"], "'no' is not of type 'object', 'boolean'", "2020-12")),
    ({"anyOf": []}, (["anyOf"], "[] should be non-empty", "2020-12")),
    ({"allOf": [5]}, (["allOf", "0"], "5 is not of type 'object', 'boolean'", "2020-12")),
    ({"oneOf": {"type": "string"}}, (["oneOf"], "{'type': 'string'} is not of type 'array'", "2020-12")),
    ({"enum": 3}, (["enum"], "3 is not of type 'array'", "2020-12")),
    ({"examples": "x"}, (["examples"], "'x' is not of type 'array'", "2020-12")),
    ({"description": 5}, (["description"], "5 is not of type 'string'", "2020-12")),
    ({"title": ["x"]}, (["title"], "['x'] is not of type 'string'", "2020-12")),
    ({"format": 1}, (["format"], "1 is not of type 'string'", "2020-12")),
    ({"uniqueItems": "yes"}, (["uniqueItems"], "'yes' is not of type 'boolean'", "2020-12")),
    ({"deprecated": 0}, (["deprecated"], "0 is not of type 'boolean'", "2020-12")),
    ({"pattern": "(("}, (["pattern"], "'((' is not a 'regex'", "2020-12")),
    # re raises OverflowError here, not re.error: it used to escape as a traceback
    ({"pattern": "a{99999999999999}"}, (["pattern"], "'a{99999999999999}' is not a 'regex'", "2020-12")),
    (
        {"patternProperties": {"x{99999999999999}": {}}},
        (["patternProperties"], "'x{99999999999999}' is not a 'regex'", "2020-12"),
    ),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "a{99999999999999}"},
     (["pattern"], "'a{99999999999999}' is not a 'regex'", "draft-07")),
    ({"pattern": 5}, (["pattern"], "5 is not of type 'string'", "2020-12")),
    ({"patternProperties": {"((": {}}}, (["patternProperties"], "'((' is not a 'regex'", "2020-12")),
    ({"$ref": 5}, (["$ref"], "5 is not of type 'string'", "2020-12")),
    ({"$id": "a#b"}, (["$id"], "'a#b' does not match '^[^#]*#?$'", "2020-12")),
    ({"$anchor": "1a"}, (["$anchor"], "'1a' does not match '^[A-Za-z_][-A-Za-z0-9._]*$'", "2020-12")),
    ({"$comment": 1}, (["$comment"], "1 is not of type 'string'", "2020-12")),
    (
        {"dependentRequired": {"a": ["b", "b"]}},
        (["dependentRequired", "a"], "['b', 'b'] has non-unique elements", "2020-12"),
    ),
    ({"dependencies": {"a": ["b", 1]}}, (["dependencies", "a", "1"], "1 is not of type 'string'", "2020-12")),
    (
        {"$defs": {"a": {"type": 3}}},
        (["$defs", "a", "type"], "3 is not valid under any of the given schemas", "2020-12"),
    ),
    ({"definitions": []}, (["definitions"], "[] is not of type 'object'", "2020-12")),
    (
        {"type": "object", "properties": {"a": {"type": "array", "items": {"properties": {"b": {"minimum": "0"}}}}}},
        (["properties", "a", "items", "properties", "b", "minimum"], "'0' is not of type 'number'", "2020-12"),
    ),
    ({"$schema": D4, "enum": []}, (["enum"], "[] should be non-empty", "draft-04")),  # valid in 2020-12
    ({"$schema": D7, "type": "strnig"}, (["type"], "'strnig' is not valid under any of the given schemas", "draft-07")),
    ({"$schema": 5, "type": "object"}, (["$schema"], "5 is not of type 'string'", "2020-12")),
    (None, ([], "None is not of type 'object', 'boolean'", "2020-12")),
    ("not a schema", ([], "'not a schema' is not of type 'object', 'boolean'", "2020-12")),
    ([{"type": "object"}], ([], "[{'type': 'object'}] is not of type 'object', 'boolean'", "2020-12")),
]


@pytest.mark.parametrize(("schema", "expected"), INVALID, ids=[repr(s)[:40] for s, _ in INVALID])
def test_invalid_schemas_keep_their_message(schema: Any, expected: tuple[list[str], str, str]) -> None:
    assert not surely_valid(schema)
    problem = schema_problem(schema)
    assert problem is not None and problem.checked
    assert (list(problem.path), problem.message, problem.draft) == expected
    assert problem == full(schema)


TYPICAL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to read.", "minLength": 1, "pattern": "^[^\\0]+$"},
        "encoding": {"type": "string", "enum": ["utf-8", "latin-1"], "default": "utf-8"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "exclusiveMaximum": 1001.5, "default": 100},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "uniqueItems": True},
        "options": {
            "type": ["object", "null"],
            "properties": {"depth": {"type": "number", "multipleOf": 0.5}},
            "additionalProperties": False,
        },
        "mode": {"anyOf": [{"const": "fast"}, {"$ref": "#/$defs/mode"}], "title": "Mode", "examples": ["fast"]},
    },
    "required": ["path"],
    "additionalProperties": False,
    "$defs": {"mode": {"type": "string", "format": "hostname", "deprecated": False}},
}
FAST_VALID: list[Any] = [
    TYPICAL,
    {**TYPICAL, "$schema": D2020},
    {},
    True,
    False,
    {"type": "object"},
    {"enum": []},  # valid in 2020-12 (draft-04 asks for one value at least)
    {"x-vendor": {"type": 5}, "nullable": True, "additionalItems": 3},  # keywords 2020-12 does not constrain
    {"patternProperties": {"^x-": {"type": "string"}}, "propertyNames": {"maxLength": 20}},
    {"$id": "https://example.com/s#", "$anchor": "a_1", "$comment": "c", "if": {}, "then": False, "else": True},
    {"dependentRequired": {"a": ["b"]}, "dependencies": {"a": ["b"], "c": {"required": []}}, "minContains": 0},
    {"prefixItems": [{"type": "integer"}], "contains": {"type": "null"}, "unevaluatedItems": False},
]


@pytest.mark.parametrize("schema", FAST_VALID, ids=[repr(s)[:40] for s in FAST_VALID])
def test_plainly_valid_schemas_skip_the_full_check(schema: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert full(schema) is None
    monkeypatch.setattr(schema_validity, "_problem", pytest.fail)  # the validator is not consulted at all
    assert surely_valid(schema)
    assert schema_problem(schema) is None


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": D7, "type": "object"},  # other drafts: the full check
        {"$schema": D4, "minimum": 0, "exclusiveMinimum": True},
        {"$schema": D2020 + "#", "type": "object"},
        {"$schema": "https://example.com/unknown", "type": "object"},
        {"$dynamicRef": "#meta"},  # rare keywords
        {"$vocabulary": {}},
        {"minLength": 1.0},  # an integer to the full check, not plainly one
        {"multipleOf": float("nan")},
    ],
)
def test_unsure_cases_take_the_full_check_and_pass(schema: Any) -> None:
    assert not surely_valid(schema)
    assert schema_problem(schema) is None


def test_formats_are_asked_of_the_full_checks_format_checker() -> None:
    # Where a URI checker is installed the full check rejects what it rejects; so must the fast path.
    def accept(value: str, format: str) -> bool:
        return True

    def reject(value: str, format: str) -> bool:
        return False

    for schema in ({"$ref": "#/a"}, {"$id": "a"}, {"pattern": "a"}, {"patternProperties": {"a": {}}},
                   {"properties": {"a": {"$schema": D2020}}}):
        assert _walk(schema, accept), schema
        assert not _walk(schema, reject), schema


def test_the_fast_path_knows_every_keyword_the_metaschema_constrains() -> None:
    flat = flat_2020_12()
    levels = [flat, *flat["allOf"]]
    constrained = {name for level in levels for name in level.get("properties", {})}
    assert constrained == CONSTRAINED
    # No keyword outside those is looked at: the metaschema's schema-level keywords are these alone.
    assert {key for level in levels for key in level} <= {"title", "type", "$comment", "properties", "allOf", "$defs",
                                                           "$id"}


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=2)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=2), inner, max_size=4)),
    max_leaves=60,
)


@settings(max_examples=500, deadline=None)
@given(JSON, st.integers(0, 70))
def test_count_nodes_counts_as_the_depth_first_count_did(value: Any, limit: int) -> None:
    # The level-by-level count gives the same (values, depth), limit or no limit, so bounds and messages hold.
    assert count_nodes(value, limit) == _count_depth_first(value, limit)


def test_plain_schemas_are_judged_without_importing_jsonschema() -> None:
    """The format checker (and `jsonschema`, a fifth of a CPU-second to import) is built for the first schema that
    needs it, not for every first judgement: a lock of servers whose schemas hold no pattern pays nothing for it.
    A fresh process, since this one may have imported it already."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from scanner.diff.schema_validity import schema_problem\n"
        "plain = {'type': 'object', 'properties': {'path': {'type': 'string', 'description': 'a file'}},"
        " 'required': ['path']}\n"
        "assert schema_problem(plain) is None\n"
        "print('jsonschema' in sys.modules)\n"
        "bad = {'type': 'object', 'properties': {'p': {'type': 'string', 'pattern': '(unclosed'}}}\n"
        "print(schema_problem(bad) is not None, 'jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]
