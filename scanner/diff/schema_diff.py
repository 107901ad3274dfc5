"""Recursive JSON Schema diff: what a changed `inputSchema`/`outputSchema` means to a caller.

Walks nested `properties`, array `items`/`prefixItems`, `$defs`/`definitions`, `$ref` targets (when a
reference changes, or a schema is inlined in place of one) and `anyOf`/`oneOf`/`allOf` by index. Each
difference becomes a `Change` whose path is a JSON pointer into the schema; severities come from the
table in `scanner.diff.change`.
"""

from __future__ import annotations

import re
from typing import Any

from scanner.diff.change import Change, change, same, summary
from scanner.diff.text_diff import text_changes
from scanner.lock.canonical import canonical_bytes
from scanner.model.pointer import escape, unescape

UPPER_BOUNDS = ("maxLength", "maxItems", "maxProperties", "maxContains", "maximum", "exclusiveMaximum")
LOWER_BOUNDS = ("minLength", "minItems", "minProperties", "minContains", "minimum", "exclusiveMinimum")
STRING_CONSTRAINTS = ("pattern", "format")
HANDLED = {
    "$schema",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "default",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "$defs",
    "definitions",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "uniqueItems",
    *UPPER_BOUNDS,
    *LOWER_BOUNDS,
    *STRING_CONSTRAINTS,
}
MAX_REF_DEPTH = 32


def output_schema_changes(old: Any, new: Any) -> list[Change]:
    if old is None:
        return [change("output-schema-added", "", "output schema added", "outputSchema")]
    if new is None:
        return [change("output-schema-removed", "", "output schema removed", "outputSchema")]
    return diff_schema(old, new, field="outputSchema")


def diff_schema(old: Any, new: Any, field: str = "inputSchema") -> list[Change]:
    """Every graded difference between two schemas (whole `inputSchema` values, say)."""
    return _Walk(old, new, field).node(old, new, "", 0)


