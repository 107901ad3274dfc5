"""The lock as a JSON document and as text: rendering, loading a verified document, and line anchors."""

from __future__ import annotations

import contextlib
from typing import Any, NoReturn

from scanner.lock.lockfile import DOCUMENT_DEPTH, Lockfile, LockfileError, Pin, ServerPin, format_version
from scanner.lock.member_lines import iter_members
from scanner.lock.render import render_string, render_value
from scanner.model.kinds import KIND_KEYS, KINDS


def render(lock: Lockfile) -> str:
    """The exact text of the lockfile (SPEC.md, "Text"): same lock, same bytes."""
    return render_value(to_document(lock), max_depth=DOCUMENT_DEPTH) + "\n"


def to_document(lock: Lockfile) -> dict[str, Any]:
    """The lock as a JSON document (camelCase field names, as in the file)."""
    return {
        "lockfileVersion": format_version(lock),
        "servers": {name: _server_document(server) for name, server in lock.servers.items()},
    }


def _server_document(server: ServerPin) -> dict[str, Any]:
    return {
        "declarations": server.declarations,
        "launch": {
            **server.launch,
            **({"artifact": server.artifact} if server.artifact is not None else {}),
            **({"tree": server.tree} if server.tree is not None else {}),
        },
        "protocolVersion": server.protocol_version,
        "serverInfo": server.server_info,
        "capabilities": server.capabilities,
        "instructions": server.instructions,
        **{
            kind: {key: {"definition": pin.definition, "digest": pin.digest} for key, pin in server.pins(kind).items()}
            for kind in KIND_KEYS
        },
        "digest": server.digest,
        # Only when a body is pinned, so a lock without any reads and renders as before.
        **(
            {"promptBodies": {n: {"result": b.definition, "digest": b.digest} for n, b in server.prompt_bodies.items()}}
            if server.prompt_bodies
            else {}
        ),
    }


def from_document(document: dict[str, Any]) -> Lockfile:
    """The lock a schema-valid document describes (its digests not checked yet)."""
    servers = {}
    for name, entry in document["servers"].items():
        launch = dict(entry["launch"])
        artifact = launch.pop("artifact", None)
        tree = launch.pop("tree", None)
        servers[name] = ServerPin(
            declarations=entry["declarations"],
            launch=launch,
            artifact=artifact,
            tree=tree,
            protocol_version=entry["protocolVersion"],
            server_info=entry["serverInfo"],
            capabilities=entry["capabilities"],
            instructions=entry["instructions"],
            digest=entry["digest"],
            prompt_bodies={n: Pin(b["result"], b["digest"]) for n, b in entry.get("promptBodies", {}).items()},
            **{
                kind.attribute: {key: Pin(pin["definition"], pin["digest"]) for key, pin in entry[kind.key].items()}
                for kind in KINDS
            },
        )
    return Lockfile(document["lockfileVersion"], servers)


def line_index(text: str) -> dict[str, int]:
    """Map the JSON pointer of every member (and array element) to the line it starts on.

    E.g. "/servers/time/tools/get_current_time" -> the line of `"get_current_time": {`.
    The root is "". Never raises: for text that is not JSON, it holds the members before
    the first error (reporters anchor on what they can).
    """
    index: dict[str, int] = {}
    with contextlib.suppress(ValueError):
        for pointer, line in iter_members(text):
            index.setdefault(pointer, line)
    return index


def fail_at(text: str, source: str, pointer: str, reason: str) -> NoReturn:
    """Raise LockfileError at the line of `pointer` (or of its nearest parent) in `text`."""
    raise LockfileError(source, reason, _line_of(text, pointer))


def _line_of(text: str, pointer: str) -> int | None:
    # Only on the error path, so scanning the text again costs nothing that matters.
    lines = line_index(text)
    while pointer not in lines and pointer:
        pointer = pointer.rpartition("/")[0]
    return lines.get(pointer)


def shown(text: str) -> str:
    """`text` with hidden characters escaped, for a one-line message."""
    return render_string(text)[1:-1]
