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
# MCP ToolAnnotations defaults (spec 2025-06-18): a hint that is absent means this value.
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
# For each hint, the value that lets the tool do more (an escalation when the hint moves to it).
RISKY_VALUE = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}
# For each hint, the value a client may auto-approve a call on. The server claims it for itself, so
# setting it where it was absent or the opposite is a grant nobody reviewed.
AUTO_APPROVE = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


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
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    changes: list[Change] = []
    for hint in sorted(old.keys() | new.keys()):
        was, now = old.get(hint), new.get(hint)
        if same(was, now):
            continue
        path = "/" + hint
        shown = f"{summary(was)} → {summary(now)}"
        if hint in RISKY_VALUE:
            risky = RISKY_VALUE[hint]
            before_risky = (was if isinstance(was, bool) else HINT_DEFAULTS[hint]) == risky
            after_risky = (now if isinstance(now, bool) else HINT_DEFAULTS[hint]) == risky
            if after_risky and not before_risky:
                changes.append(change("annotation-escalated", path, f"{hint} {shown}", "annotations"))
                continue
        if hint in AUTO_APPROVE and now is AUTO_APPROVE[hint]:
            detail = f"{hint} {shown}: a client may now run it without asking"
            changes.append(change("annotation-self-granted", path, detail, "annotations"))
            continue
        changes.append(change("annotation-changed", path, f"{hint} {shown}", "annotations"))
    return changes


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
