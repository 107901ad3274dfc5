"""One graded change of a definition, and the table that says how severe each class of change is.

A gate that shows every change the same gets muted, so a reworded sentence, a new required parameter
and an SDK adding `$schema` must not look alike. The table below is data: `CHANGE_CLASSES` and
`SEVERITY` are parsed from it, so it is the one place that says how severe each class of change is.
`text`, `schema` and `grade` build changes with `change`; `compare` turns them into findings.

The `bump` column is the version bump a release that makes the change needs (`mcp-lock semver`), seen
from a caller of the tool; `output` is the bump when the change is inside an `outputSchema`, where the
server produces what the caller reads, so widening breaks callers and narrowing does not ("-": as `bump`).
Severity grades risk to the user; bump grades compatibility: `enum-narrowed` is low risk but breaks a
caller that sent a value no longer accepted. A change that cannot be classified needs a major bump.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from scanner.lock.canonical import canonical_bytes
from scanner.model.rule_base import Severity, severity_rank

TABLE = """\
class                         severity  bump   output  what changed
property-added-required       high      major  minor   a new parameter the caller must supply
became-required               high      major  minor   an existing parameter must now be supplied
annotation-loosened           high      minor  -       an approval hint loosened, absent meaning its default: readOnlyHint became true, or destructiveHint became false (while not read-only): a client may now ask less (the server vouches for itself)
text-sentence-added           medium    minor  -       a text field gained a sentence (quoted in the finding)
property-added-capability     medium    minor  -       a new optional parameter lets the tool reach files, URLs or code that no parameter reached before (its name, format or description says a path, URL or script): a capability change
text-invisible-changed        medium    minor  -       invisible/format characters (Cf, tag block, bidi controls) added or removed
text-lookalike                medium    minor  -       a word now uses look-alike (non-ASCII) letters
text-meaning-flipped-sensitive medium   minor  -       a meaning flip (below) in a sentence about data, secrets, recipients or permissions
property-removed              medium    major  -       a parameter was removed
type-broadened                medium    minor  major   more types or anyOf/oneOf branches, e.g. "boolean" → ["boolean","string"]
type-narrowed                 medium    major  minor   fewer types (or anyOf/oneOf branches) accepted
type-changed                  medium    major  -       the accepted types changed otherwise
enum-widened                  medium    minor  major   more enum values accepted (or the enum was dropped)
enum-changed                  medium    major  -       enum values both added and removed
const-changed                 medium    major  -       `const` changed, added or removed
default-changed               medium    minor  -       `default` changed, added or removed
constraint-loosened           medium    minor  major   maxLength/maxItems/maximum up, minimum down, pattern/format removed or changed
additional-properties-opened  medium    minor  -       additionalProperties false → allowed
schema-changed                medium    major  -       any other schema keyword changed (fallback)
field-changed                 medium    major  -       any other field of the definition changed (fallback)
renamed                       medium    major  -       same schema and description under a new name
text-meaning-flipped          low       minor  -       a negation added or removed (not, never, don't), a negating prefix (un-, in-, dis-, non-) or an antonym swapped in (include/exclude, allow/deny, read/write; scanner/diff/meaning.yaml)
text-reworded                 low       minor  -       a text field reworded without a new sentence
property-added-optional       low       minor  -       a new optional parameter
became-optional               low       minor  major   a parameter no longer has to be supplied
became-required-with-default  low       major  minor   a parameter with a default is now listed as required (schema generators do this)
enum-narrowed                 low       major  minor   fewer enum values accepted (or an enum was added)
constraint-tightened          low       major  minor   a length/range/pattern/format constraint added or made stricter
additional-properties-closed  low       major  minor   additionalProperties → false
output-schema-added           low       minor  -       the tool now declares an outputSchema
output-schema-removed         low       major  -       the tool no longer declares an outputSchema
annotation-changed            low       minor  -       openWorldHint or idempotentHint changed what it means (explained in the finding), or the annotations title or another key changed
metadata-changed              low       minor  -       title, icons, _meta or execution changed
text-cosmetic                 info      patch  -       whitespace, punctuation, letter case or a one-word typo fix
annotation-tightened          info      major  -       an approval hint tightened: readOnlyHint became false, or destructiveHint became true; clients ask more (a client that auto-approved must decide again)
annotation-restated           info      patch  -       a hint set to the value its absence already meant (absent → the spec's default) or meaningless while readOnlyHint is true: no change
schema-noise                  info      patch  -       `$schema` added/removed/changed, or a `title` inside a schema changed
definition-added              high      minor  -       a tool, prompt, resource or template was added (whole-definition event)
definition-removed            medium    major  -       a tool, prompt, resource or template was removed (whole-definition event)
"""  # noqa: E501  (one row a line: the table is read as data)


Bump = Literal["major", "minor", "patch", "none"]
BUMPS: tuple[Bump, ...] = ("major", "minor", "patch", "none")  # largest first, as SEVERITIES


@dataclass(frozen=True)
class ChangeClass:
    name: str  # e.g. "property-added-required"
    severity: Severity
    bump: Bump  # the version bump the change needs
    output_bump: Bump  # the same inside an outputSchema
    what: str  # what changed, in prose


def _parse(table: str) -> tuple[ChangeClass, ...]:
    rows = [line.split(None, 4) for line in table.splitlines()[1:] if line.strip()]
    return tuple(
        ChangeClass(row[0], row[1], row[2], row[2] if row[3] == "-" else row[3], row[4])  # type: ignore[arg-type]
        for row in rows
    )


CHANGE_CLASSES: tuple[ChangeClass, ...] = _parse(TABLE)
CHANGE_CLASS: dict[str, ChangeClass] = {cls.name: cls for cls in CHANGE_CLASSES}
SEVERITY: dict[str, Severity] = {cls.name: cls.severity for cls in CHANGE_CLASSES}
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
    excerpt: str | None = None  # the first changed words with context, for the finding's first line

    def line(self) -> str:
        where = " ".join(part for part in (self.field, self.path) if part)
        return f"{where}: {self.detail} ({self.severity})"


def change(cls: str, path: str, detail: str, field: str = "", **extra: Any) -> Change:
    """A Change whose severity comes from the table."""
    return Change(cls, path, detail, SEVERITY[cls], field, **extra)


def bump_rank(bump: Bump) -> int:
    """0 for major, growing as the bump gets smaller; for comparing bumps."""
    return BUMPS.index(bump)


def required_bump(change: Change) -> Bump:
    """The version bump `change` needs: the table's `output` column inside an outputSchema."""
    cls = CHANGE_CLASS[change.cls]
    return cls.output_bump if change.field == "outputSchema" else cls.bump


def most_severe(changes: list[Change]) -> Severity | None:
    return min((c.severity for c in changes), key=severity_rank, default=None)


def ordered(changes: list[Change]) -> list[Change]:
    return sorted(changes, key=lambda c: severity_rank(c.severity))  # stable: walk order within a severity


def same(a: Any, b: Any) -> bool:
    """Canonically equal; absent (None) equals only absent."""
    if a is None or b is None:
        return a is None and b is None
    return canonical_bytes(a) == canonical_bytes(b)


SUMMARY_LIMIT = 120


def summary(value: Any) -> str:
    """A value as one short line of canonical JSON, for a change's detail."""
    if value is None:
        return "(absent)"
    text = canonical_bytes(value).decode("utf-8")
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= SUMMARY_LIMIT else text[:SUMMARY_LIMIT] + "…"
