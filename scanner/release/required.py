"""The version bump each surface change needs, from the change classes' `bump` column.

Changes are found by `compare_server` (as `check` finds them) and graded again here change by change,
because a finding carries its changes only as text. Whole-definition events use the table's own rows:
`definition-added`, `definition-removed` and `renamed`. Server instructions are text: their classes
(`text-reworded`, `text-sentence-added`, `text-cosmetic`…) say the bump. A different serverInfo,
protocol version or capability set needs no bump of its own: the version is what is being checked,
and what a capability adds or removes shows up as definitions.
"""

from __future__ import annotations

from dataclasses import dataclass

from scanner.diff.change import CHANGE_CLASS, Bump, Change, bump_rank, required_bump
from scanner.diff.compare import compare_server
from scanner.diff.grade import grade
from scanner.diff.text_diff import text_changes
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import INSTRUCTIONS_CHANGED, definition_rule, kind_label


@dataclass(frozen=True)
class Needed:
    """One surface change and the bump it needs."""

    what: str  # e.g. "tool `add_note` inputSchema /properties/x: new required parameter"
    cls: str  # its change class
    bump: Bump

    def line(self) -> str:
        return f"{self.bump}: {self.what} [{self.cls}]"


def needed_changes(key: str, pinned: ServerPin, live: ServerPin) -> list[Needed]:
    """Every change from `pinned` to `live` with the bump it needs, largest bump first."""
    needed: list[Needed] = []
    for finding in compare_server(key, pinned, live):
        needed += _needed(finding, pinned, live)
    return sorted(needed, key=lambda n: bump_rank(n.bump))


def largest(needed: list[Needed]) -> Bump:
    return min((n.bump for n in needed), key=bump_rank, default="none")


def _needed(finding: Finding, pinned: ServerPin, live: ServerPin) -> list[Needed]:
    if finding.rule is INSTRUCTIONS_CHANGED:
        changes = text_changes("instructions", "", pinned.instructions, live.instructions)
        return [_graded("the server's", c) for c in changes]
    kind, name = finding.kind, finding.subject
    if kind is None or name is None:
        return []  # serverInfo, protocol version, capabilities: see the module docstring
    label = f"{kind_label(kind)} `{name}`"
    if finding.rule is definition_rule(kind, "added"):
        return [_event(f"{label} was added", "definition-added")]
    if finding.rule is definition_rule(kind, "removed"):
        return [_event(f"{label} was removed", "definition-removed")]
    before = pinned.pins(kind).get(name)
    if before is None:  # a changed finding whose subject was not pinned: a rename to `name`
        return [_event(finding.message.removeprefix(f"{finding.server}: "), "renamed")]
    after = live.pins(kind)[name]
    return [_graded(label, c) for c in grade(before.definition, after.definition)]


def _event(what: str, cls: str) -> Needed:
    return Needed(what, cls, CHANGE_CLASS[cls].bump)


def _graded(label: str, change: Change) -> Needed:
    where = " ".join(part for part in (label, change.field, change.path) if part)
    return Needed(f"{where}: {change.detail}", change.cls, required_bump(change))
