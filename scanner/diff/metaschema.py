"""Draft 2020-12's metaschema in one document, with `$dynamicRef` replaced by plain `$ref`.

The official metaschema is split into seven vocabularies joined by `$dynamicRef: "#meta"`, and
`jsonschema` walks the dynamic scope for each of them at every node: about 1.2 ms per tool schema,
12 s for a `lock` of 10,000 tools. Validating a schema *against the metaschema itself* resolves every
`#meta` to the metaschema's root, so `$ref: "#"` means the same thing; flattened, a check costs a
third. `tests/diff/test_metaschema.py` holds the two to the same verdicts.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

BASE = "https://json-schema.org/draft/2020-12/"
VOCABULARIES = ("core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content")
FLAT_ID = "urn:mcp-lock:flat-metaschema:2020-12"

# Keywords whose value maps names to subschemas, lists subschemas, or is one subschema. Everything
# else is data (a property *named* "$ref" in `properties` is not a reference).
_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas", "definitions", "dependencies"})
_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_ONE = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems",
     "unevaluatedProperties", "contentSchema"}
)
_IDENTITY = frozenset({"$id", "$schema", "$vocabulary", "$dynamicAnchor"})  # dropped at each document's root


@functools.cache
def flat_2020_12() -> dict[str, Any]:
    """The metaschema with each vocabulary inlined under `allOf` and its `$defs` prefixed by its name."""
    from jsonschema_specifications import REGISTRY

    defs: dict[str, Any] = {}
    parts = []
    for vocabulary in VOCABULARIES:
        document = REGISTRY.contents(f"{BASE}meta/{vocabulary}")
        for name, schema in document.get("$defs", {}).items():
            defs[f"{vocabulary}-{name}"] = _rewrite(schema, vocabulary)
        parts.append(_rewrite({k: v for k, v in document.items() if k != "$defs"}, vocabulary, root=True))
    top = REGISTRY.contents(f"{BASE}schema")
    flat = _rewrite({k: v for k, v in top.items() if k != "allOf"}, None, root=True)
    flat.update({"$id": FLAT_ID, "allOf": parts, "$defs": defs})
    return flat


def _rewrite(schema: Any, vocabulary: str | None, *, root: bool = False) -> Any:
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if root and key in _IDENTITY:
            continue
        if key == "$dynamicRef":
            if value != "#meta":
                raise ValueError(f"unexpected $dynamicRef {value!r} in the bundled metaschema")
            out["$ref"] = "#"
        elif key == "$ref":
            out["$ref"] = _local(value, vocabulary)
        elif key in _MAPS and isinstance(value, dict):
            out[key] = {name: _rewrite(item, vocabulary) for name, item in value.items()}
        elif key in _LISTS and isinstance(value, list):
            out[key] = [_rewrite(item, vocabulary) for item in value]
        elif key in _ONE:
            out[key] = _rewrite(value, vocabulary)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _local(target: str, vocabulary: str | None) -> str:
    """`#/$defs/X` (within a vocabulary) or `meta/V#/$defs/X` as a pointer into the flat document."""
    document, _, name = target.partition("#/$defs/")
    if not name or (document and not document.startswith("meta/")) or (not document and vocabulary is None):
        raise ValueError(f"unexpected $ref {target!r} in the bundled metaschema")
    return f"#/$defs/{document.removeprefix('meta/') or vocabulary}-{name}"
