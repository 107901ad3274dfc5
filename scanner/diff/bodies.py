"""Compare the pinned `prompts/get` bodies with the live ones: the messages a prompt hands the model.

A body is pinned for each prompt that needs no argument (SPEC.md 1.6). A body new to the lock (an
earlier mcp-lock pinned none, or the prompt no longer needs an argument) is reviewed like new text:
each of its messages is an added sentence.
"""

from __future__ import annotations

from typing import Any

from scanner.diff.change import Change, change, most_severe, ordered, same, summary
from scanner.diff.text_diff import quote, text_changes
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import Finding, LockLocation
from scanner.model.pointer import pointer
from scanner.model.rules import definition_rule

MESSAGES_LISTED = 20  # messages graded one by one; the rest are counted in one more change


def body_findings(key: str, pinned: ServerPin, live: ServerPin) -> list[Finding]:
    """One `prompt-changed` finding per prompt whose pinned body differs from the live one."""
    findings: list[Finding] = []
    for name in sorted(pinned.prompt_bodies.keys() | live.prompt_bodies.keys()):
        before, after = pinned.prompt_bodies.get(name), live.prompt_bodies.get(name)
        if before is not None and after is not None and before.digest == after.digest:
            continue
        if after is None and name not in live.prompts:
            continue  # the prompt itself was removed: that finding says it
        findings.append(_finding(key, name, before, after))
    return findings


def _finding(key: str, name: str, before: Pin | None, after: Pin | None) -> Finding:
    changes = ordered(body_changes(before.definition if before else None, after.definition if after else None))
    if before is None:
        what = "is pinned for the first time"
    elif after is None:
        what = "is no longer returned"
    else:
        what = "changed"
    added = next((c.quote for c in changes if c.quote), None)
    quoted = f' — added "{added}"' if added else ""
    return Finding(
        definition_rule("prompts", "changed"),
        key,
        f"{key}: prompt `{name}`: the messages prompts/get returns {what}{quoted}",
        LockLocation(pointer("servers", key, "promptBodies", name)),
        subject=name,
        kind="prompts",
        details=[c.line() for c in changes],
        severity=most_severe(changes),
        digest=after.digest if after else None,
    )


def body_changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Change]:
    """Graded changes between two `prompts/get` results; None is a body not pinned or not returned."""
    if new is None:
        return [change("field-changed", "", "prompts/get no longer returns a body", "messages")]
    old = old or {}
    changes: list[Change] = []
    for field in sorted(old.keys() | new.keys()):
        was, now = old.get(field), new.get(field)
        if same(was, now):
            continue
        if field == "description":
            changes += text_changes(field, "", was, now)
        elif field == "messages" and isinstance(now, list) and isinstance(was, list | None):
            changes += _message_changes(was or [], now)
        else:
            changes.append(change("field-changed", "", f"{summary(was)} → {summary(now)}", field))
    return changes


def _message_changes(old: list[Any], new: list[Any]) -> list[Change]:
    changes: list[Change] = []
    for index in range(max(len(old), len(new))):
        if index >= MESSAGES_LISTED:
            changes.append(change("field-changed", f"/{index}", "and more messages changed", "messages"))
            break
        was = old[index] if index < len(old) else None
        now = new[index] if index < len(new) else None
        if same(was, now):
            continue
        path = f"/{index}"
        old_text, new_text = _text(was), _text(now)
        if now is None:
            changes.append(change("field-changed", path, "message removed", "messages"))
        elif was is None and new_text is not None:
            shown = quote(new_text)
            changes.append(
                change("text-sentence-added", path, f'added message: "{shown}"', "messages", quote=shown)
            )
        elif old_text is not None and new_text is not None and _shape(was) == _shape(now):
            changes += text_changes("messages", path + "/content/text", old_text, new_text)
        else:
            changes.append(change("field-changed", path, f"{summary(was)} → {summary(now)}", "messages"))
    return changes


def _text(message: Any) -> str | None:
    """The text of a `{"role", "content": {"type": "text", "text"}}` message."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, dict) and content.get("type") == "text" and isinstance(content.get("text"), str):
        return str(content["text"])
    return None


def _shape(message: Any) -> Any:
    """The message without its text, to tell a text edit from any other change."""
    return {**message, "content": {k: v for k, v in message["content"].items() if k != "text"}}