class _Walk:
    def __init__(self, root_old: Any, root_new: Any, field: str) -> None:
        self.roots = (root_old, root_new)
        self.field = field

    def add(self, cls: str, path: str, detail: str) -> Change:
        return change(cls, path, detail, self.field)

    def resolve(self, schema: Any, side: int, depth: int) -> Any:
        """A local `$ref` replaced by its target (sibling keywords kept), followed a bounded number of times."""
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < MAX_REF_DEPTH:
            target = _lookup(self.roots[side], schema["$ref"])
            if not isinstance(target, dict):
                return schema
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings}
            depth += 1
        return schema

    def node(self, old: Any, new: Any, path: str, depth: int) -> list[Change]:
        if same(old, new):
            return []
        if depth > MAX_REF_DEPTH:
            return [self.add("schema-changed", path, "changed (too deep to compare)")]
        if isinstance(old, dict) and isinstance(new, dict) and old.get("$ref") != new.get("$ref"):
            old, new = self.resolve(old, 0, depth), self.resolve(new, 1, depth)
            if same(old, new):
                return []
        if not isinstance(old, dict) or not isinstance(new, dict):
            return [self.add("schema-changed", path, f"{summary(old)} → {summary(new)}")]
        out: list[Change] = []
        out += self.noise(old, new, path)
        if not same(old.get("description"), new.get("description")):
            out += text_changes(self.field, path + "/description", old.get("description"), new.get("description"))
        out += self.types(old, new, path)
        out += self.enums(old, new, path)
        for key in ("const", "default"):
            if not same(old.get(key), new.get(key)):
                out.append(
                    self.add(
                        f"{key}-changed", path + "/" + key, f"{key} {summary(old.get(key))} → {summary(new.get(key))}"
                    )
                )
        out += self.constraints(old, new, path)
        out += self.properties(old, new, path, depth)
        out += self.additional(old, new, path, depth)
        out += self.items(old, new, path, depth)
        for key in ("$defs", "definitions"):
            out += self.named(old.get(key), new.get(key), f"{path}/{key}", depth)
        for key in ("anyOf", "oneOf", "allOf"):
            out += self.branches(key, old.get(key), new.get(key), path, depth)
        for key in sorted((old.keys() | new.keys()) - HANDLED):
            if not same(old.get(key), new.get(key)):
                out.append(
                    self.add(
                        "schema-changed",
                        f"{path}/{escape(key)}",
                        f"{key} {summary(old.get(key))} → {summary(new.get(key))}",
                    )
                )
        return out

    def noise(self, old: dict[str, Any], new: dict[str, Any], path: str) -> list[Change]:
        out = []
        for key in ("$schema", "title"):
            if not same(old.get(key), new.get(key)):
                out.append(
                    self.add(
                        "schema-noise", f"{path}/{key}", f"{key} {summary(old.get(key))} → {summary(new.get(key))}"
                    )
                )
        return out

    def types(self, old: dict[str, Any], new: dict[str, Any], path: str) -> list[Change]:
        was, now = _types(old.get("type")), _types(new.get("type"))
        if was == now:
            return []
        shown = f"type {summary(old.get('type'))} → {summary(new.get('type'))}"
        if was is None or (now is not None and now > was):
            return [self.add("type-broadened", path + "/type", shown)]
        if now is None or now < was:
            return [self.add("type-narrowed", path + "/type", shown)]
        return [self.add("type-changed", path + "/type", shown)]

    def enums(self, old: dict[str, Any], new: dict[str, Any], path: str) -> list[Change]:
        if same(old.get("enum"), new.get("enum")):
            return []
        was, now = _values(old.get("enum")), _values(new.get("enum"))
        shown = f"enum {summary(old.get('enum'))} → {summary(new.get('enum'))}"
        if was is None or (now is not None and now > was):
            return [self.add("enum-widened", path + "/enum", shown)]
        if now is None or now < was:
            return [self.add("enum-narrowed", path + "/enum", shown)]
        if now == was:  # reordered only
            return [self.add("schema-noise", path + "/enum", shown + " (order only)")]
        return [self.add("enum-changed", path + "/enum", shown)]

    def constraints(self, old: dict[str, Any], new: dict[str, Any], path: str) -> list[Change]:
        out = []
        for key in (*UPPER_BOUNDS, *LOWER_BOUNDS, *STRING_CONSTRAINTS, "uniqueItems"):
            a, b = old.get(key), new.get(key)
            if same(a, b):
                continue
            shown = f"{key} {summary(a)} → {summary(b)}"
            if b is None:
                loose = True
            elif a is None:
                loose = False
            elif key == "uniqueItems":
                loose = not b
            elif key in STRING_CONSTRAINTS or not _number(a) or not _number(b):
                loose = True  # a changed pattern or format may accept anything: treat as loosened
            else:
                loose = b > a if key in UPPER_BOUNDS else b < a
            if key == "uniqueItems" and a is None:
                loose = not b
            out.append(self.add("constraint-loosened" if loose else "constraint-tightened", f"{path}/{key}", shown))
        return out

    def properties(self, old: dict[str, Any], new: dict[str, Any], path: str, depth: int) -> list[Change]:
        was = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        now = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        req_was = set(old.get("required") or []) if isinstance(old.get("required"), list) else set()
        req_now = set(new.get("required") or []) if isinstance(new.get("required"), list) else set()
        out: list[Change] = []
        for name in sorted(was.keys() | now.keys() | req_was | req_now, key=str):
            where = f"{path}/properties/{escape(str(name))}"
            if name in now and name not in was:
                reach = _new_reach(str(name), now[name], was)
                if name in req_now:
                    out.append(self.add("property-added-required", where, "new required parameter" + reach))
                elif reach:
                    out.append(self.add("property-added-capability", where, "new optional parameter" + reach))
                else:
                    out.append(self.add("property-added-optional", where, "new optional parameter"))
                continue
            if name in was and name not in now:
                out.append(self.add("property-removed", where, "parameter removed"))
                continue
            if name in req_now and name not in req_was:
                target = now.get(name)
                if isinstance(target, dict) and "default" in target:
                    out.append(
                        self.add(
                            "became-required-with-default",
                            where,
                            f"now required, but has default {summary(target['default'])}",
                        )
                    )
                else:
                    out.append(self.add("became-required", where, "parameter became required"))
            elif name in req_was and name not in req_now:
                out.append(self.add("became-optional", where, "parameter became optional"))
            if name in was and name in now:
                out += self.node(was[name], now[name], where, depth + 1)
        return out

    def additional(self, old: dict[str, Any], new: dict[str, Any], path: str, depth: int) -> list[Change]:
        a, b = old.get("additionalProperties"), new.get("additionalProperties")
        if same(a, b):
            return []
        where = path + "/additionalProperties"
        shown = f"additionalProperties {summary(a)} → {summary(b)}"
        if b is False:
            return [self.add("additional-properties-closed", where, shown)]
        if a is False:
            return [self.add("additional-properties-opened", where, shown)]
        if isinstance(a, dict) and isinstance(b, dict):
            return self.node(a, b, where, depth + 1)
        if b is None or b is True:
            return [self.add("additional-properties-opened", where, shown)]
        return [self.add("schema-changed", where, shown)]

    def items(self, old: dict[str, Any], new: dict[str, Any], path: str, depth: int) -> list[Change]:
        out: list[Change] = []
        a, b = old.get("items"), new.get("items")
        if not same(a, b):
            if isinstance(a, list) and isinstance(b, list):
                out += self.indexed(a, b, path + "/items", depth)
            elif a is None or b is None:
                cls = "constraint-loosened" if b is None else "constraint-tightened"
                out.append(self.add(cls, path + "/items", f"items {summary(a)} → {summary(b)}"))
            else:
                out += self.node(a, b, path + "/items", depth + 1)
        a, b = old.get("prefixItems"), new.get("prefixItems")
        if not same(a, b):
            out += self.indexed(
                a if isinstance(a, list) else [], b if isinstance(b, list) else [], path + "/prefixItems", depth
            )
        return out

    def indexed(self, a: list[Any], b: list[Any], path: str, depth: int) -> list[Change]:
        out: list[Change] = []
        for i in range(max(len(a), len(b))):
            if i >= len(a):
                out.append(self.add("schema-changed", f"{path}/{i}", f"added {summary(b[i])}"))
            elif i >= len(b):
                out.append(self.add("schema-changed", f"{path}/{i}", f"removed {summary(a[i])}"))
            else:
                out += self.node(a[i], b[i], f"{path}/{i}", depth + 1)
        return out

    def named(self, a: Any, b: Any, path: str, depth: int) -> list[Change]:
        a = a if isinstance(a, dict) else {}
        b = b if isinstance(b, dict) else {}
        out: list[Change] = []
        for name in sorted(a.keys() | b.keys()):
            where = f"{path}/{escape(name)}"
            if name not in a:
                out.append(self.add("schema-noise", where, "definition added (used only through a $ref)"))
            elif name not in b:
                out.append(self.add("schema-noise", where, "definition removed (used only through a $ref)"))
            else:
                out += self.node(a[name], b[name], where, depth + 1)
        return out

    def branches(self, key: str, a: Any, b: Any, path: str, depth: int) -> list[Change]:
        if same(a, b):
            return []
        a = a if isinstance(a, list) else []
        b = b if isinstance(b, list) else []
        out: list[Change] = []
        for i in range(max(len(a), len(b))):
            where = f"{path}/{key}/{i}"
            if i < len(a) and i < len(b):
                out += self.node(a[i], b[i], where, depth + 1)
                continue
            added = i >= len(a)
            shown = f"{'added' if added else 'removed'} {key} branch {summary(b[i] if added else a[i])}"
            if key == "allOf":
                cls = "constraint-tightened" if added else "constraint-loosened"
            else:
                cls = "type-broadened" if added else "type-narrowed"
            out.append(self.add(cls, where, shown))
        return out


