"""The store: one read-only directory per installed tree, keyed by the tree's digest, in the user's cache
directory (never the repository): `$MCP_LOCK_STORE`, else `$XDG_CACHE_HOME/mcp-lock/store`, else
`~/.cache/mcp-lock/store`.

An entry is installed into a staging folder beside it, made read-only, and renamed into place in one step,
so an entry either is complete or is not there; two boots of one tree at once both install, and the first
rename wins. The store is the cache: a second boot of the same tree finds its entry and downloads nothing.
CI caches the whole folder between runs (keyed by the lock's tree digests).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

RECORD = "mcp-lock-tree.json"  # the tree record an entry holds, written before any package code runs
WRITABLE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def store_root(caller: Mapping[str, str]) -> Path:
    """Where the store lies for the user running mcp-lock."""
    explicit = caller.get("MCP_LOCK_STORE")
    if explicit and os.path.isabs(explicit):
        return Path(explicit)
    cache = caller.get("XDG_CACHE_HOME")
    if not cache or not os.path.isabs(cache):
        cache = os.path.join(caller.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(cache, "mcp-lock", "store")


def entry_name(tree_digest: str) -> str:
    return tree_digest.removeprefix("sha256:")


def ready_entry(root: Path, tree: Mapping[str, object]) -> Path | None:
    """The installed entry of `tree`, when it is there whole: a real folder holding the same record."""
    entry = root / entry_name(str(tree["digest"]))
    try:
        if not stat.S_ISDIR(os.lstat(entry).st_mode):
            return None
        with open(entry / RECORD, encoding="utf-8") as handle:
            recorded = json.load(handle)
    except (OSError, ValueError):
        return None
    return entry if recorded == tree else None


def staging(root: Path, tree: Mapping[str, object]) -> Path:
    """A new private folder to install `tree` into, holding its record first."""
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    (folder / RECORD).write_text(json.dumps(tree, sort_keys=True), encoding="utf-8")
    return folder


def publish(root: Path, folder: Path, tree: Mapping[str, object]) -> Path:
    """Make the installed `folder` read-only and move it into place as `tree`'s entry (or, when another
    boot got there first, keep that one and remove `folder`)."""
    read_only(folder)
    entry = root / entry_name(str(tree["digest"]))
    try:
        os.rename(folder, entry)
    except OSError:
        discard(folder)
        found = ready_entry(root, tree)
        if found is None:
            raise
        return found
    return entry


def discard(folder: Path) -> None:
    """Remove a staging folder, read-only or not."""
    for path, dirs, _files in os.walk(folder):
        for name in (path, *(os.path.join(path, d) for d in dirs)):
            try:
                os.chmod(name, os.lstat(name).st_mode | stat.S_IWUSR)
            except OSError:
                continue
    shutil.rmtree(folder, ignore_errors=True)


def read_only(folder: Path) -> None:
    """Take every write bit off `folder` and what it holds (links are left alone: their mode is not used)."""
    for path, dirs, files in os.walk(folder, topdown=False):
        for name in (*files, *dirs):
            _drop_write(os.path.join(path, name))
    _drop_write(str(folder))


def _drop_write(path: str) -> None:
    mode = os.lstat(path).st_mode
    if not stat.S_ISLNK(mode):
        os.chmod(path, stat.S_IMODE(mode) & ~WRITABLE)
