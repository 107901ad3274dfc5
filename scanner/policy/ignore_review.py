"""The change's `ignore:` entries as far as the base has them: an entry the base has (its `until:` no later, its
digests among the base's), one that narrows the base's, or, for one that widens it, the base's narrower ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date

from scanner.policy.differences import Difference, as_json
from scanner.policy.suppression import IgnoreEntry


def judge_ignores(
    base: Sequence[IgnoreEntry], change: Sequence[IgnoreEntry], out: list[Difference]
) -> tuple[IgnoreEntry, ...]:
    """The change's entries as far as the base has them: one the base has (its `until:` no later), one that
    narrows one of the base's, or, for an entry that widens the base's, the base's narrower ones."""
    by_target: dict[tuple[str, str], list[IgnoreEntry]] = {}  # entries can only cover one another within one
    for entry in base:
        by_target.setdefault((entry.rule, entry.server), []).append(entry)
    covered: set[int] = set()  # base entries (by position in `base`) that some change entry still covers
    position = {id(entry): index for index, entry in enumerate(base)}
    kept: list[IgnoreEntry] = []
    for index, entry in enumerate(change):
        key, path = f"ignore[{index}]", ("ignore", index)
        near = by_target.get((entry.rule, entry.server), [])
        covered.update(position[id(b)] for b in near if _covers(entry, b))
        same = next((b for b in near if _same(b, entry)), None)
        covering = same or next((b for b in near if _covers(b, entry)), None)
        if covering is None:
            out.append(Difference(key, path, entry.server, True, f"new entry {_entry(entry)}"))
            kept += [dataclasses.replace(b, location=entry.location) for b in near if _covers(entry, b)]
            continue
        until = _earliest(covering.until, entry.until)
        if until != entry.until:
            says = f"{_entry(entry)}, later than the base's until {covering.until}"
            out.append(Difference(key, path, entry.server, True, says))
        elif same is None or same.reason != entry.reason or same.until != entry.until:
            out.append(Difference(key, path, entry.server, False, f"{_entry(entry)} (the base: {_entry(covering)})"))
        kept.append(dataclasses.replace(entry, until=until))
    for index, entry in enumerate(base):
        if index not in covered:
            out.append(Difference("ignore", ("ignore",), entry.server, False, f"entry removed: {_entry(entry)}"))
    return tuple(kept)


def _same(a: IgnoreEntry, b: IgnoreEntry) -> bool:
    return (a.rule, a.server, a.tool, set(a.digests)) == (b.rule, b.server, b.tool, set(b.digests))


def _covers(wide: IgnoreEntry, narrow: IgnoreEntry) -> bool:
    """Whether `wide` accepts every finding `narrow` does (its `until:` aside): the same rule and server, the
    same definition or all of them, and every content `narrow` accepted (a digest the base never recorded is
    text nobody reviewed there)."""
    scope = (wide.rule, wide.server) == (narrow.rule, narrow.server) and wide.tool in (None, narrow.tool)
    return scope and set(narrow.digests) <= set(wide.digests)


def _earliest(a: date | None, b: date | None) -> date | None:
    return b if a is None else a if b is None else min(a, b)


def _entry(entry: IgnoreEntry) -> str:
    fields = {"rule": entry.rule, "server": entry.server}
    if entry.tool is not None:
        fields["tool"] = entry.tool
    if entry.digests:
        fields["digest"] = entry.digests[0] if len(entry.digests) == 1 else list(entry.digests)
    fields["reason"] = entry.reason
    if entry.until is not None:
        fields["until"] = entry.until.isoformat()
    return as_json(fields)
