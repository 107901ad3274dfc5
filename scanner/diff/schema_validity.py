"""Tool schemas that are not valid JSON Schema.

Such a tool is still pinned exactly as sent (the lock describes what the server says), but a client
may reject the tool, drop it, or let the model call it with arguments nobody validated. `lock`
reports every pinned schema; `check` only schemas that are new or changed since the pin, so an
invalid schema that was reported and pinned anyway does not nag on every run.

Each schema is checked against the metaschema its `$schema` names when that is a known draft,
else draft 2020-12 (the MCP default). The metaschemas come bundled with `jsonschema`; a `$ref`
in a schema is never followed, let alone fetched. Cost is bounded: a schema nested deeper than
MAX_DEPTH or larger than MAX_NODES is reported instead of checked, and a server's schemas are
checked up to MAX_NODES_PER_SERVER in all. Nearly every schema is a plainly valid 2020-12 one, which
`surely_valid` recognises in one walk without `jsonschema` (tens of microseconds where the validator
takes most of a millisecond); any other schema gets the full check, and so the same verdict and message.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from scanner.diff.metaschema import flat_2020_12
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import SCHEMA_INVALID

SCHEMA_FIELDS = ("inputSchema", "outputSchema")
MAX_DEPTH = 64  # real tool schemas nest a handful of levels; the validator recurses per level
MAX_NODES = 10_000  # about a second of validation
MAX_NODES_PER_SERVER = 100_000  # about ten seconds: twenty times a large real server
MAX_ERRORS = 50  # errors looked at to pick the most relevant one
MAX_MESSAGE = 200
DEFAULT_DRAFT = "2020-12"


@dataclass(frozen=True)
class SchemaProblem:
    path: tuple[str, ...]  # where in the schema, as pointer parts
    message: str
    draft: str
    checked: bool = True  # False: past the cost bounds, so not validated at all


def schema_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Invalid schemas among `live`'s tools that `pinned` did not already have (all of them when unpinned)."""
    before = pinned.tools if pinned is not None else {}
    findings: list[Finding] = []
    budget = MAX_NODES_PER_SERVER
    unchecked: list[str] = []
    for name, field, schema in _new_schemas(live, before):
        if budget <= 0:
            unchecked.append(f"{name}.{field}")
            continue
        problem, nodes = _judge(schema)
        budget -= nodes
        if problem is not None:
            findings.append(_finding(key, name, field, problem))
    if unchecked:
        findings.append(_over_budget(key, unchecked))
    return findings


