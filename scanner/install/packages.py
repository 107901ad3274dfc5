"""The dependency tree a launch runs, as the lock records it (`launch.tree`, lockfile-spec/SPEC.md 1.2.2).

    {"manager": "npm", "format": 4, "digest": "sha256:…", "packages": [
        {"path": "node_modules/a", "name": "a", "version": "1.0.0", "integrity": "sha512-…", "installScript": true,
         "dependencies": {"b": "^2.0.0"}, "bin": {"a": "cli.js"}, "license": "MIT"}]}
    {"manager": "uv", "format": 4, "digest": "sha256:…", "packages": [
        {"name": "a", "version": "1.0.0", "sha256": ["…"], "markers": "sys_platform == 'win32'"}]}

Built from the package manager's own resolution (npm's package-lock.json: `npm_record`; uv's universal hashed
requirements: `uv_record`), which mcp-lock makes before any package code runs. Format 4 holds all an install
needs, so a pinned tree is installed from its record alone; the digest covers the manager, the format and
every package, and keys the store. Everything read is bounded: package counts, string sizes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scanner.lock.canonical import tree_digest

NPM, UV = "npm", "uv"
EXACT = 4  # the tree record format that installs with no resolution (lockfile format 4)
MAX_PACKAGES = 10_000  # a real server's tree is hundreds; past this the resolution is refused
MAX_FIELD = 4096  # characters of one name, version, path or digest
INTEGRITY = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}")
SHA256 = re.compile(r"[0-9a-f]{64}")


class TreeError(ValueError):
    """The package manager's resolution cannot be recorded; the message says why, in one line."""


@dataclass(frozen=True)
class Change:
    """One package of a tree that differs from the pinned tree."""

    kind: str  # added, removed, changed (another version), content (same version, another digest)
    key: str  # npm: the install path; uv: the normalised name
    old: Mapping[str, Any] | None
    new: Mapping[str, Any] | None

    def line(self) -> str:
        shown = _shown_name(self.new or self.old or {}, self.key)
        if self.kind == "added":
            return f"added {shown}@{(self.new or {}).get('version')}"
        if self.kind == "removed":
            return f"removed {shown}@{(self.old or {}).get('version')}"
        old, new = self.old or {}, self.new or {}
        if self.kind == "changed":
            return f"{shown}: {old.get('version')} → {new.get('version')}"
        return f"{shown}@{new.get('version')}: same version, other content: {_content(old)} → {_content(new)}"


def tree_record(manager: str, packages: list[dict[str, Any]]) -> dict[str, Any]:
    """The record of `packages` (each already a closed package record) with its digest, in format 4: enough
    to install the tree again with no resolution."""
    ordered = sorted(packages, key=lambda p: (p.get("path", ""), p["name"], p["version"]))
    return {"manager": manager, "format": EXACT, "digest": tree_digest(manager, ordered, EXACT), "packages": ordered}


def is_exact(tree: Mapping[str, Any]) -> bool:
    """Whether `tree` holds everything to install it with no resolution (format 4); older records do not."""
    return tree.get("format") == EXACT


def tree_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every package added, removed, or changed (version, or content at the same version), by install path
    (npm) or name (uv), sorted."""
    before, after = _by_key(old), _by_key(new)
    changes: list[Change] = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a is None:
            changes.append(Change("added", key, None, b))
        elif b is None:
            changes.append(Change("removed", key, a, None))
        elif a.get("version") != b.get("version") or a.get("name") != b.get("name"):
            changes.append(Change("changed", key, a, b))
        elif not _same_content(a, b):
            changes.append(Change("content", key, a, b))
    return changes


def top_package(tree: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The package the launch names, as its tree records it."""
    for package in tree.get("packages") or []:
        if package.get("path", f"node_modules/{name}") == f"node_modules/{name}" and package.get("name") in (
            name,
            normalised(name),
        ):
            return package
    return None


def _same_content(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    if "sha256" in old or "sha256" in new:
        # An index may add a file (another platform's wheel) to a release; a release whose files were all
        # replaced is other content.
        return bool(set(old.get("sha256") or []) & set(new.get("sha256") or []))
    return old.get("integrity") == new.get("integrity")


def _by_key(tree: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Packages by install path (npm) or name (uv); a name a universal resolution holds at two versions (one
    per platform or Python fork) by `name@version`."""
    packages = [p for p in tree.get("packages") or [] if isinstance(p, Mapping)]
    names = Counter(str(p.get("name")) for p in packages if "path" not in p)
    keyed = {}
    for p in packages:
        key = str(p.get("path") or p.get("name"))
        keyed[key if "path" in p or names[key] == 1 else f"{key}@{p.get('version')}"] = p
    return keyed


def _content(package: Mapping[str, Any]) -> str:
    value = package.get("integrity") or ",".join(package.get("sha256") or []) or "no digest"
    return value if len(value) <= 23 else value[:22] + "…"


def _shown_name(package: Mapping[str, Any], key: str) -> str:
    name = str(package.get("name") or key)
    nested = key.count("node_modules/") > 1
    return f"{name} (under {key.rpartition('/node_modules/')[0].removeprefix('node_modules/')})" if nested else name


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def field(value: Any) -> str:
    """A name, version, path or digest of a resolution: a non-empty string within MAX_FIELD."""
    if not isinstance(value, str) or not value or len(value) > MAX_FIELD:
        raise TreeError(f"the resolution has a missing or oversized name, version or path: {str(value)[:80]!r}")
    return value
