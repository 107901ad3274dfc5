"""The dependency tree a launch runs, as the lock records it (`launch.tree`, lockfile-spec/SPEC.md 1.2.2).

    {"manager": "npm", "digest": "sha256:…", "packages": [
        {"path": "node_modules/a", "name": "a", "version": "1.0.0", "integrity": "sha512-…", "installScript": true}]}
    {"manager": "uv", "digest": "sha256:…", "packages": [{"name": "a", "version": "1.0.0", "sha256": ["…"]}]}

Built from the package manager's own resolution (npm's package-lock.json, uv's hashed requirements), which
mcp-lock makes before any package code runs; the digest covers the manager and every package, and keys the
store. Everything read is bounded: package counts, string sizes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scanner.files.bounded_json import Bounds, parse
from scanner.lock.canonical import tree_digest

NPM, UV = "npm", "uv"
MAX_PACKAGES = 10_000  # a real server's tree is hundreds; past this the resolution is refused
# npm's package-lock.json: 10,000 packages of a few dozen values each, a few levels deep.
NPM_LOCK_BOUNDS = Bounds(bytes=64 * 1024 * 1024, depth=16, values=2_000_000)
MAX_FIELD = 4096  # characters of one name, version, path or digest
INTEGRITY = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}")
SHA256 = re.compile(r"[0-9a-f]{64}")
# uv's hashed requirements: `name==version \` then one `--hash=sha256:…` per published file.
REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")


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
    """The record of `packages` (each already a closed package record) with its digest."""
    ordered = sorted(packages, key=lambda p: (p.get("path", ""), p["name"], p["version"]))
    return {"manager": manager, "digest": tree_digest(manager, ordered), "packages": ordered}


def read_npm_lock(text: str) -> dict[str, Any]:
    """The tree of npm's package-lock.json text, parsed within bounds (its contents come from registry answers):
    TreeError or AnswerError (both ValueErrors) when it breaks one or is not such a lock."""
    return npm_tree(parse(text.encode("utf-8"), NPM_LOCK_BOUNDS))


def npm_tree(lock: Any) -> dict[str, Any]:
    """The tree of an npm package-lock.json (lockfileVersion 2 or 3): every installed package but the root."""
    packages = lock.get("packages") if isinstance(lock, dict) else None
    if not isinstance(packages, dict):
        raise TreeError("npm's package-lock.json has no `packages`")
    if len(packages) > MAX_PACKAGES:
        raise TreeError(f"npm resolved more than {MAX_PACKAGES} packages")
    records = []
    for path, entry in packages.items():
        if path == "":
            continue
        if not isinstance(entry, dict) or not isinstance(path, str) or not path.startswith("node_modules/"):
            raise TreeError(f"npm's package-lock.json has an entry that is not an installed package: {path[:80]!r}")
        if entry.get("link"):
            raise TreeError(f"npm resolved {path} to a link, which the store cannot hold")
        name = entry.get("name") or path.rpartition("node_modules/")[2]
        record: dict[str, Any] = {"path": _field(path), "name": _field(name), "version": _field(entry.get("version"))}
        integrity = entry.get("integrity")
        if integrity is not None:
            if not isinstance(integrity, str) or not INTEGRITY.fullmatch(integrity) or len(integrity) > MAX_FIELD:
                raise TreeError(f"npm's integrity for {path} is not an SRI string")
            record["integrity"] = integrity
        if entry.get("hasInstallScript") is True:
            record["installScript"] = True
        records.append(record)
    return tree_record(NPM, records)


def uv_tree(requirements: str) -> dict[str, Any]:
    """The tree of uv's hashed requirements (`uv pip compile --generate-hashes`): each package once, with the
    sha256 of every file the index published for its version."""
    records: dict[tuple[str, str], dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in requirements.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        found = REQUIREMENT.match(stripped)
        if found:
            name = _normalised(found[1])
            version = _field(found[2])
            current = records.setdefault((name, version), {"name": _field(name), "version": version, "sha256": []})
        if current is None:
            raise TreeError(f"uv's requirements have a line this reader does not know: {stripped[:80]!r}")
        current["sha256"] += HASH.findall(stripped)
        if len(records) > MAX_PACKAGES or len(current["sha256"]) > MAX_PACKAGES:
            raise TreeError(f"uv resolved more than {MAX_PACKAGES} packages or files")
    for record in records.values():
        if not record["sha256"]:
            raise TreeError(f"uv gave no sha256 for {record['name']}=={record['version']}")
        record["sha256"] = sorted(set(record["sha256"]))
    return tree_record(UV, list(records.values()))


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
            _normalised(name),
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


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _field(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_FIELD:
        raise TreeError(f"the resolution has a missing or oversized name, version or path: {str(value)[:80]!r}")
    return value
