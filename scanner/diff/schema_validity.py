"""Tool schemas that are not valid JSON Schema.

Such a tool is still pinned exactly as sent (the lock describes what the server says), but a client
may reject the tool, drop it, or let the model call it with arguments nobody validated. `lock`
reports every pinned schema; `check` only schemas that are new or changed since the pin, so an
invalid schema that was reported and pinned anyway does not nag on every run.

Each schema is checked against the metaschema its `$schema` names when that is a known draft,
else draft 2020-12 (the MCP default). The metaschemas come bundled with `jsonschema`; a `$ref`
in a schema is never followed, let alone fetched. Cost is bounded: a schema nested deeper than
MAX_DEPTH or larger than MAX_NODES is reported instead of checked, and a server's schemas are
checked up to MAX_NODES_PER_SERVER in all.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from scanner.findings import Finding, LockLocation, pointer
from scanner.lock.lockfile import ServerPin
from scanner.rules import rule

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
        budget -= count_nodes(schema, MAX_NODES)[0]
        problem = schema_problem(schema)
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
    nodes, depth = count_nodes(schema, MAX_NODES)
    if depth > MAX_DEPTH or nodes > MAX_NODES:
        return _problem(schema, nodes, depth)
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return _problem(schema, nodes, depth)
    # Servers repeat schemas (every `{"type": "object"}` tool, every copy of a server): check each once.
    if key not in _checked:
        if len(_checked) >= MAX_CACHED:
            _checked.clear()
        _checked[key] = _problem(schema, nodes, depth)
    return _checked[key]


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
    nodes, deepest = 0, 0
    stack = [(value, 1)]
    while stack and nodes <= limit:
        item, depth = stack.pop()
        nodes += 1
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack += [(child, depth + 1) for child in children]
    return nodes, deepest


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

    from scanner.diff.metaschema import flat_2020_12

    meta = validators.validator_for(cls.META_SCHEMA, default=cls)
    metaschema = flat_2020_12() if cls is validators.Draft202012Validator else cls.META_SCHEMA
    return meta(metaschema, registry=REGISTRY, format_checker=meta.FORMAT_CHECKER)


def _shorten(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _finding(key: str, name: str, field: str, problem: SchemaProblem) -> Finding:
    where = pointer(field, *problem.path)[1:]
    verdict = "is not a valid JSON Schema" if problem.checked else "is too large to check as a JSON Schema"
    return Finding(
        rule("schema-invalid"),
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
        rule("schema-invalid"),
        key,
        f"{key}: {len(unchecked)} tool schema(s) not checked: the server's schemas exceed "
        f"{MAX_NODES_PER_SERVER} values in all ({shown})",
        LockLocation(pointer("servers", key)),
    )
