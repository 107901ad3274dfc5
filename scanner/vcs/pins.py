"""What changed between two versions of the lock, server by server: shared by re-pin notes and `log`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scanner.artifacts.record import FILE, describe, same_artifact
from scanner.diff.artifact import artifact_details
from scanner.diff.compare import compare_server
from scanner.diff.tree_listing import tree_lines
from scanner.install.packages import tree_changes
from scanner.lock.lockfile import Lockfile, ServerPin, launch_diff
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import pointer
from scanner.model.rule_base import Severity
from scanner.model.rules import ARTIFACT_CHANGED, TREE_CHANGED, kind_label
from scanner.model.transports import is_local

PINNED, UNPINNED, LAUNCH = "pinned", "unpinned", "launch-changed"


@dataclass
class PinChange:
    server: str
    change: str  # PINNED, UNPINNED, LAUNCH, or the compare rule id (tool-changed, instructions-changed, …)
    message: str  # without the server's name
    pointer: str  # where the change is in the newer lock (reporters fall back to the nearest parent)
    kind: str | None = None
    subject: str | None = None
    details: list[str] = field(default_factory=list)
    severity: Severity | None = None  # the grade the change had while it was unpinned
    definitions: list[tuple[str, str]] = field(default_factory=list)  # PINNED: (kind, name) of each


def lock_changes(old: Lockfile | None, new: Lockfile) -> list[PinChange]:
    """Every change from `old` (None: no lock yet) to `new`, by server name then as compare orders them."""
    before = old.servers if old is not None else {}
    changes: list[PinChange] = []
    for key in sorted(before.keys() | new.servers.keys()):
        if key not in before:
            changes.append(pinned(key, new.servers[key]))
        elif key not in new.servers:
            changes.append(PinChange(key, UNPINNED, "unpinned (removed from the lock)", pointer("servers", key)))
        else:
            changes += server_changes(key, before[key], new.servers[key])
    return changes


def pinned(key: str, pin: ServerPin) -> PinChange:
    definitions = [(kind, name) for kind in KIND_KEYS for name in sorted(pin.pins(kind))]
    return PinChange(
        key,
        PINNED,
        f"pinned: {surface_summary(pin)}",
        pointer("servers", key),
        details=[f"launch: {_launch_line(pin.launch)}"]
        + ([f"artifact: {describe(pin.artifact, full=True, tree=pin.tree)}"] if pin.artifact else [])
        + ([f"tree: {_packages(pin.tree)} ({pin.tree.get('digest')})"] if pin.tree else []),
        definitions=definitions,
    )


def surface_summary(pin: ServerPin) -> str:
    """E.g. `2 tools (add_note, list_notes), 1 prompt (summarise)`."""
    parts = []
    for kind in KIND_KEYS:
        names = sorted(pin.pins(kind))
        if names:
            label = kind_label(kind) + ("s" if len(names) != 1 else "")
            parts.append(f"{len(names)} {label} ({', '.join(names)})")
    if pin.instructions:
        parts.append("instructions")
    return ", ".join(parts) or "no definitions"


def server_changes(key: str, old: ServerPin, new: ServerPin) -> list[PinChange]:
    changes = launch_change(key, old, new) + artifact_change(key, old, new) + tree_change(key, old, new)
    for finding in compare_server(key, old, new):
        location = finding.location
        changes.append(
            PinChange(
                key,
                finding.rule.id,
                finding.message.removeprefix(f"{key}: "),
                getattr(location, "pointer", pointer("servers", key)),
                finding.kind,
                finding.subject,
                list(finding.details),
                finding.effective_severity,
            )
        )
    return changes


def launch_change(key: str, old: ServerPin, new: ServerPin) -> list[PinChange]:
    diff = launch_diff(old.launch, new.launch)
    if diff is None:
        return []
    return [
        PinChange(
            key,
            LAUNCH,
            f"launch changed ({', '.join(diff.names)})",
            pointer("servers", key, "launch"),
            details=diff.details,
            severity="high",
        )
    ]


def artifact_change(key: str, old: ServerPin, new: ServerPin) -> list[PinChange]:
    """What the launch ran, before and after, next to the surface diff (a version bump shows both)."""
    before, after = old.artifact, new.artifact
    if before == after or after is None:
        return []
    where = pointer("servers", key, "launch", "artifact")
    if before is None:
        recorded = f"artifact recorded: {describe(after, tree=new.tree)}"
        return [PinChange(key, ARTIFACT_CHANGED.id, recorded, where, severity="info")]
    if same_artifact(before, after):
        return []
    severity: Severity = "info" if after.get("type") == FILE else "high"
    message = f"artifact changed: {describe(before, tree=old.tree)} → {describe(after, tree=new.tree)}"
    details = artifact_details(before, after)
    return [PinChange(key, ARTIFACT_CHANGED.id, message, where, details=details, severity=severity)]


def tree_change(key: str, old: ServerPin, new: ServerPin) -> list[PinChange]:
    """The dependency tree, before and after: every package added, removed or changed by the re-pin."""
    before, after = old.tree, new.tree
    if before == after or after is None:
        return []
    where = pointer("servers", key, "launch", "tree")
    if before is None:
        return [PinChange(key, TREE_CHANGED.id, f"tree recorded: {_packages(after)}", where, severity="info")]
    changes = tree_changes(before, after)
    if not changes:
        return []
    severity: Severity = "critical" if any(change.kind == "content" for change in changes) else "high"
    summary, *details = tree_lines(before, after)  # counts, then new install scripts first, capped
    message = f"dependency tree changed: {summary}"
    return [PinChange(key, TREE_CHANGED.id, message, where, details=details, severity=severity)]


def _packages(tree: dict[str, Any]) -> str:
    count = len(tree.get("packages") or [])
    return f"{count} package{'s' if count != 1 else ''}"


def _launch_line(launch: dict[str, Any]) -> str:
    if is_local(launch.get("transport")):
        return " ".join([str(launch.get("command") or ""), *(str(a) for a in launch.get("args") or [])])
    return f"{launch.get('transport')} {launch.get('url')}"
