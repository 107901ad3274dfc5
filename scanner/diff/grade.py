"""Grade the drift of one pinned definition: every change gets a class and a severity.

A gate that shows every change the same gets muted, so a reworded sentence, a new required parameter
and an SDK adding `$schema` must not look alike. `grade(before, after)` walks a whole definition
(text fields, `inputSchema`/`outputSchema`, prompt `arguments`, `annotations`, metadata) and returns
one `Change` per difference, most severe first. The finding's severity is the highest of them.

The severity table below is data: `SEVERITY` is parsed from it, so this docstring is the one place
that says how severe each class of change is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scanner.lock.canonical import canonical_bytes
from scanner.model.pointer import escape
from scanner.rules import Severity, severity_rank

TABLE = """\
class                         severity  what changed
property-added-required       high      a new parameter the caller must supply
became-required               high      an existing parameter must now be supplied
annotation-escalated          high      readOnlyHint true→false/removed, destructiveHint or openWorldHint became true
text-sentence-added           medium    a text field gained a sentence (quoted in the finding)
text-invisible-changed        medium    invisible/format characters (Cf, tag block, bidi controls) added or removed
text-lookalike                medium    a word now uses look-alike (non-ASCII) letters
property-removed              medium    a parameter was removed
type-broadened                medium    more types or anyOf/oneOf branches, e.g. "boolean" → ["boolean","string"]
type-narrowed                 medium    fewer types (or anyOf/oneOf branches) accepted
type-changed                  medium    the accepted types changed otherwise
enum-widened                  medium    more enum values accepted (or the enum was dropped)
enum-changed                  medium    enum values both added and removed
const-changed                 medium    `const` changed, added or removed
default-changed               medium    `default` changed, added or removed
constraint-loosened           medium    maxLength/maxItems/maximum up, minimum down, pattern/format removed or changed
additional-properties-opened  medium    additionalProperties false → allowed
schema-changed                medium    any other schema keyword changed (fallback)
field-changed                 medium    any other field of the definition changed (fallback)
renamed                       medium    same schema and description under a new name
text-reworded                 low       a text field reworded without a new sentence
property-added-optional       low       a new optional parameter
became-optional               low       a parameter no longer has to be supplied
became-required-with-default  low       a parameter with a default is now listed as required (schema generators do this)
enum-narrowed                 low       fewer enum values accepted (or an enum was added)
constraint-tightened          low       a length/range/pattern/format constraint added or made stricter
additional-properties-closed  low       additionalProperties → false
output-schema-added           low       the tool now declares an outputSchema
output-schema-removed         low       the tool no longer declares an outputSchema
annotation-deescalated        low       the reverse of an escalation
annotation-changed            low       annotations title or another hint changed
metadata-changed              low       title, icons, _meta or execution changed
text-cosmetic                 info      whitespace, punctuation, letter case or a one-word typo fix
schema-noise                  info      `$schema` added/removed/changed, or a `title` inside a schema changed
"""


def _parse(table: str) -> dict[str, Severity]:
    rows = [line.split(None, 2) for line in table.splitlines()[1:] if line.strip()]
    return {row[0]: row[1] for row in rows}  # type: ignore[misc]


SEVERITY: dict[str, Severity] = _parse(TABLE)
__doc__ = (__doc__ or "") + "\n" + TABLE


@dataclass(frozen=True)
class Change:
    cls: str
    path: str  # JSON pointer into the field (the schema, for schema changes); "" for the field itself
    detail: str
    severity: Severity
    field: str = ""  # the top-level field of the definition: description, inputSchema, annotations…
    quote: str | None = None  # an added sentence, for the finding's first line
    diff: str | None = None  # word-level before/after with [-old-]{+new+} markers

    def line(self) -> str:
        where = " ".join(part for part in (self.field, self.path) if part)
        return f"{where}: {self.detail} ({self.severity})"


def change(cls: str, path: str, detail: str, field: str = "", **extra: Any) -> Change:
    """A Change whose severity comes from the table."""
    return Change(cls, path, detail, SEVERITY[cls], field, **extra)


def most_severe(changes: list[Change]) -> Severity | None:
    return min((c.severity for c in changes), key=severity_rank, default=None)


def ordered(changes: list[Change]) -> list[Change]:
    return sorted(changes, key=lambda c: severity_rank(c.severity))  # stable: walk order within a severity


TEXT_FIELDS = ("description", "title")
METADATA_FIELDS = ("icons", "_meta", "execution")
# MCP ToolAnnotations defaults (spec 2025-06-18): a hint that is absent means this value.
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
# For each hint, the value that lets the tool do more (an escalation when the hint moves to it).
RISKY_VALUE = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}


def grade(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Every graded change between two versions of one definition, most severe first."""
    from scanner.diff.schema import diff_schema, output_schema_changes
    from scanner.diff.text import text_changes

    changes: list[Change] = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name), after.get(name)
        if _same(old, new):
            continue
        if name == "description":
            changes += text_changes(name, "", old, new)
        elif name == "title":
            changes += [
                c if c.cls == "text-cosmetic" else change("metadata-changed", c.path, c.detail, name, diff=c.diff)
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
            changes.append(change("metadata-changed", "", f"{_summary(old)} → {_summary(new)}", name))
        else:
            changes.append(change("field-changed", "", f"{_summary(old)} → {_summary(new)}", name))
    return ordered(changes)


def annotation_changes(old: Any, new: Any) -> list[Change]:
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    changes: list[Change] = []
    for hint in sorted(old.keys() | new.keys()):
        was, now = old.get(hint), new.get(hint)
        if _same(was, now):
            continue
        path = "/" + hint
        shown = f"{_summary(was)} → {_summary(now)}"
        if hint in RISKY_VALUE:
            risky = RISKY_VALUE[hint]
            before_risky = (was if isinstance(was, bool) else HINT_DEFAULTS[hint]) == risky
            after_risky = (now if isinstance(now, bool) else HINT_DEFAULTS[hint]) == risky
            if after_risky and not before_risky:
                changes.append(change("annotation-escalated", path, f"{hint} {shown}", "annotations"))
                continue
            if before_risky and not after_risky:
                changes.append(change("annotation-deescalated", path, f"{hint} {shown}", "annotations"))
                continue
        changes.append(change("annotation-changed", path, f"{hint} {shown}", "annotations"))
    return changes


def argument_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[Change]:
    """Prompt arguments: [{name, description, required}], matched by name."""
    from scanner.diff.text import text_changes

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
            if not _same(a.get("description"), b.get("description")):
                changes += text_changes("arguments", path + "/description", a.get("description"), b.get("description"))
            for key in sorted((a.keys() | b.keys()) - {"name", "required", "description"}):
                if not _same(a.get(key), b.get(key)):
                    changes.append(
                        change(
                            "field-changed",
                            f"{path}/{key}",
                            f"{_summary(a.get(key))} → {_summary(b.get(key))}",
                            "arguments",
                        )
                    )
    return changes


def _list_of_dicts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return canonical_bytes(a) == canonical_bytes(b)


SUMMARY_LIMIT = 120


def _summary(value: Any) -> str:
    if value is None:
        return "(absent)"
    text = canonical_bytes(value).decode("utf-8")
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= SUMMARY_LIMIT else text[:SUMMARY_LIMIT] + "…"
