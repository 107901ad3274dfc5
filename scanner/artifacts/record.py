"""The resolved artifact of a launch as the lock records it (`launch.artifact`, lockfile-spec/SPEC.md 1.2.1).

One JSON object, by `type`:
  npm:   {"type", "name", "version", "integrity"?}   integrity: npm's SRI string (the registry's dist.integrity)
  pypi:  {"type", "name", "version", "sha256"?, "file"?}   the wheel's sha256 (hex) and file name
  image: {"type", "name", "digest"}   the image reference as launched and the registry digest pulled
  file:  {"type", "path", "sha256"}   a local script the launch names, repository-relative
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

NPM, PYPI, IMAGE, FILE = "npm", "pypi", "image", "file"
# The field that identifies an artifact's content, per type.
CONTENT_FIELD = {NPM: "integrity", PYPI: "sha256", IMAGE: "digest", FILE: "sha256"}
SHOWN_DIGEST = 19  # characters of a digest shown in a one-line message


def normalised(name: str) -> str:
    """PEP 503's normalised name: lower case, runs of `-_.` as one `-`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def content(artifact: Mapping[str, Any]) -> str | None:
    """The artifact's content digest (integrity, sha256 or image digest); None when it was not recorded."""
    value = artifact.get(CONTENT_FIELD.get(str(artifact.get("type")), ""))
    return value if isinstance(value, str) else None


def describe(artifact: Mapping[str, Any], *, full: bool = False, tree: Mapping[str, Any] | None = None) -> str:
    """One line: `npm pkg@1.2.3 (sha512-AbC…)`; `full` keeps the whole digest. A PyPI record without its own
    digest shows the sha256 of each file the launch's `tree` pins for that version (uv installs one of them)."""
    kind = artifact.get("type")
    name = artifact.get("path") if kind == FILE else artifact.get("name")
    version = artifact.get("version")
    text = f"{kind} {name}" + (f"@{version}" if isinstance(version, str) else "")
    digest = content(artifact)
    pinned = tree_digests(artifact, tree) if digest is None and kind == PYPI else []
    if pinned:
        shown = [h if full else h[:SHOWN_DIGEST] + "…" for h in pinned]
        return f"{text} (sha256 of the {len(pinned)} file(s) the tree pins: {', '.join(shown)})"
    if digest is None:
        return text + " (no digest recorded)"
    return f"{text} ({digest if full or len(digest) <= SHOWN_DIGEST else digest[:SHOWN_DIGEST] + '…'})"


def same_artifact(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two records name the same content. A PyPI record of another wheel file of the same version
    (another platform's build) is the same release, not a changed one; a missing digest compares by version."""
    if old.get("type") != new.get("type") or old.get("name") != new.get("name") or old.get("path") != new.get("path"):
        return False
    if old.get("version") != new.get("version"):
        return False
    if old.get("type") == PYPI and old.get("file") != new.get("file"):
        return True
    old_digest, new_digest = content(old), content(new)
    return old_digest is None or new_digest is None or old_digest == new_digest


def tree_digests(artifact: Mapping[str, Any], tree: Mapping[str, Any] | None) -> list[str]:
    """The sha256 of each file a uv tree pins for the artifact's name and version (none without such a record)."""
    if not tree or tree.get("manager") != "uv" or not isinstance(artifact.get("name"), str):
        return []
    for package in tree.get("packages") or []:
        if (isinstance(package, Mapping) and package.get("name") == normalised(artifact["name"])
                and package.get("version") == artifact.get("version")):
            listed = package.get("sha256")
            return [h for h in listed if isinstance(h, str)] if isinstance(listed, list) else []
    return []
