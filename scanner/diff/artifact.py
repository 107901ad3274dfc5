"""What a launch ran, pinned against live: `artifact-changed` when the same launch ran something else."""

from __future__ import annotations

from typing import Any

from scanner.artifacts.record import FILE, content, describe, same_artifact
from scanner.lock.lockfile import ServerPin, launch_diff
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import ARTIFACT_BUMPED, ARTIFACT_CHANGED, ARTIFACT_UNRECORDED, LOCAL_CODE_CHANGED
from scanner.model.transports import is_local
from scanner.sources.declarations import LaunchTemplate
from scanner.sources.unpinned import unpinned


def artifact_findings(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    """The artifact change behind an unchanged launch; behind a changed one (`launch-changed` blocks), a note."""
    old, new = pinned.artifact, live.artifact
    where = LockLocation(pointer("servers", key, "launch", "artifact"))
    if old == new:
        return []
    if launch_diff(pinned.launch, live.launch) is not None:
        if new is None or (old is not None and same_artifact(old, new)):
            return []
        before = describe(old) if old is not None else "not recorded"
        message = f"{key}: the changed launch runs {describe(new)} (pinned: {before})"
        return [Finding(ARTIFACT_BUMPED, key, message, where, details=artifact_details(old or {}, new))]
    if new is None:
        message = f"{key}: what the launch ran could not be read this run (pinned: {describe(old or {})})"
        return [Finding(ARTIFACT_UNRECORDED, key, message, where)]
    if old is None:
        message = f"{key}: the lock records no artifact; it ran {describe(new)} (`mcp-lock update {key}` records it)"
        return [Finding(ARTIFACT_UNRECORDED, key, message, where)]
    if same_artifact(old, new):
        return []
    details = artifact_details(old, new)
    if new.get("type") == FILE and old.get("type") == FILE:
        message = f"{key}: the local script {new.get('path')} changed since it was pinned"
        return [Finding(LOCAL_CODE_CHANGED, key, message, where, details=details)]
    message = f"{key}: a different artifact runs behind the same launch: {describe(old)} → {describe(new)}"
    loose = _unpinned(live.launch)
    if loose is not None:
        details.append(f"`{loose}` is launched without an exact version or digest: each boot takes the newest")
    return [Finding(ARTIFACT_CHANGED, key, message, where, details=details)]


def _unpinned(launch: dict[str, Any]) -> str | None:
    """The package an (unchanged) launch fetches without an exact version, as written; None when pinned."""
    if not is_local(launch.get("transport")) or not isinstance(launch.get("command"), str):
        return None
    template = LaunchTemplate(launch["transport"], launch["command"], tuple(str(a) for a in launch.get("args") or []))
    found = unpinned(template)
    return found.package if found is not None else None


def artifact_details(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per field that differs, full values: `version: 1.0.0 → 1.0.1`."""
    lines = [
        f"{field}: {old.get(field, '(none)')} → {new.get(field, '(none)')}"
        for field in sorted(old.keys() | new.keys())
        if old.get(field) != new.get(field)
    ]
    if content(old) == content(new) and content(new) is not None:
        lines.append(f"content digest unchanged: {content(new)}")
    return lines
