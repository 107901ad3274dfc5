"""Compare what a server says now with what was pinned, definition by definition."""

from __future__ import annotations

from typing import Any

from scanner.findings import Finding, LockLocation, pointer
from scanner.lock.canonical import canonical_bytes
from scanner.lock.lockfile import Pin, ServerPin
from scanner.rules import definition_rule, kind_label, rule
from scanner.snapshot import KINDS

ATTRIBUTE_OF = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resourceTemplates": "resource_templates",
}
TEXT_PREVIEW = 400


def pins_of(server: ServerPin, kind: str) -> dict[str, Pin]:
    pins: dict[str, Pin] = getattr(server, ATTRIBUTE_OF[kind])
    return pins


def compare_server(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    """Every difference between the pinned and the live surface of one server."""
    findings = _instructions(key, pinned, live)
    for kind, _ in KINDS:
        findings += _definitions(key, kind, pins_of(pinned, kind), pins_of(live, kind))
    findings += _server_info(key, pinned, live)
    return findings


def _instructions(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    if pinned.instructions == live.instructions:
        return []
    return [
        Finding(
            rule("instructions-changed"),
            key,
            f"{key}: the server's instructions to the model changed",
            LockLocation(pointer("servers", key, "instructions")),
            details=_text_change(pinned.instructions, live.instructions),
        )
    ]


def _definitions(key: str, kind: str, pinned: dict[str, Pin], live: dict[str, Pin]) -> list[Finding]:
    label = kind_label(kind)
    findings: list[Finding] = []
    for name in sorted(live.keys() - pinned.keys()):
        findings.append(
            Finding(
                definition_rule(kind, "added"),
                key,
                f"{key}: {label} `{name}` was added",
                LockLocation(pointer("servers", key, kind)),
                subject=name,
                kind=kind,
                details=_preview(live[name].definition),
            )
        )
    for name in sorted(pinned.keys() - live.keys()):
        findings.append(
            Finding(
                definition_rule(kind, "removed"),
                key,
                f"{key}: {label} `{name}` was removed",
                LockLocation(pointer("servers", key, kind, name)),
                subject=name,
                kind=kind,
            )
        )
    for name in sorted(pinned.keys() & live.keys()):
        if pinned[name].digest == live[name].digest:
            continue
        before, after = pinned[name].definition, live[name].definition
        fields = changed_fields(before, after)
        findings.append(
            Finding(
                definition_rule(kind, "changed"),
                key,
                f"{key}: {label} `{name}` changed: {', '.join(fields)}",
                LockLocation(pointer("servers", key, kind, name)),
                subject=name,
                kind=kind,
                details=_field_details(before, after, fields),
            )
        )
    return findings


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Top-level fields whose canonical values differ (a field present on one side only counts)."""
    return sorted(
        name
        for name in before.keys() | after.keys()
        if name not in before or name not in after or canonical_bytes(before[name]) != canonical_bytes(after[name])
    )


def _field_details(before: dict[str, Any], after: dict[str, Any], fields: list[str]) -> list[str]:
    lines: list[str] = []
    for name in fields:
        old, new = before.get(name), after.get(name)
        if isinstance(old, str) or isinstance(new, str):
            lines += [f"{name}:", *_text_change(old, new)]
        else:
            lines += [f"{name}:", f"  - {_compact(old)}", f"  + {_compact(new)}"]
    return lines


def _text_change(old: object, new: object) -> list[str]:
    return [f"  - {_shown(old)}", f"  + {_shown(new)}"]


def _shown(value: object) -> str:
    if value is None:
        return "(absent)"
    text = value if isinstance(value, str) else _compact(value)
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= TEXT_PREVIEW else text[:TEXT_PREVIEW] + f"… ({len(text)} characters)"


def _compact(value: object) -> str:
    if value is None:
        return "(absent)"
    text = canonical_bytes(value).decode("utf-8")
    return text if len(text) <= TEXT_PREVIEW else text[:TEXT_PREVIEW] + f"… ({len(text)} characters)"


def _preview(definition: dict[str, Any]) -> list[str]:
    description = definition.get("description")
    return [f"description: {_shown(description)}"] if isinstance(description, str) else []


def _server_info(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    changes = [
        f"{label}: {_compact(old)} → {_compact(new)}"
        for label, old, new in (
            ("serverInfo", pinned.server_info, live.server_info),
            ("protocolVersion", pinned.protocol_version, live.protocol_version),
            ("capabilities", pinned.capabilities, live.capabilities),
        )
        if canonical_bytes(old) != canonical_bytes(new)
    ]
    if not changes:
        return []
    return [
        Finding(
            rule("server-info-changed"),
            key,
            f"{key}: the server reports different {', '.join(c.split(':')[0] for c in changes)}",
            LockLocation(pointer("servers", key)),
            details=changes,
        )
    ]
