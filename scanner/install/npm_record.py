"""npm's package-lock.json as the lock records it (`launch.tree`, lockfile-spec/SPEC.md 1.2.2), and back.

Reading keeps, for every installed package, what `npm ci` needs to install exactly that package at exactly
that place with no resolution: install path, name (when the path does not say it: an alias), version,
integrity, its dependency edges, bins, optional/peer/bundled flags, platform conditions, the install-script
flag and the license. Writing turns such a record back into a package-lock.json (lockfileVersion 3) whose
every entry names its tarball, so `npm ci` fetches each by URL and checks it against the recorded integrity.
Everything read is bounded: package counts, string sizes, edge counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from scanner.files.bounded_json import Bounds, parse
from scanner.install.packages import INTEGRITY, MAX_FIELD, MAX_PACKAGES, NPM, TreeError, field, tree_record

# npm's package-lock.json: 10,000 packages of a few dozen values each, a few levels deep.
NPM_LOCK_BOUNDS = Bounds(bytes=64 * 1024 * 1024, depth=16, values=2_000_000)
MAX_EDGES = 2000  # dependencies (or bins, or platform names) of one package
# Edges and bins: name -> range (or bin name -> file), kept as npm wrote them.
MAPS = ("dependencies", "optionalDependencies", "peerDependencies", "bin")
PLATFORM = ("os", "cpu", "libc")  # lists of names, `!name` to exclude
FLAGS = ("optional", "peer", "inBundle")  # true or absent
ROOT = "mcp-lock-install"  # the name of the empty project a tree is installed in
_GIT = re.compile(r"^(?:git\+|git:|github:|gitlab:|bitbucket:|gist:)")


def unpinned_source(path: str, entry: Mapping[str, Any]) -> str | None:
    """Why no digest pins the content of the package-lock entry at `path` (fetched from git, or with no
    integrity), or None: the one check of it (the record refuses such an entry, and a resolution holding one
    is `dependency-source-refused`: scanner.install.sandboxed.refused_sources). A bundled package arrives inside
    its parent's tarball, which the parent's integrity covers; a link is refused by the record itself."""
    if entry.get("inBundle") or entry.get("link"):
        return None
    resolved = entry.get("resolved")
    shown = path.removeprefix("node_modules/")
    if isinstance(resolved, str) and _GIT.match(resolved):
        return f"{shown} from git ({resolved[:200]})"
    if not isinstance(entry.get("integrity"), str):
        return f"{shown} with no integrity ({str(resolved)[:200]})"
    return None


def unpinned_sources(lock: Any) -> list[str]:
    """`unpinned_source` of every installed package of a parsed package-lock.json."""
    packages = lock.get("packages") if isinstance(lock, dict) else None
    return [
        why for path, entry in (packages.items() if isinstance(packages, dict) else ())
        if path != "" and isinstance(path, str) and isinstance(entry, dict)
        and (why := unpinned_source(path, entry)) is not None
    ]


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
    records = [_package(path, entry) for path, entry in packages.items() if path != ""]
    return tree_record(NPM, records)


def _package(path: Any, entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict) or not isinstance(path, str) or not path.startswith("node_modules/"):
        raise TreeError(f"npm's package-lock.json has an entry that is not an installed package: {str(path)[:80]!r}")
    if entry.get("link"):
        raise TreeError(f"npm resolved {path} to a link, which the store cannot hold")
    name = entry.get("name") or path.rpartition("node_modules/")[2]
    record: dict[str, Any] = {"path": field(path), "name": field(name), "version": field(entry.get("version"))}
    unpinned = unpinned_source(path, entry)
    if unpinned is not None:
        raise TreeError(f"npm resolved {unpinned}: no digest pins its content")
    integrity = entry.get("integrity")
    if integrity is not None:
        if not isinstance(integrity, str) or not INTEGRITY.fullmatch(integrity) or len(integrity) > MAX_FIELD:
            raise TreeError(f"npm's integrity for {path} is not an SRI string")
        record["integrity"] = integrity
    if entry.get("hasInstallScript") is True:
        record["installScript"] = True
    for key in MAPS:
        value = entry.get(key)
        if value is not None:
            record[key] = _map(value, path, key)
    for key in PLATFORM:
        value = entry.get(key)
        if value is not None:
            record[key] = _names(value, path, key)
    record.update({key: True for key in FLAGS if entry.get(key) is True})
    meta = entry.get("peerDependenciesMeta")
    if meta is not None:
        record["peerDependenciesMeta"] = _peer_meta(meta, path)
    license_ = entry.get("license")
    if isinstance(license_, str) and license_:
        record["license"] = field(license_)
    return record


def _map(value: Any, path: str, key: str) -> dict[str, str]:
    if key == "bin" and isinstance(value, str):  # a single bin, named as the package
        value = {path.rpartition("/")[2]: value}
    if not isinstance(value, dict) or len(value) > MAX_EDGES:
        raise TreeError(f"npm's `{key}` of {path} is not a map of at most {MAX_EDGES} names")
    return {field(k): field(v) for k, v in value.items()}


def _peer_meta(value: Any, path: str) -> dict[str, dict[str, bool]]:
    """Which peers are optional (npm's `peerDependenciesMeta`): without it `npm ci` counts a missing optional
    peer as a lock out of sync."""
    if not isinstance(value, dict) or len(value) > MAX_EDGES:
        raise TreeError(f"npm's `peerDependenciesMeta` of {path} is not a map of at most {MAX_EDGES} names")
    return {field(k): {"optional": True} for k, v in value.items() if isinstance(v, dict) and v.get("optional") is True}


def _names(value: Any, path: str, key: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or len(value) > MAX_EDGES:
        raise TreeError(f"npm's `{key}` of {path} is not a list of at most {MAX_EDGES} names")
    return [field(v) for v in value]


def root_dependencies(tree: Mapping[str, Any], names: list[str]) -> dict[str, str]:
    """What the empty project depends on to install `tree` for the launch's packages `names`: each at the
    version its record holds (resolution saved them exact)."""
    top = {p["path"]: p["version"] for p in tree["packages"] if p["path"].count("node_modules/") == 1}
    missing = [name for name in names if f"node_modules/{name}" not in top]
    if missing:
        raise TreeError(f"the recorded tree does not hold the launched package {missing[0]}")
    return {name: top[f"node_modules/{name}"] for name in names}


def npm_files(tree: Mapping[str, Any], names: list[str], registries: Mapping[str, str]) -> tuple[str, str]:
    """The package.json and package-lock.json that make `npm ci` install exactly `tree`; `registries` maps
    "" (the default) and each `@scope` to its registry URL, as the user's npm configuration does."""
    dependencies = root_dependencies(tree, names)
    manifest = {"name": ROOT, "private": True, "dependencies": dependencies}
    packages: dict[str, Any] = {"": {"name": ROOT, "dependencies": dependencies}}
    for package in tree["packages"]:
        entry = {k: v for k, v in package.items() if k not in ("path", "name", "installScript")}
        if package["name"] != package["path"].rpartition("node_modules/")[2]:
            entry["name"] = package["name"]
        if package.get("installScript"):
            entry["hasInstallScript"] = True
        if "integrity" in package:
            entry["resolved"] = tarball_url(package["name"], package["version"], registries)
        packages[package["path"]] = entry
    lock = {"name": ROOT, "lockfileVersion": 3, "requires": True, "packages": packages}
    return json.dumps(manifest, indent=2) + "\n", json.dumps(lock, indent=2) + "\n"


def tarball_url(name: str, version: str, registries: Mapping[str, str]) -> str:
    """Where a registry serves `name@version`'s tarball (the registry's own layout)."""
    scope = name.split("/", 1)[0] if name.startswith("@") else ""
    registry = registries.get(scope) or registries.get("") or ""
    if not registry:
        raise TreeError("npm's configuration names no registry")
    base = name.rsplit("/", 1)[-1]
    return f"{registry.rstrip('/')}/{quote(name, safe='@/')}/-/{quote(base, safe='')}-{quote(version, safe='')}.tgz"


def registries_of(config: Any) -> dict[str, str]:
    """The registries of `npm config list --json`: "" for the default, `@scope` for each scoped one."""
    if not isinstance(config, dict):
        raise TreeError("npm's configuration cannot be read")
    found = {"": config.get("registry")} | {
        key.removesuffix(":registry"): value for key, value in config.items()
        if isinstance(key, str) and key.startswith("@") and key.endswith(":registry")
    }
    return {k: v for k, v in found.items() if isinstance(v, str) and v.startswith(("http://", "https://"))}
