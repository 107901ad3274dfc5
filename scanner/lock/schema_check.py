"""The lockfile's JSON Schema check, with a fast path for pins (the bulk of a large lock)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from scanner.files.kept import Kept
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


# --- verdicts kept across runs -----------------------------------------------------------------------------
#
# Validating the skeleton of a 10,000-definition lock through `jsonschema` (and importing it) is a few tenths of a
# second on every read. Whether a text matches the schema is a pure function of the text, the schema, this code
# (the `known` set's key, reader.rendering_key, digests every module of scanner/lock) and the validator: so a text
# this user's mcp-lock validated before is not validated again. Only a text that validated is kept, under an entry
# binding the text's SHA-256, the schema's bytes and the validator's release; `known` is the HMAC-sealed set of
# scanner/files/kept.py, in the user's cache, which the repository cannot write. A text never validated, an edited
# schema, another jsonschema or a forged or corrupted cache file: the schema is checked as before.


@functools.cache
def _verdict_binding() -> bytes | None:
    """The schema's bytes and the validator's release, digested; None when the release cannot be told."""
    from importlib import resources
    from importlib.util import find_spec

    spec = find_spec("jsonschema")  # finds, does not import: a kept verdict must not pay for the import
    if spec is None or spec.origin is None:
        return None
    site = Path(spec.origin).parent.parent
    try:
        releases = sorted(n for n in os.listdir(site) if n.startswith("jsonschema-") and n.endswith(".dist-info"))
    except OSError:
        return None
    if len(releases) != 1:  # none, or several: which one is loaded cannot be told without importing it
        return None
    schema = resources.files("scanner.lock").joinpath(SCHEMA_RESOURCE).read_bytes()
    return hashlib.sha256(b"mcp-lock schema verdict v1\0" + releases[0].encode() + b"\0" + schema).digest()


def schema_entry(text_digest: bytes) -> bytes | None:
    """The entry of `known` saying the text whose SHA-256 is `text_digest` matches the schema (None: never kept)."""
    binding = _verdict_binding()
    if binding is None or len(text_digest) != hashlib.sha256().digest_size:
        return None
    return hashlib.sha256(binding + b"schema-valid" + text_digest).digest()


def validate_schema_kept(document: dict[str, Any], text: str, source: str, known: Kept | None,
                         text_digest: bytes) -> None:
    """`validate_schema`, skipped when `known` holds that this very text validated; kept when it does.

    `document` must be what `json.loads(text)` gives, `text_digest` the SHA-256 of the text's UTF-8 bytes.
    """
    entry = schema_entry(text_digest) if known is not None else None
    if entry is not None and entry in known:  # type: ignore[operator]
        return
    validate_schema(document, text, source)
    if entry is not None:
        known.add(entry)  # type: ignore[union-attr]
