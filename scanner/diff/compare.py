"""Compare what a server says now with what was pinned, definition by definition."""

from __future__ import annotations

import difflib
import re
from typing import Any

from scanner.diff.bodies import body_findings
from scanner.diff.change import SEVERITY, Change, most_severe, ordered
from scanner.diff.grade import grade
from scanner.diff.text_diff import quote, text_changes
from scanner.lock.canonical import canonical_bytes
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS
from scanner.model.pointer import pointer
from scanner.model.rule_base import severity_rank
from scanner.model.rules import INSTRUCTIONS_CHANGED, SERVER_INFO_CHANGED, definition_rule, kind_label

TEXT_PREVIEW = 400
RENAME_RATIO = 0.9  # descriptions at least this similar (difflib) make a removal + addition a rename
GROUP_OVER = 5  # more definitions of one kind added (or removed) than this are one finding
GROUP_NAMED = 3  # named in that finding's message
GROUP_LISTED = 200  # listed in its details


def pins_of(server: ServerPin, kind: str) -> dict[str, Pin]:
    pins: dict[str, Pin] = getattr(server, KIND_BY_KEY[kind].attribute)
    return pins


def compare_server(key: str, pinned: ServerPin, live: ServerPin, *, grouped: bool = False) -> list[Finding]:
    """Every difference between the pinned and the live surface of one server.

    `grouped`: more than `GROUP_OVER` definitions of one kind added (or removed) make one finding that
    lists them, as a report needs; without it every definition has its own finding, as grading needs.
    Changed definitions always have their own: each needs its own review.
    """
    findings = _instructions(key, pinned, live)
    for kind in KIND_KEYS:
        findings += _definitions(key, kind, pins_of(pinned, kind), pins_of(live, kind), grouped)
    findings += body_findings(key, pinned, live)
    findings += _server_info(key, pinned, live)
    return findings


def _instructions(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    if pinned.instructions == live.instructions:
        return []
    changes = ordered(text_changes("instructions", "", pinned.instructions, live.instructions))
    return [
        Finding(
            INSTRUCTIONS_CHANGED,
            key,
            f"{key}: the server's instructions to the model changed{_quoted(changes)}",
            LockLocation(pointer("servers", key, "instructions")),
            details=_graded_details(changes),
            severity=most_severe(changes),
        )
    ]


def _definitions(
    key: str, kind: str, pinned: dict[str, Pin], live: dict[str, Pin], grouped: bool
) -> list[Finding]:
    label = kind_label(kind)
    findings: list[Finding] = []
    renames = _renames(kind, pinned, live)
    for old, new in sorted(renames.items()):
        findings.append(_renamed(key, kind, old, new, pinned[old], live[new]))
    added = sorted(live.keys() - pinned.keys() - set(renames.values()))
    removed = sorted(pinned.keys() - live.keys() - renames.keys())
    if grouped and len(added) > GROUP_OVER:
        findings.append(_grouped(key, kind, "added", added, live))
        added = []
    if grouped and len(removed) > GROUP_OVER:
        findings.append(_grouped(key, kind, "removed", removed, pinned))
        removed = []
    for name in added:
        findings.append(
            Finding(
                definition_rule(kind, "added"),
                key,
                f"{key}: {label} `{name}` was added",
                LockLocation(pointer("servers", key, kind)),
                subject=name,
                kind=kind,
                details=_preview(live[name].definition),
                digest=live[name].digest,
            )
        )
    for name in removed:
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
        changes = grade(before, after)
        findings.append(
            Finding(
                definition_rule(kind, "changed"),
                key,
                f"{key}: {label} `{name}` changed: {', '.join(fields)}{_quoted(changes)}",
                LockLocation(pointer("servers", key, kind, name)),
                subject=name,
                kind=kind,
                details=_graded_details(changes) if changes else _field_details(before, after, fields),
                severity=most_severe(changes),
                digest=live[name].digest,
            )
        )
    return findings


def _renamed(key: str, kind: str, old: str, new: str, before: Pin, after: Pin) -> Finding:
    """A rename is as severe as the most severe of `renamed` and the changes made under the new name."""
    changes = grade(_unnamed(before.definition), _unnamed(after.definition))
    fields = changed_fields(_unnamed(before.definition), _unnamed(after.definition))
    changed = f" and changed: {', '.join(fields)}{_quoted(changes)}" if changes else ""
    severity = min(SEVERITY["renamed"], most_severe(changes) or SEVERITY["renamed"], key=severity_rank)
    return Finding(
        definition_rule(kind, "changed"),
        key,
        f"{key}: {kind_label(kind)} `{old}` was renamed to `{new}`{changed}",
        LockLocation(pointer("servers", key, kind, old)),
        subject=new,
        kind=kind,
        details=[
            f"name: {old} → {new} (same schema, description at least {RENAME_RATIO:.0%} alike)",
            *_graded_details(changes),
        ],
        severity=severity,
        previous_subject=old,
        digest=after.digest,
    )


def _grouped(key: str, kind: str, event: str, names: list[str], pins: dict[str, Pin]) -> Finding:
    """One finding for many definitions of one kind added or removed at once, each listed in its details."""
    names = sorted(names, key=_natural)
    shown = ", ".join(f"`{name}`" for name in names[:GROUP_NAMED])
    more = f" and {len(names) - GROUP_NAMED} more" if len(names) > GROUP_NAMED else ""
    details = [_named(name, pins[name].definition) for name in names[:GROUP_LISTED]]
    if len(names) > GROUP_LISTED:
        details.append(f"and {len(names) - GROUP_LISTED} more")
    return Finding(
        definition_rule(kind, event),
        key,
        f"{key}: {len(names)} {kind_label(kind)}s were {event}: {shown}{more}",
        LockLocation(pointer("servers", key, kind)),
        kind=kind,
        details=details,
        covers=names,
    )


def _natural(name: str) -> list[str | int]:
    """Numbers in a name compared as numbers: `resource/2` before `resource/10`."""
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"(\d+)", name))]


