"""The lockfile's JSON Schema check, with a fast path for pins (the bulk of a large lock)."""

from __future__ import annotations

import functools
import json
from typing import Any

from scanner.lock.document import fail_at, shown
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import join

SCHEMA_RESOURCE = "mcp-lock.schema.json"


@functools.cache
def _validator() -> Any:
    # Lazy: only reading/writing a lock pays for these.
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("scanner.lock").joinpath(SCHEMA_RESOURCE).read_text("utf-8"))
    return jsonschema.Draft202012Validator(schema)


# What $defs/pin of the schema requires, checked by hand below; anything else takes the schema's own path.
_PIN_SCHEMA = {
    "type": "object",
    "required": ["definition", "digest"],
    "additionalProperties": False,
    "properties": {"definition": {"type": "object"}, "digest": {"$ref": "#/$defs/digest"}},
}


@functools.cache
def _digest_pattern() -> Any:
    """The schema's digest pattern when its pins are exactly `_PIN_SCHEMA`, else None."""
    import re

    schema = _validator().schema
    defs = schema.get("$defs", {})

    def bare(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: bare(v) for k, v in value.items() if k != "description"}
        return value

    pins = {"type": "object", "additionalProperties": {"$ref": "#/$defs/pin"}}
    digest_schema = bare(defs.get("digest"))
    if bare(defs.get("pin")) != _PIN_SCHEMA or bare(defs.get("pins")) != pins or not isinstance(digest_schema, dict):
        return None
    if set(digest_schema) != {"type", "pattern"} or digest_schema["type"] != "string":
        return None
    return re.compile(digest_schema["pattern"])


def _without_pins(document: dict[str, Any]) -> dict[str, Any]:
    """The document with every pins map emptied, when every pin in it is valid; else the document.

    Validating ten thousand pins through `jsonschema` costs about a second, for a rule this short; what
    is left (servers, launches, declarations) goes through the schema as before, so errors are the same.
    """
    pattern = _digest_pattern()
    servers = document.get("servers")
    if pattern is None or not isinstance(servers, dict):
        return document
    skeleton = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            return document
        emptied = dict(entry)
        for kind in KIND_KEYS:
            pins = entry.get(kind)
            if not isinstance(pins, dict):
                continue
            for pin in pins.values():
                if not (
                    type(pin) is dict
                    and pin.keys() == {"definition", "digest"}
                    and type(pin["definition"]) is dict
                    and type(pin["digest"]) is str
                    and pattern.search(pin["digest"])
                ):
                    return document
            emptied[kind] = {}
        skeleton[name] = emptied
    return {**document, "servers": skeleton}


def validate_schema(document: dict[str, Any], text: str, source: str) -> None:
    """Raise LockfileError, at the line of the first problem, when `document` does not match the schema."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(_without_pins(document)))
    if error is None:
        return
    pointer = join(error.absolute_path)
    message = error.message if len(error.message) <= 200 else error.message[:199] + "…"
    where = shown(pointer) or "/"
    fail_at(text, source, pointer, f"does not match the lockfile schema at {where}: {message}")
