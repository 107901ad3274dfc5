"""Run the poisoned-text detectors over what a reviewer is about to accept.

`check` scans only text that is new or changed against the pin; `lock` scans the whole baseline, so
nobody pins a poisoned tool without being told.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scanner.findings import Finding, LockLocation, pointer
from scanner.lock.lockfile import ServerPin
from scanner.rules import kind_label, rule
from scanner.snapshot import KINDS


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a definition (descriptions, titles, enum values, defaults…) with its JSON pointer."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}/{pointer(str(key))[1:]}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}/{index}")


def suspicious_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Detector hits on text in `live` that `pinned` did not already contain (all text when unpinned)."""
    findings: list[Finding] = []
    if live.instructions and (pinned is None or pinned.instructions != live.instructions):
        findings += _scan(key, live.instructions, "instructions", None, None, LockLocation(pointer("servers", key)))
    for kind, _ in KINDS:
        before = pinned.pins(kind) if pinned is not None else {}
        for name, pin in live.pins(kind).items():
            known = {text for _, text in strings(before[name].definition)} if name in before else set()
            for path, text in strings(pin.definition):
                if text not in known:
                    location = LockLocation(pointer("servers", key, kind, name))
                    findings += _scan(key, text, f"{kind_label(kind)} `{name}` {path}", name, kind, location)
    return findings


def _scan(
    key: str, text: str, where: str, subject: str | None, kind: str | None, location: LockLocation
) -> list[Finding]:
    from scanner.detectors import scan_text

    return [
        Finding(
            rule("suspicious-text"),
            key,
            f"{key}: {where}: {hit.summary} [{hit.rule_id}]",
            location,
            subject=subject,
            kind=kind,
            details=[f"evidence: {hit.evidence}"],
            severity=hit.severity,  # type: ignore[arg-type]
        )
        for hit in scan_text(text)
    ]