def _named(name: str, definition: dict[str, Any]) -> str:
    description = definition.get("description")
    return f"{name}: {quote(description)}" if isinstance(description, str) and description.strip() else name


def _renames(kind: str, pinned: dict[str, Pin], live: dict[str, Pin]) -> dict[str, str]:
    """Removed name → added name, for definitions that only changed their name.

    Tools: canonical-equal `inputSchema` and descriptions equal or at least `RENAME_RATIO` alike.
    Other kinds: everything but name, title and description canonical-equal, and the same test on the
    description. Each removed definition pairs with its most similar candidate, once.
    """
    removed = sorted(pinned.keys() - live.keys())
    added = sorted(live.keys() - pinned.keys())
    pairs: dict[str, str] = {}
    for old in removed:
        before = pinned[old].definition
        best: tuple[float, str] | None = None
        for new in added:
            if new in pairs.values():
                continue
            after = live[new].definition
            if canonical_bytes(_shape(kind, before)) != canonical_bytes(_shape(kind, after)):
                continue
            a, b = before.get("description"), after.get("description")
            if not isinstance(a, str) or not isinstance(b, str) or not (a.strip() or b.strip()):
                continue
            ratio = 1.0 if a == b else difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
            if ratio >= RENAME_RATIO and (best is None or ratio > best[0]):
                best = (ratio, new)
        if best is not None:
            pairs[old] = best[1]
    return pairs


def _shape(kind: str, definition: dict[str, Any]) -> object:
    if kind == "tools":
        return definition.get("inputSchema", {})
    return {k: v for k, v in definition.items() if k not in ("name", "title", "description")}


def _unnamed(definition: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in definition.items() if k != "name"}


def _quoted(changes: list[Change]) -> str:
    """The added sentence, or else the first changed words of the most severe text change, for the message."""
    quotes = [c.quote for c in changes if c.quote]
    if not quotes:
        excerpt = next((c.excerpt for c in ordered(changes) if c.excerpt), None)
        return f' — "{excerpt}"' if excerpt else ""
    more = f" (+{len(quotes) - 1} more)" if len(quotes) > 1 else ""
    return f' — added "{quotes[0]}"{more}'


def _graded_details(changes: list[Change]) -> list[str]:
    """One line per change, most severe first, then each word-level diff once."""
    lines = [c.line() for c in ordered(changes)]
    seen: set[tuple[str, str]] = set()
    for c in changes:
        if c.diff and (c.field, c.diff) not in seen and not _already_quoted(c.diff, lines):
            seen.add((c.field, c.diff))
            where = " ".join(p for p in (c.field, c.path) if p)
            lines.append(f"{where}: {c.diff}")
    return lines


def _already_quoted(diff: str, lines: list[str]) -> bool:
    """A diff that only adds or only removes one text a graded line quotes whole (a new title) says it again."""
    for start, end in (("{+", "+}"), ("[-", "-]")):
        inner = diff[len(start) : -len(end)] if diff.startswith(start) and diff.endswith(end) else None
        if inner and "{+" not in inner and "[-" not in inner and any(f'"{inner}"' in line for line in lines):
            return True
    return False


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
            SERVER_INFO_CHANGED,
            key,
            f"{key}: the server reports different {', '.join(c.split(':')[0] for c in changes)}",
            LockLocation(pointer("servers", key)),
            details=changes,
        )
    ]