# What a parameter lets a tool reach, read from its name's words, its format and its description: a new one of a
# kind the tool had no parameter for is a new capability (chrome-devtools' `evaluate_script` gaining `sourcePath`
# loads script source from a local file), not "a new optional parameter".
REACH_WORDS = {
    "files": frozenset({"path", "paths", "file", "files", "filepath", "filename", "dir", "directory", "folder",
                        "glob"}),
    "URLs": frozenset({"url", "urls", "uri", "uris", "href", "link", "endpoint", "webhook"}),
    "code": frozenset({"script", "code", "command", "cmd", "expression", "eval", "javascript", "js", "shell"}),
}
REACH_FORMATS = {"uri": "URLs", "uri-reference": "URLs", "iri": "URLs", "url": "URLs"}
REACH_PHRASES = {
    "files": re.compile(r"\b(?:file ?path|path to (?:a|the) (?:local )?file|local file|(?:read|load)s? (?:it )?from "
                        r"(?:a |the )?(?:local )?(?:file|disk))\b", re.IGNORECASE),
    "URLs": re.compile(r"\b(?:fetch(?:ed|es)? from|loads? from|download(?:ed|s)? from) (?:a|the|this|any) url\b",
                       re.IGNORECASE),
    "code": re.compile(r"\b(?:code|script|command) to (?:run|execute|evaluate)\b", re.IGNORECASE),
}
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def reach(name: str, schema: Any) -> frozenset[str]:
    """What a parameter named `name` with `schema` lets its tool reach: files, URLs, code (none: empty)."""
    words = {word.lower() for word in _WORDS.findall(name)}
    kinds = {kind for kind, names in REACH_WORDS.items() if words & names}
    if isinstance(schema, dict):
        if isinstance(schema.get("format"), str) and schema["format"] in REACH_FORMATS:
            kinds.add(REACH_FORMATS[schema["format"]])
        description = schema.get("description")
        if isinstance(description, str):
            kinds |= {kind for kind, phrase in REACH_PHRASES.items() if phrase.search(description)}
    return frozenset(kinds)


def _new_reach(name: str, schema: Any, siblings: dict[str, Any]) -> str:
    """": it lets the tool reach files, which no parameter did before" when the new parameter reaches a kind (files,
    URLs, code) that none of the parameters it joins does; "" otherwise."""
    before: set[str] = set()
    for sibling, sub in siblings.items():
        before |= reach(str(sibling), sub)
    new = sorted(reach(name, schema) - before)
    return f": it lets the tool reach {' and '.join(new)}, which no parameter did before" if new else ""


def _types(value: Any) -> frozenset[str] | None:
    if isinstance(value, str):
        types = {value}
    elif isinstance(value, list):
        types = {str(v) for v in value}
    else:
        return None  # no type: anything
    if "number" in types:
        types.add("integer")
    return frozenset(types)


def _values(value: Any) -> frozenset[bytes] | None:
    return frozenset(canonical_bytes(v) for v in value) if isinstance(value, list) else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _lookup(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = unescape(part)
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node