def _new_schemas(live: ServerPin, before: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    for name, pin in live.tools.items():
        old = before[name].definition if name in before else None
        for field in SCHEMA_FIELDS:
            if field in pin.definition and (old is None or old.get(field) != pin.definition[field]):
                yield name, field, pin.definition[field]


def schema_problem(schema: Any) -> SchemaProblem | None:
    """Why `schema` is not a valid JSON Schema, or None when it is. Never raises, never fetches."""
    return _judge(schema)[0]


def _judge(schema: Any) -> tuple[SchemaProblem | None, int]:
    """schema_problem, and the values `schema` holds (as count_nodes counts them)."""
    nodes, depth = count_nodes(schema, MAX_NODES)
    if depth > MAX_DEPTH or nodes > MAX_NODES:
        return _problem(schema, nodes, depth), nodes
    if surely_valid(schema):  # nearly every schema, without the full check
        return None, nodes
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return _problem(schema, nodes, depth), nodes
    # Servers repeat schemas (every copy of a server): check each once.
    if key not in _checked:
        if len(_checked) >= MAX_CACHED:
            _checked.clear()
        _checked[key] = _problem(schema, nodes, depth)
    return _checked[key], nodes


MAX_CACHED = 4096
_checked: dict[str, SchemaProblem | None] = {}


def _problem(schema: Any, nodes: int, depth: int) -> SchemaProblem | None:
    draft, validator = _validator(schema)
    if depth > MAX_DEPTH:
        return SchemaProblem((), f"nested deeper than {MAX_DEPTH} levels", draft, checked=False)
    if nodes > MAX_NODES:
        return SchemaProblem((), f"more than {MAX_NODES} values", draft, checked=False)
    from jsonschema.exceptions import best_match

    try:
        error = best_match(itertools.islice(validator.iter_errors(schema), MAX_ERRORS))
    except RecursionError:
        return SchemaProblem((), "nested too deeply", draft, checked=False)
    if error is None:
        return None
    return SchemaProblem(tuple(str(p) for p in error.absolute_path), _shorten(error.message), draft)


def count_nodes(value: Any, limit: int) -> tuple[int, int]:
    """(values, deepest nesting) of a JSON value, counting no further than `limit` values."""
    # Level by level is five times faster than one value at a time; it gives the same totals whenever
    # they are within `limit`. Past it, where counting stops early, the depth-first count is the answer.
    nodes, deepest = 0, 0
    level = [value]
    while level:
        deepest += 1
        nodes += len(level)
        if nodes > limit:
            return _count_depth_first(value, limit)
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                below += item.values()
            elif isinstance(item, list):
                below += item
        level = below
    return nodes, deepest


def _count_depth_first(value: Any, limit: int) -> tuple[int, int]:
    nodes, deepest = 0, 0
    stack = [(value, 1)]
    while stack and nodes <= limit:
        item, depth = stack.pop()
        nodes += 1
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack += [(child, depth + 1) for child in children]
    return nodes, deepest


def surely_valid(schema: Any) -> bool:
    """True only for a schema the full check would pass; False means "run the full check" (it may pass).

    A conservative reading of the draft 2020-12 metaschema (the default, and whatever names it) in one
    walk, with no `jsonschema` validator: each keyword the metaschema constrains must be one of
    _KEYWORDS and hold a value that is plainly what the metaschema asks for (formats are asked of the
    very format checker the full check uses); keywords it does not constrain (`x-vendor`, `nullable`)
    are unchecked there and here. Other drafts, and anything rare or odd, take the full check.
    tests/diff/test_schema_fast_path.py holds this to the full check's verdicts.
    """
    if isinstance(schema, dict) and schema.get("$schema", _DRAFT_2020_12) != _DRAFT_2020_12:
        return False
    try:
        return _walk(schema, _conforms)
    except Exception:  # whatever the full check makes of it (it may raise the same), it is not for here
        return False


def _conforms(value: Any, format_name: str) -> bool:
    """The full check's own format checker on `value`, built (and `jsonschema` imported, a fifth of a CPU-second)
    only for the first schema that holds a pattern, a reference or a `$schema`: most servers' schemas hold none."""
    return bool(_meta_validator_2020_12().format_checker.conforms(value, format_name))


_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
# What each constrained keyword's value must be: a schema (a dict or a boolean), a dict or a non-empty
# list of schemas, a string, and so on. "$defs"-style maps and lists are checked here, their schemas
# on the walk's stack.
(_SCHEMA, _SCHEMA_MAP, _SCHEMA_LIST, _STRING, _TYPE, _STRING_ARRAY, _LIST, _ANY, _NUMBER, _COUNT, _BOOLEAN,
 _PATTERN, _PATTERN_MAP, _URI_REF, _URI, _ID, _ANCHOR, _POSITIVE, _REQUIRED_MAP, _DEPENDENCIES) = range(20)
_KEYWORDS: dict[str, int] = {
    "description": _STRING, "title": _STRING, "type": _TYPE, "properties": _SCHEMA_MAP, "required": _STRING_ARRAY,
    "items": _SCHEMA, "additionalProperties": _SCHEMA, "enum": _LIST, "default": _ANY, "const": _ANY,
    "examples": _LIST, "minimum": _NUMBER, "maximum": _NUMBER, "exclusiveMinimum": _NUMBER,
    "exclusiveMaximum": _NUMBER, "multipleOf": _POSITIVE, "minLength": _COUNT, "maxLength": _COUNT,
    "minItems": _COUNT, "maxItems": _COUNT, "minProperties": _COUNT, "maxProperties": _COUNT,
    "minContains": _COUNT, "maxContains": _COUNT, "uniqueItems": _BOOLEAN, "deprecated": _BOOLEAN,
    "readOnly": _BOOLEAN, "writeOnly": _BOOLEAN, "format": _STRING, "pattern": _PATTERN,
    "patternProperties": _PATTERN_MAP, "$defs": _SCHEMA_MAP, "definitions": _SCHEMA_MAP,
    "dependentSchemas": _SCHEMA_MAP, "anyOf": _SCHEMA_LIST, "oneOf": _SCHEMA_LIST, "allOf": _SCHEMA_LIST,
    "prefixItems": _SCHEMA_LIST, "not": _SCHEMA, "if": _SCHEMA, "then": _SCHEMA, "else": _SCHEMA,
    "contains": _SCHEMA, "propertyNames": _SCHEMA, "unevaluatedItems": _SCHEMA, "unevaluatedProperties": _SCHEMA,
    "contentSchema": _SCHEMA, "contentEncoding": _STRING, "contentMediaType": _STRING, "$comment": _STRING,
    "$ref": _URI_REF, "$schema": _URI, "$id": _ID, "$anchor": _ANCHOR, "dependentRequired": _REQUIRED_MAP,
    "dependencies": _DEPENDENCIES,
}
# Every keyword the 2020-12 metaschema constrains (tests/diff/test_schema_fast_path.py reads them off
# it). Those not in _KEYWORDS ($dynamicRef, $vocabulary, ...) are rare: the full check judges them.
CONSTRAINED = frozenset(_KEYWORDS) | {"$dynamicRef", "$dynamicAnchor", "$vocabulary", "$recursiveAnchor",
                                      "$recursiveRef"}
_ID_PATTERN = "^[^#]*#?$"  # the metaschema's own patterns, matched as the full check matches them
_ANCHOR_PATTERN = "^[A-Za-z_][-A-Za-z0-9._]*$"


def _walk(schema: Any, conforms: Any) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if node is True or node is False:
            continue
        if type(node) is not dict:
            return False
        for key, value in node.items():
            kind = _KEYWORDS.get(key)
            if kind is None:
                if type(key) is not str or key in CONSTRAINED:
                    return False
            elif kind == _STRING:
                if type(value) is not str:
                    return False
            elif kind == _TYPE:
                if type(value) is str:
                    if value not in _TYPES:
                        return False
                elif not _unique_strings(value, nonempty=True, among=_TYPES):
                    return False
            elif kind == _SCHEMA_MAP:
                if type(value) is not dict:
                    return False
                stack += value.values()
            elif kind == _SCHEMA:
                stack.append(value)
            elif kind == _ANY:
                pass
            elif kind == _STRING_ARRAY:
                if not _unique_strings(value):
                    return False
            elif kind == _LIST:
                if type(value) is not list:
                    return False
            elif kind == _NUMBER:
                if type(value) is not int and type(value) is not float:
                    return False
            elif kind == _COUNT:
                if type(value) is not int or value < 0:
                    return False
            elif kind == _SCHEMA_LIST:
                if type(value) is not list or not value:
                    return False
                stack += value
            elif kind == _BOOLEAN:
                if value is not True and value is not False:
                    return False
            elif kind == _PATTERN:
                if type(value) is not str or not conforms(value, "regex"):
                    return False
            elif kind == _PATTERN_MAP:
                if type(value) is not dict or not all(type(k) is str and conforms(k, "regex") for k in value):
                    return False
                stack += value.values()
            elif kind == _POSITIVE:
                if (type(value) is not int and type(value) is not float) or not value > 0:
                    return False
            elif kind in (_URI_REF, _ID):
                if type(value) is not str or not conforms(value, "uri-reference"):
                    return False
                if kind == _ID and not re.search(_ID_PATTERN, value):
                    return False
            elif kind == _URI:
                if type(value) is not str or not conforms(value, "uri"):
                    return False
            elif kind == _ANCHOR:
                if type(value) is not str or not re.search(_ANCHOR_PATTERN, value):
                    return False
            elif kind == _REQUIRED_MAP:
                if type(value) is not dict or not all(_unique_strings(names) for names in value.values()):
                    return False
            elif kind == _DEPENDENCIES:  # each a schema or, failing that, a list of names
                if type(value) is not dict:
                    return False
                for item in value.values():
                    if type(item) is list:
                        if not _unique_strings(item):
                            return False
                    else:
                        stack.append(item)
            else:  # pragma: no cover - every kind is handled above
                return False
    return True


def _unique_strings(value: Any, *, nonempty: bool = False, among: frozenset[str] | None = None) -> bool:
    if type(value) is not list or (nonempty and not value):
        return False
    for item in value:
        if type(item) is not str or (among is not None and item not in among):
            return False
    return len(set(value)) == len(value)


def _validator(schema: Any) -> tuple[str, Any]:
    """The draft `schema` declares (2020-12 when it names none we know) and a validator of its metaschema."""
    from jsonschema import validators

    declared = schema.get("$schema") if isinstance(schema, dict) else None
    cls: Any = validators.Draft202012Validator
    if isinstance(declared, str):
        with contextlib.suppress(ValueError, TypeError):  # not a URI at all: the default applies
            cls = validators.validator_for({"$schema": declared}, default=cls)
    return _DRAFTS.get(cls.__name__, DEFAULT_DRAFT), _meta_validator(cls)


_DRAFTS = {
    "Draft3Validator": "draft-03",
    "Draft4Validator": "draft-04",
    "Draft6Validator": "draft-06",
    "Draft7Validator": "draft-07",
    "Draft201909Validator": "2019-09",
    "Draft202012Validator": "2020-12",
}


@functools.cache
def _meta_validator(cls: Any) -> Any:
    """What `cls.check_schema` does, but resolving references only among the bundled metaschemas.

    2020-12, the default and by far the most common, uses the flattened metaschema (a third of the cost).
    """
    from jsonschema import validators
    from jsonschema_specifications import REGISTRY

    meta = validators.validator_for(cls.META_SCHEMA, default=cls)
    metaschema = flat_2020_12() if cls is validators.Draft202012Validator else cls.META_SCHEMA
    return meta(metaschema, registry=REGISTRY, format_checker=_format_checker(meta.FORMAT_CHECKER))


def _format_checker(bundled: Any) -> Any:
    """The draft's format checker, except that a regex `re` cannot compile for any reason is not a regex.

    The bundled check expects only `re.error`; `a{99999999999999}` raises OverflowError, and a pattern
    nested thousands of groups deep RecursionError, either of which would escape as a traceback.
    """
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checkers = dict(bundled.checkers)
    if "regex" in checker.checkers:
        checker.checkers["regex"] = (_is_regex, (re.error, OverflowError, RecursionError, MemoryError))
    return checker


def _is_regex(instance: object) -> bool:
    if isinstance(instance, str):
        re.compile(instance)
    return True


def _meta_validator_2020_12() -> Any:
    from jsonschema import validators

    return _meta_validator(validators.Draft202012Validator)


def _shorten(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _finding(key: str, name: str, field: str, problem: SchemaProblem) -> Finding:
    where = pointer(field, *problem.path)[1:]
    verdict = "is not a valid JSON Schema" if problem.checked else "is too large to check as a JSON Schema"
    return Finding(
        SCHEMA_INVALID,
        key,
        f"{key}: tool `{name}` {field} {verdict} ({problem.draft}): {problem.message}",
        LockLocation(pointer("servers", key, "tools", name, "definition", field, *problem.path)),
        subject=name,
        kind="tools",
        details=[f"at {where}: {problem.message}"],
    )


def _over_budget(key: str, unchecked: list[str]) -> Finding:
    shown = ", ".join(unchecked[:5]) + (f" and {len(unchecked) - 5} more" if len(unchecked) > 5 else "")
    return Finding(
        SCHEMA_INVALID,
        key,
        f"{key}: {len(unchecked)} tool schema(s) not checked: the server's schemas exceed "
        f"{MAX_NODES_PER_SERVER} values in all ({shown})",
        LockLocation(pointer("servers", key)),
    )
