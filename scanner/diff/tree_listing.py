"""A tree change as the reviewer reads it: the counts, then each package that differs, the releases that bring a
new install script first (package code that runs at install), capped with "and N more".

One listing for every place a bump is read: `check --base` (a re-pin's note, a changed launch's tree), `update`
(what it accepts), `check --fresh` (what today's resolution would change) and the Markdown summary, which shows
a finding's details.

    3 added, 1 removed, 2 changed (12 → 16 packages)
    new install script: esbuild@0.25.0 (added)
    added esbuild@0.25.0
    zod: 3.23.8 → 3.25.1
    and 4 more
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scanner.install.packages import Change, tree_changes

MAX_LINES = 25  # package lines shown under a summary; the rest are counted


def tree_summary(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> str:
    """E.g. `3 added, 1 removed, 2 changed (12 → 16 packages)`; a record dropped or added says so."""
    if new is None:
        return f"tree record dropped (was {_count(old)})" if old is not None else "no tree recorded"
    if old is None:
        return f"tree recorded: {_count(new)} (none before)"
    return _counts(tree_changes(old, new), old, new)


def tree_lines(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, limit: int = MAX_LINES
) -> list[str]:
    """The summary line, then the packages that differ (new install scripts first), at most `limit` of them."""
    if old is None or new is None:
        return [tree_summary(old, new)]
    changes = tree_changes(old, new)
    return [_counts(changes, old, new), *change_lines(changes, limit)]


def change_lines(changes: Sequence[Change], limit: int = MAX_LINES) -> list[str]:
    """Each change's line, new install scripts first, then added, removed, changed, same version other content;
    past `limit`, one `and N more`."""
    scripts = [f"new install script: {_label(c.new or {})} ({c.kind})" for c in changes if new_install_script(c)]
    order = {"content": 0, "added": 1, "removed": 2, "changed": 3}
    lines = scripts + [_line(c) for c in sorted(changes, key=lambda c: (order[c.kind], c.key))]
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"and {len(lines) - limit} more"]


def new_install_script(change: Change) -> bool:
    """Whether the change brings install-time code the old tree did not run for that package."""
    new, old = change.new or {}, change.old or {}
    return bool(new.get("installScript")) and not (change.kind != "added" and old.get("installScript"))


def _counts(changes: Sequence[Change], old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    kinds = {kind: sum(c.kind == kind for c in changes) for kind in ("added", "removed", "changed", "content")}
    parts = [f"{kinds['added']} added", f"{kinds['removed']} removed", f"{kinds['changed']} changed"]
    if kinds["content"]:
        parts.append(f"{kinds['content']} with other content under the same version")
    scripts = sum(new_install_script(c) for c in changes)
    if scripts:
        parts.append(f"{scripts} new install script{'s' if scripts != 1 else ''}")
    return f"{', '.join(parts)} ({len(old.get('packages') or [])} → {_count(new)})"


def _line(change: Change) -> str:
    old, new = change.old or {}, change.new or {}
    if change.kind == "changed" and old.get("name") != new.get("name"):
        # npm installs an alias under the name it replaces: say what now sits at that path.
        return f"{change.key.removeprefix('node_modules/')}: {_label(old)} → {_label(new)} (another package)"
    return change.line()


def _label(package: Mapping[str, Any]) -> str:
    return f"{package.get('name')}@{package.get('version')}"


def _count(tree: Mapping[str, Any] | None) -> str:
    count = len((tree or {}).get("packages") or [])
    return f"{count} package{'s' if count != 1 else ''}"
