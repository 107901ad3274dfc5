"""The lock in memory: a Pin per definition, a ServerPin per server, the Lockfile around them.

The format is specified in lockfile-spec/SPEC.md; the schema ships next to this module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from scanner.lock.canonical import MAX_DEPTH, digest
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS

LOCKFILE_VERSION = 4  # the newest format read and written (SPEC.md section 6)
ARTIFACT_VERSION = 2  # the first format with `launch.artifact`
TREE_VERSION = 3  # the first format with `launch.tree`
EXACT_TREE_VERSION = 4  # the first with `launch.tree.format` 4: a tree installed from its record alone
# Containers around a definition in the document: root, servers, server, kind, pin.
DOCUMENT_DEPTH = MAX_DEPTH + 5


class LockfileError(Exception):
    """A lockfile that cannot be trusted: one line naming the file (and line when known)."""

    def __init__(self, source: str, reason: str, line: int | None = None, column: int | None = None):
        where = source + "".join(f":{n}" for n in (line, column) if n is not None)
        super().__init__(f"{where}: {reason}")
        self.source, self.reason, self.line, self.column = source, reason, line, column


@dataclasses.dataclass
class Pin:
    """One definition exactly as the server listed it, and its digest."""

    definition: dict[str, Any]
    digest: str


@dataclasses.dataclass
class ServerPin:
    """Everything pinned for one server."""

    declarations: list[dict[str, str]]  # {"file", "client", "name"}, sorted; no line numbers
    launch: dict[str, Any]  # LaunchTemplate.spec(): names of env vars/headers, never values
    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    instructions: str | None
    tools: dict[str, Pin] = dataclasses.field(default_factory=dict)
    prompts: dict[str, Pin] = dataclasses.field(default_factory=dict)
    resources: dict[str, Pin] = dataclasses.field(default_factory=dict)
    resource_templates: dict[str, Pin] = dataclasses.field(default_factory=dict)
    digest: str = ""  # surface digest; see surface_digest()
    # What the launch ran (scanner.artifacts.record), written as `launch.artifact`; None when unknown.
    artifact: dict[str, Any] | None = None
    # What `prompts/get` returned for each pinned prompt that needs no argument, by prompt name.
    prompt_bodies: dict[str, Pin] = dataclasses.field(default_factory=dict)
    # The whole dependency tree the launch runs (scanner.install.packages), written as `launch.tree`.
    tree: dict[str, Any] | None = None

    def pins(self, kind: str) -> dict[str, Pin]:
        """The pins of a kind named as on the wire: tools, prompts, resources, resourceTemplates."""
        return getattr(self, KIND_BY_KEY[kind].attribute)

    def surface_digest(self) -> str:
        """The surface digest these instructions, definitions and prompt bodies call for."""
        return surface_digest(self.instructions, {kind: self.pins(kind) for kind in KIND_KEYS}, self.prompt_bodies)


@dataclasses.dataclass
class Lockfile:
    version: int = 1  # as read; a write uses format_version()
    servers: dict[str, ServerPin] = dataclasses.field(default_factory=dict)


def format_version(lock: Lockfile) -> int:
    """The lowest format that holds `lock` (SPEC.md section 6): a lock using nothing newer stays readable by
    older readers, and its file does not change when mcp-lock is upgraded."""
    trees = [server.tree for server in lock.servers.values() if server.tree is not None]
    if any(tree.get("format") == EXACT_TREE_VERSION for tree in trees):
        return EXACT_TREE_VERSION
    if trees:
        return TREE_VERSION
    newer = any(server.artifact is not None or server.prompt_bodies for server in lock.servers.values())
    return ARTIFACT_VERSION if newer else 1


def surface_digest(
    instructions: str | None, pins: Mapping[str, Mapping[str, Pin]], prompt_bodies: Mapping[str, Pin] | None = None
) -> str:
    """Digest of what the model sees: instructions plus each definition's digest, per kind, and each prompt
    body's digest when any is pinned (so a lock without bodies keeps the digest it always had)."""
    document: dict[str, Any] = {
        "instructions": instructions,
        **{kind: {key: pin.digest for key, pin in pins.get(kind, {}).items()} for kind in KIND_KEYS},
    }
    if prompt_bodies:
        document["promptBodies"] = {name: pin.digest for name, pin in prompt_bodies.items()}
    return digest(document)


def rebuild(server: ServerPin, **changes: Any) -> ServerPin:
    """A copy of `server` with fields replaced (e.g. `tools=`) and its surface digest recomputed."""
    changes.pop("digest", None)
    rebuilt = dataclasses.replace(server, **changes)
    rebuilt.digest = rebuilt.surface_digest()
    return rebuilt


@dataclasses.dataclass(frozen=True)
class LaunchDiff:
    names: list[str]  # the launch fields that differ, sorted
    details: list[str]  # one line per field: `name: old → new`, values as reprs


def launch_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> LaunchDiff | None:
    """How launch `new` differs from `old` (both `LaunchTemplate.spec()` or a pin's launch); None when equal."""
    if old == new:
        return None
    if old.get("env") == [] and new.get("env") == {}:  # a lock written before env held templates, no env
        old = {**old, "env": {}}
        if old == new:
            return None
    names = sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))
    return LaunchDiff(names, [f"{n}: {old.get(n)!r} → {new.get(n)!r}" for n in names])
