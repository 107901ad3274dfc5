"""`check`: the provenance screen (scanner.artifacts.provenance) of every package version new to a server.

It reuses what the release screen already asked the registry (whether a version and the one it replaces have
attestations), so a run whose new versions have none makes no further request and imports no Sigstore code. The
provenance recorded for the version replaced is read from the lock it was pinned in (the merge base's under
`--base`); the trust root is read once per run, and only when some version has attestations.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Mapping
from typing import Any

from scanner.artifacts.attestations import Requests, registry_bundles
from scanner.artifacts.inventory import ServerPackage
from scanner.artifacts.packument import Release
from scanner.artifacts.provenance import Subject, Version, screen
from scanner.artifacts.release_screen import NewPackage
from scanner.artifacts.sigstore_check import load_trust_root
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import Finding
from scanner.model.pointer import split

Described = Callable[[NewPackage], "tuple[Release, Release | None] | None"]


def provenance_findings(
    changes: list[NewPackage],
    describe: Described,
    after: Mapping[str, ServerPin],
    before: Mapping[str, ServerPin] | None,
    sources: Mapping[str, tuple[str | None, str | None]],  # server -> (npm registry, PyPI index)
    environ: Mapping[str, str],
    deadline: float,
    now: datetime.datetime,
) -> list[Finding]:
    """The provenance findings of each change; a change its registry could not describe is left out (the release
    screen already reported it as package-metadata-failed)."""
    requests = Requests(deadline=deadline)
    root = functools.cache(lambda: load_trust_root(environ))
    findings: list[Finding] = []
    for change in changes:
        try:
            described = describe(change)
        except Exception:  # RegistryError, reported by the release screen
            continue
        if described is None:
            continue
        release, previous = described
        new = _version(change.entry, record_at(after, change.entry.location), release.attested)
        old = None
        if change.previous is not None:
            pins = before if before is not None else after
            record = record_at(pins, change.previous.location)
            old = _version(change.previous, record, previous.attested if previous else False,
                           record.get("provenance") if record else None)
        registry, index = sources.get(change.server, (None, None))
        bundles = registry_bundles(requests, registry, index)
        where = Subject(change.server, change.entry.location, pulled_in(change))
        findings += screen(where, new, old, bundles, root, now).findings
    return findings


def _version(entry: ServerPackage, record: Mapping[str, Any] | None, attested: bool,
             recorded: Any = None) -> Version:
    digests: tuple[str, ...] = ()
    if record is not None and isinstance(record.get("sha256"), list):
        digests = tuple(str(d) for d in record["sha256"])
    elif entry.digest:
        digests = (entry.digest,)
    return Version(entry.package, digests, attested, recorded if isinstance(recorded, dict) else None)


def pulled_in(change: NewPackage) -> str:
    """` (pulled in by a@1.0.0 (top@1.0.0 → a@1.0.0 → b@2.0.0))` for a dependency; nothing for the launched one."""
    clause = change.entry.pulled_in_by()
    return f" ({clause})" if clause else ""


def record_at(pins: Mapping[str, ServerPin], location: str) -> Mapping[str, Any] | None:
    """The tree package record at `location` (`/servers/<key>/launch/tree/packages/<i>`), if it is one."""
    parts = split(location)
    if len(parts) != 6 or parts[0] != "servers" or parts[2:5] != ["launch", "tree", "packages"]:
        return None
    pin = pins.get(parts[1])
    packages = (pin.tree or {}).get("packages") if pin is not None else None
    if not isinstance(packages, list) or not parts[5].isdigit() or int(parts[5]) >= len(packages):
        return None
    record = packages[int(parts[5])]
    return record if isinstance(record, dict) else None
