"""Grade the drift of one pinned definition: every change gets a class and a severity.

`grade(before, after)` walks a whole definition (text fields, `inputSchema`/`outputSchema`, prompt
`arguments`, `annotations`, metadata) and returns one `Change` per difference, most severe first. The
finding's severity is the highest of them; `scanner.diff.change` holds the table of classes.
"""

from __future__ import annotations

from typing import Any

from scanner.diff.change import Change, change, ordered, same, summary
from scanner.diff.schema_diff import diff_schema, output_schema_changes
from scanner.diff.text_diff import text_changes
from scanner.model.pointer import escape

TEXT_FIELDS = ("description", "title")
METADATA_FIELDS = ("icons", "_meta", "execution")
# Title changes graded as text; any other is metadata. A flipped title says the opposite of what was reviewed.
TITLE_KEPT = ("text-cosmetic", "text-meaning-flipped", "text-meaning-flipped-sensitive")
# MCP ToolAnnotations (spec 2025-06-18, schema.ts): what an absent hint means. destructiveHint and idempotentHint
# are meaningful only while readOnlyHint is false.
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
# The approval hints: the value a client may ask less on. Moving to it is a loosening the server grants itself.
APPROVAL_LOOSE = {"readOnlyHint": True, "destructiveHint": False}
# What each value of the other hints says, for the reviewer (neither decides whether a client asks).
HINT_MEANING = {
    ("openWorldHint", True): "the tool may now reach an open world of external entities (the web, other services)",
    ("openWorldHint", False): "the tool now claims a closed domain (no external entities)",
    ("idempotentHint", True): "repeated calls with the same arguments now claim no further effect",
    ("idempotentHint", False): "repeated calls with the same arguments may now have further effects",
}
LOOSENED = {
    "readOnlyHint": "the server now says the tool changes nothing, so a client may run it without asking",
    "destructiveHint": "the server now says the tool never deletes or overwrites, so a client may ask less",
}
TIGHTENED = {
    "readOnlyHint": "the tool no longer claims to be read-only: clients ask before running it (a tightening)",
    "destructiveHint": "the tool now says it may delete or overwrite: clients are more careful (a tightening)",
}
NO_LONGER_READ_ONLY = "counts now that the tool is no longer read-only, which is itself a tightening (info)"
RESTATED = "set to the value its absence already meant, or meaningless while readOnlyHint is true: no change"


def grade(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Every graded change between two versions of one definition, most severe first."""
    changes: list[Change] = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name), after.get(name)
        if same(old, new):
            continue
        if name == "description":
            changes += text_changes(name, "", old, new)
        elif name == "title":
            changes += [
                c if c.cls in TITLE_KEPT else change("metadata-changed", c.path, c.detail, name, diff=c.diff)
                for c in text_changes(name, "", old, new)
            ]
        elif name == "inputSchema":
            changes += diff_schema(old, new, field=name)
        elif name == "outputSchema":
            changes += output_schema_changes(old, new)
        elif name == "annotations":
            changes += annotation_changes(old, new)
        elif name == "arguments" and _list_of_dicts(old) and _list_of_dicts(new):
            changes += argument_changes(old, new)
        elif name in METADATA_FIELDS:
            changes.append(change("metadata-changed", "", f"{summary(old)} → {summary(new)}", name))
        else:
            changes.append(change("field-changed", "", f"{summary(old)} → {summary(new)}", name))
    return ordered(changes)


def annotation_changes(old: Any, new: Any) -> list[Change]:
    """Each hint compared by what it means, defaults included: only a loosened approval hint is severe."""
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    changes: list[Change] = []
    for hint in sorted(old.keys() | new.keys()):
        was, now = old.get(hint), new.get(hint)
        if same(was, now):
            continue
        path = "/" + hint
        shown = f"{hint} {summary(was)} → {summary(now)}"
        if hint not in HINT_DEFAULTS:
            changes.append(change("annotation-changed", path, shown, "annotations"))
            continue
        if not _hint_value(was) or not _hint_value(now):
            # A lax client may read a string "true" as true: not a hint the spec defines, so graded as unknown.
            changes.append(change("field-changed", path, f"{shown} (not a boolean)", "annotations"))
            continue
        before, after = _effective(old, hint), _effective(new, hint)
        # destructiveHint and idempotentHint mean something only while the tool is not read-only; a change made
        # while it is read-only, or together with its becoming so, is graded by readOnlyHint's own change.
        dependent = hint in ("destructiveHint", "idempotentHint")
        if before == after or (dependent and _read_only(new)):
            changes.append(change("annotation-restated", path, f"{shown}: {RESTATED}", "annotations"))
        elif hint in APPROVAL_LOOSE and after == APPROVAL_LOOSE[hint] and not (dependent and _read_only(old)):
            changes.append(change("annotation-loosened", path, f"{shown}: {LOOSENED[hint]}", "annotations"))
        elif hint in APPROVAL_LOOSE:  # the other way, or no longer read-only: any destructiveHint is tighter
            why = NO_LONGER_READ_ONLY if dependent and _read_only(old) else TIGHTENED[hint]
            changes.append(change("annotation-tightened", path, f"{shown}: {why}", "annotations"))
        else:
            changes.append(change("annotation-changed", path, f"{shown}: {HINT_MEANING[hint, after]}", "annotations"))
    return changes


def _hint_value(value: Any) -> bool:
    """Whether `value` is what a hint may be: absent or a boolean."""
    return value is None or isinstance(value, bool)


def _effective(hints: dict[str, Any], hint: str) -> bool:
    value = hints.get(hint)
    return value if isinstance(value, bool) else HINT_DEFAULTS[hint]


def _read_only(hints: dict[str, Any]) -> bool:
    return _effective(hints, "readOnlyHint")


def argument_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[Change]:
    """Prompt arguments: [{name, description, required}], matched by name."""
    was = {str(a.get("name")): a for a in old}
    now = {str(a.get("name")): a for a in new}
    changes: list[Change] = []
    for name in sorted(was.keys() | now.keys()):
        path = "/" + escape(name)
        a, b = was.get(name), now.get(name)
        if a is None:
            cls = "property-added-required" if b and b.get("required") else "property-added-optional"
            changes.append(
                change(cls, path, "new " + ("required" if "required" in cls else "optional") + " argument", "arguments")
            )
        elif b is None:
            changes.append(change("property-removed", path, "argument removed", "arguments"))
        else:
            if bool(a.get("required")) != bool(b.get("required")):
                cls = "became-required" if b.get("required") else "became-optional"
                changes.append(change(cls, path, cls.replace("-", " "), "arguments"))
            if not same(a.get("description"), b.get("description")):
                changes += text_changes("arguments", path + "/description", a.get("description"), b.get("description"))
            for key in sorted((a.keys() | b.keys()) - {"name", "required", "description"}):
                if not same(a.get(key), b.get(key)):
                    changes.append(
                        change(
                            "field-changed",
                            f"{path}/{key}",
                            f"{summary(a.get(key))} → {summary(b.get(key))}",
                            "arguments",
                        )
                    )
    return changes


def _list_of_dicts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)
