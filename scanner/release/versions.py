"""Semantic versions: parsing, the bump between two of them (Cargo's rule below 1.0.0), and manifest versions.

The bump a release *makes* is measured on MAJOR.MINOR.PATCH only; pre-release and build metadata are
ignored. Below 1.0.0 the left-most non-zero component is the one that breaks (Cargo's compatibility rule):

* 1.2.3 → 2.0.0 is major, → 1.3.0 minor, → 1.2.4 patch;
* 0.y.z (y ≥ 1) → 0.(y+1).0 counts as major, → 0.y.(z+1) as minor (it may add, it must not break);
* 0.0.z → anything higher counts as major;
* 0.x → 1.0.0 is major.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.diff.change import Bump

# SemVer 2.0.0, from semver.org (no leading zeros; optional pre-release and build metadata).
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)
MAX_VERSION_LENGTH = 256  # a longer "version" is not one; keeps hostile input out of the regex
MAX_MANIFEST_BYTES = 1_000_000
MANIFESTS = ("package.json", "pyproject.toml", "server.json")


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def parse_version(text: Any) -> Version | None:
    """The MAJOR.MINOR.PATCH of a SemVer 2.0.0 string; None for anything else (a leading `v` included)."""
    if not isinstance(text, str) or len(text) > MAX_VERSION_LENGTH:
        return None
    match = SEMVER.fullmatch(text)
    if match is None:
        return None
    return Version(int(match[1]), int(match[2]), int(match[3]))


def bump_made(old: Version, new: Version) -> Bump:
    """The bump from `old` to `new` by Cargo's rule (module docstring); "none" when `new` is not higher."""
    if new <= old:
        return "none"
    if new.major != old.major:
        return "major"
    if old.major == 0:
        if old.minor == 0:
            return "major"
        return "major" if new.minor != old.minor else "minor"
    return "minor" if new.minor != old.minor else "patch"


@dataclass(frozen=True)
class ManifestVersion:
    file: Path
    field: str  # e.g. "version", "[project].version"
    value: Any  # as written: may be absent (None) or not a string


def manifest_versions(directory: Path) -> list[ManifestVersion]:
    """The versions the package manifests in `directory` publish (files without one are left out)."""
    found: list[ManifestVersion] = []
    for name in MANIFESTS:
        path = directory / name
        data = _read(path)
        if data is None:
            continue
        if name == "pyproject.toml":
            found += _pyproject_versions(path, data)
        elif isinstance(data, dict) and "version" in data:
            found.append(ManifestVersion(path, "version", data["version"]))
    return found


def _pyproject_versions(path: Path, data: Any) -> list[ManifestVersion]:
    versions: list[ManifestVersion] = []
    project = data.get("project") if isinstance(data, dict) else None
    if isinstance(project, dict) and "version" in project:
        versions.append(ManifestVersion(path, "[project].version", project["version"]))
    tool = data.get("tool") if isinstance(data, dict) else None
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict) and "version" in poetry:
        versions.append(ManifestVersion(path, "[tool.poetry].version", poetry["version"]))
    return versions


def _read(path: Path) -> Any:
    """The parsed manifest; None when it is absent, a link, too large or does not parse."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
        return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
