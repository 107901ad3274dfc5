"""`unpinned-launch` findings: servers launched without an exact version or image digest.

An unpinned launch changes under the repository without a commit, so a pull request's live check can fail on
upstream drift the pull request did not cause. The finding quotes as the fix the version the package manager
resolved when the server was pinned (the lock's `launch.artifact`), or `VERSION` when nothing recorded it:
never `serverInfo.version`, which is often not the package's version. The policy's `unpinned-launch` makes
it fail the run or silences it.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from scanner.artifacts.record import normalised
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.sources.declarations import LaunchTemplate, Server
from scanner.sources.describe import mask_args
from scanner.sources.unpinned import Unpinned, unpinned


def unpinned_findings(mode: str, servers: Iterable[Server], pins: Mapping[str, ServerPin]) -> list[Finding]:
    """One finding per server whose launch fetches a package without an exact version (none when `mode` is off)."""
    if mode == "off":
        return []
    reported = rule("unpinned-launch")
    if mode == "error":
        reported = dataclasses.replace(reported, blocking=True)
    findings: list[Finding] = []
    for server in servers:
        template = server.template
        found = unpinned(template) if template is not None else None
        if template is None or found is None:
            continue
        artifact = _artifact(pins.get(server.key), found)
        message = f"{server.key}: `{found.package}` is launched without an exact version" + (
            "; its image has no digest" if found.ecosystem == "image" else ""
        )
        details = [_fix(template, found, artifact)]
        findings.append(Finding(reported, server.key, message, server.primary.location, details=details))
    return findings


def _artifact(pin: ServerPin | None, found: Unpinned) -> dict[str, Any] | None:
    """The lock's record of what this launch ran, when it is of the package the launch names."""
    artifact = pin.artifact if pin is not None else None
    if artifact is None or artifact.get("type") != found.ecosystem:
        return None
    same = artifact.get("name") == found.name or (
        found.ecosystem == "pypi" and artifact.get("name") == normalised(found.name)
    )
    return artifact if same else None


def _fix(template: LaunchTemplate, found: Unpinned, artifact: dict[str, Any] | None) -> str:
    if found.ecosystem == "image":
        digest = artifact.get("digest") if artifact is not None else None
        if isinstance(digest, str):
            return f"pin it by digest, to the image that ran when it was pinned: `{_bare_image(found.name)}@{digest}`"
        return f"pin it by digest: `{found.package}@sha256:…` (`docker buildx imagetools inspect {found.package}`)"
    version = artifact.get("version") if artifact is not None else None
    if not isinstance(version, str) or not version or any(c.isspace() for c in version):
        return f"pin it to an exact version: `{found.pinned_spelling('VERSION')}`"
    pinned = found.pinned_spelling(version)
    args = [pinned if arg == found.package else arg for arg in mask_args(template.args)]
    command = shlex.join([template.command or "", *args])
    return f"pin it to the version {found.runner} resolved when it was pinned ({version}): `{command}`"


def _bare_image(reference: str) -> str:
    """An image reference without its tag (`ghcr.io/o/x:1` -> `ghcr.io/o/x`)."""
    slash, colon = reference.rfind("/"), reference.rfind(":")
    return reference[:colon] if colon > slash else reference
