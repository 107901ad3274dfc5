"""What `npx` ran: npm's own record of its install, `$npm_config_cache/_npx/<hash>/package-lock.json`.

The install directory is the one the running server's command line names (`node …/_npx/<hash>/node_modules/.bin/x`)
inside the launch's npm cache: the one npx names for the spec (the first 16 hex digits of the SHA-512 of the
sorted package specs joined by newlines, as libnpmexec computes it) when a process runs from it. When no process
runs from the npx cache (npx found the package in the repository's node_modules or installed globally), an
older install there says nothing about this boot, and nothing is recorded.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from typing import Any

from scanner.artifacts.record import NPM
from scanner.artifacts.view import View
from scanner.files import safe_json
from scanner.files.safe_read import MiB, RefusedFile

INSTALL_DIR = re.compile(r"(/[^\0]*?/_npx/[0-9a-f]{16})/")
RECORD_LIMIT = 32 * MiB  # a package-lock of a few thousand packages is a few MB


def npm_artifact(
    name: str, spec: str, command_lines: Sequence[Sequence[str]], cache: str | None, view: View
) -> dict[str, Any] | None:
    """The npm record of `name` as npx installed it for the launch of `spec`, its paths as `view` sees them;
    None when npm recorded nothing."""
    for folder in _install_dirs(spec, command_lines, cache, view):
        record = installed(view, folder, name)
        if record is not None:
            return record
    return None


def _install_dirs(spec: str, command_lines: Sequence[Sequence[str]], cache: str | None, view: View) -> list[str]:
    """The npx install directories the server's processes run from, in the launch's cache (a process can name
    any path on its command line): npx's own directory for `spec` first, when one of them runs from it."""
    root = view.resolve(os.path.join(cache, "_npx")) if cache else None
    if root is None:
        return []
    named = [m.group(1) for line in command_lines for word in line if (m := INSTALL_DIR.search(word))]
    resolved = [view.resolve(folder) for folder in dict.fromkeys(named)]
    inside = list(dict.fromkeys(f for f in resolved if f is not None and os.path.dirname(f) == root))
    own = os.path.join(root, npx_hash([spec]))
    return sorted(inside, key=lambda folder: folder != own)


def npx_hash(specs: Sequence[str]) -> str:
    """The name npx gives the install directory of these package specs."""
    return hashlib.sha512("\n".join(sorted(specs)).encode("utf-8")).hexdigest()[:16]


def installed(view: View, folder: str, name: str) -> dict[str, Any] | None:
    """`name`'s version and integrity in the install at the resolved `folder` (its package-lock.json, else the
    installed package.json, which has no integrity)."""
    lock = _json(view, f"{folder}/package-lock.json", folder)
    packages = lock.get("packages") if isinstance(lock, dict) else None
    entry = packages.get(f"node_modules/{name}") if isinstance(packages, dict) else None
    integrity = entry.get("integrity") if isinstance(entry, dict) else None
    if not isinstance(entry, dict):
        entry = _json(view, f"{folder}/node_modules/{name}/package.json", folder)
    version = entry.get("version") if isinstance(entry, dict) else None
    if not isinstance(version, str):
        return None
    record: dict[str, Any] = {"type": NPM, "name": name, "version": version}
    if isinstance(integrity, str):
        record["integrity"] = integrity
    return record


def _json(view: View, path: str, inside: str) -> Any:
    """The JSON file at `path`, or None when it cannot be read or is not JSON within the bounds (the install
    wrote it from the registry's answers: hostile input)."""
    try:
        return safe_json.loads(view.read(path, inside, RECORD_LIMIT), limit=RECORD_LIMIT)
    except (RefusedFile, OSError, safe_json.JsonRefused):
        return None
