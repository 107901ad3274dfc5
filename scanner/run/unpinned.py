"""`unpinned-launch` findings: servers launched without an exact version or image digest.

An unpinned launch changes under the repository without a commit, so a pull request's live check can fail on
upstream drift the pull request did not cause. The finding quotes the version that was pinned (the server's
own `serverInfo.version` in the lock) as the fix; the policy's `unpinned-launch` makes it fail the run or
silences it.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterable, Mapping

from scanner.lock.model import ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.sources.describe import mask_args
from scanner.sources.model import LaunchTemplate, Server
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
        pin = pins.get(server.key)
        version = pin.server_info.get("version") if pin is not None else None
        message = f"{server.key}: `{found.package}` is launched without an exact version" + (
            "; its image has no digest" if found.ecosystem == "image" else ""
        )
        details = [_fix(template, found, version if isinstance(version, str) else None)]
        findings.append(Finding(reported, server.key, message, server.primary.location, details=details))
    return findings


def _fix(template: LaunchTemplate, found: Unpinned, version: str | None) -> str:
    if found.ecosystem == "image":
        return f"pin it by digest: `{found.package}@sha256:…` (`docker buildx imagetools inspect {found.package}`)"
    if not version or any(c.isspace() for c in version):
        return f"pin it to an exact version: `{found.pinned_spelling('VERSION')}`"
    pinned = found.pinned_spelling(version)
    args = [pinned if arg == found.package else arg for arg in mask_args(template.args)]
    command = shlex.join([template.command or "", *args])
    return f"pin it to the version pinned in the lock (the server reported {version}): `{command}`"
