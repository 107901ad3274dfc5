"""Detector verdicts kept across runs: the pinned definitions in which no per-definition detector found anything.

Why: `check` rescans every pin on every run (what is pinned stays judged), and at thousands of definitions
that scan is most of its work, while an unchanged definition judged by unchanged detectors gets the same
answer. So a definition found clean is remembered by a key binding (a) the detectors: the bytes of their
code, catalogue and word lists, and the Python and Unicode versions their regexes run on, and (b) its kind
and canonical digest, which the caller has recomputed from the definition itself (the lock reader verifies
every digest; a live pin's is computed). Only "nothing found" is remembered; a definition with any hit, or
any text a cross-tool check must read against the other servers' names, is scanned on every run.

The file lives in the user's cache directory ($MCP_LOCK_CACHE_DIR, else $XDG_CACHE_HOME/mcp-lock, else
~/.cache/mcp-lock), never in the repository (a cache folder inside it is not used) and never in the lock. It is
self-checked (magic, detector key, entry count, SHA-256 of the whole) and read only when it is a regular file
owned by this user and writable by nobody else, in such a folder: a corrupted, truncated, foreign-version or
unsafe file is ignored and every definition is scanned, so a bad file costs time only. A forged file needs the
user's own write access, which could as well replace mcp-lock itself.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import sys
import time
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path

from scanner.files.safe_write import replace_atomically

MAGIC = b"mcp-lock clean verdicts v1\n"
ENTRY = 32  # bytes: a SHA-256
MAX_ENTRIES = 1 << 20  # 32 MiB at most; a larger file is not read
STALE_DAYS = 30  # files of other detector versions untouched this long are removed on write
CACHE_ENV = "MCP_LOCK_CACHE_DIR"

# What the verdicts depend on: the detectors' own files, and the caller that decides what they are run on.
_PACKAGE = Path(__file__).resolve().parent
_CALLERS = (_PACKAGE.parent / "diff" / "suspicious.py",)


def cache_dir(environ: Mapping[str, str]) -> Path | None:
    """Where verdicts are kept for this user, or None (`MCP_LOCK_CACHE_DIR` set empty: no cache)."""
    if CACHE_ENV in environ:
        return Path(environ[CACHE_ENV]) if environ[CACHE_ENV] else None
    base = environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        home = environ.get("HOME") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "mcp-lock"


@functools.cache
def detector_key() -> bytes:
    """SHA-256 over everything a verdict depends on; None of it read from the repository."""
    h = hashlib.sha256(MAGIC)
    h.update(f"{sys.version}\0{unicodedata.unidata_version}\0".encode())
    files = sorted(p for p in _PACKAGE.iterdir() if p.suffix in (".py", ".yaml", ".json"))
    for path in (*files, *_CALLERS):
        data = path.read_bytes()
        h.update(f"{path.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.digest()


def entry_key(kind: str, digest: str) -> bytes:
    """The entry of a definition of `kind` whose canonical digest is `digest`, under these detectors."""
    return hashlib.sha256(detector_key() + f"\0{kind}\0{digest}".encode()).digest()


class Verdicts:
    """The clean verdicts of one detector version, read from `folder` (None: remember nothing)."""

    def __init__(self, folder: Path | None, repo: Path | None = None) -> None:
        self.folder = folder if folder is not None and _outside(folder, repo) else None
        self._known: set[bytes] = set()
        self._added: set[bytes] = set()
        self._path = self.folder / f"clean-{detector_key().hex()[:32]}.bin" if self.folder else None
        if self._path is not None:
            with contextlib.suppress(OSError, ValueError):
                self._known = _read(self._path)

    @property
    def empty(self) -> bool:
        return not self._known

    def is_clean(self, kind: str, digest: str) -> bool:
        return entry_key(kind, digest) in self._known

    def add(self, kind: str, digest: str) -> None:
        key = entry_key(kind, digest)
        if key not in self._known:
            self._added.add(key)

    def save(self) -> None:
        """Write what was learnt (atomically); a failure to write costs the next run time, nothing else."""
        if self._path is None or not self._added:
            return
        entries = sorted(self._known | self._added)[-MAX_ENTRIES:]
        with contextlib.suppress(OSError):
            _make_private_folder(self._path.parent)
            replace_atomically(str(self._path.parent), self._path.name, _encode(entries), 0o600)
            self._known |= self._added
            self._added.clear()
            _remove_stale(self._path)


def _outside(folder: Path, repo: Path | None) -> bool:
    """Never inside the repository: its files are the change under review's to write."""
    if repo is None:
        return True
    here, there = os.path.realpath(folder), os.path.realpath(repo)
    return os.path.commonpath([here, there]) != there


def _encode(entries: Iterable[bytes]) -> bytes:
    body = b"".join(entries)
    head = MAGIC + detector_key() + (len(body) // ENTRY).to_bytes(8, "big")
    return head + body + hashlib.sha256(head + body).digest()


def _read(path: Path) -> set[bytes]:
    """The entries of a sound file, or an empty set: anything doubtful is not used."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return set()
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        head = len(MAGIC) + ENTRY + 8
        if not (_private(info) and stat.S_ISREG(info.st_mode) and _private(os.stat(path.parent))):
            return set()
        if info.st_size > head + MAX_ENTRIES * ENTRY + ENTRY:
            return set()
        data = handle.read(info.st_size + 1)
    body, check = data[:-ENTRY], data[-ENTRY:]
    if len(data) < head + ENTRY or hashlib.sha256(body).digest() != check:
        return set()
    if body[: len(MAGIC)] != MAGIC or body[len(MAGIC) : len(MAGIC) + ENTRY] != detector_key():
        return set()
    count = int.from_bytes(body[head - 8 : head], "big")
    entries = body[head:]
    if len(entries) != count * ENTRY:
        return set()
    return {entries[i : i + ENTRY] for i in range(0, len(entries), ENTRY)}


def _private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else (as ssh asks of its files)."""
    getuid = getattr(os, "getuid", None)
    return (getuid is None or info.st_uid == getuid()) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _make_private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or not _private(info):
        raise OSError(f"{folder}: not a private folder")


def _remove_stale(current: Path) -> None:
    cutoff = time.time() - STALE_DAYS * 86400
    for other in current.parent.glob("clean-*.bin"):
        with contextlib.suppress(OSError):
            if other != current and other.lstat().st_mtime < cutoff:
                other.unlink()
