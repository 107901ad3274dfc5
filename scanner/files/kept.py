"""Verdicts kept across runs in the user's cache folder: sets of 32-byte entries, one file per name and key.

Why: some of mcp-lock's judgements of what a repository holds are pure functions of bytes and of mcp-lock's own
code (a detector's verdict on a definition, whether a lock text is its canonical rendering), and recomputing them
on every run is most of a check at thousands of definitions. Such a judgement is kept under a key binding the
code that made it (the caller's `key`: a digest of its source) and an entry binding what it judged (a digest the
caller computed from the bytes themselves). Only a favourable judgement is kept, so a missing entry means "judge
again", never "bad".

The file lives in the user's cache folder ($MCP_LOCK_CACHE_DIR, else $XDG_CACHE_HOME/mcp-lock, else
~/.cache/mcp-lock), never in the repository (a cache folder inside it is not used) and never in the lock. It is
authenticated (magic, name, key, entry count, and an HMAC-SHA256 of the whole keyed by a secret of this user's,
`verdict-key` beside it: 32 random bytes, mode 0600, created atomically and never replaced) and read only when it
is a regular file owned by this user and writable by nobody else, in such a folder, without following a link: a
corrupted, truncated, foreign-version, unsafe or forged file (one made without the secret) is ignored and
everything is judged again, so a bad file costs time only. Without a usable secret nothing is kept.

When the caller gave a cache key (scanner.files.cache_key: CI, whose cache folder is restored from a cache others
can write), the secret is the one derived from it, and `verdict-key` is neither read nor written: a file the
restore brought is never what authenticates it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from scanner.files import cache_key
from scanner.files.safe_write import replace_atomically

MAGIC = b"mcp-lock kept verdicts v1\n"
ENTRY = 32  # bytes: a SHA-256
MAX_ENTRIES = 1 << 20  # 32 MiB at most; a larger file is not read
STALE_DAYS = 30  # files of other code versions untouched this long are removed on write
CACHE_ENV = "MCP_LOCK_CACHE_DIR"
SECRET_FILE = "verdict-key"  # in the cache folder: what authenticates every kept file
SECRET_BYTES = 32


def cache_dir(environ: Mapping[str, str]) -> Path | None:
    """Where verdicts are kept for this user, or None (`MCP_LOCK_CACHE_DIR` set empty: nowhere)."""
    if CACHE_ENV in environ:
        return Path(environ[CACHE_ENV]) if environ[CACHE_ENV] else None
    base = environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        home = environ.get("HOME") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "mcp-lock"


class Kept:
    """The entries kept under `name` by the code whose digest is `key`, read from `folder` (None: keep none)."""

    def __init__(self, folder: Path | None, repo: Path | None, name: str, key: bytes) -> None:
        self.folder = folder if folder is not None and _outside(folder, repo) else None
        self.name, self.key = name, key
        self._known: set[bytes] = set()
        self._added: set[bytes] = set()
        self._path = self.folder / f"{name}-{key.hex()[:32]}.bin" if self.folder else None
        self._secret: bytes | None = None
        if self._path is not None:
            with contextlib.suppress(OSError, ValueError):
                self._secret = cache_key.derived(cache_key.VERDICTS) or _read_secret(self._path.parent)
                if self._secret is not None:
                    self._known = _read(self._path, name, key, self._secret)

    @property
    def empty(self) -> bool:
        return not self._known

    def __contains__(self, entry: bytes) -> bool:
        return entry in self._known

    def add(self, entry: bytes) -> None:
        if entry not in self._known:
            self._added.add(entry)

    def save(self) -> None:
        """Write what was learnt (atomically); a failure to write costs the next run time, nothing else."""
        if self._path is None or not self._added:
            return
        entries = sorted(self._known | self._added)[-MAX_ENTRIES:]
        with contextlib.suppress(OSError):
            _make_private_folder(self._path.parent)
            secret = self._secret or _secret(self._path.parent)
            data = _encode(entries, self.name, self.key, secret)
            replace_atomically(str(self._path.parent), self._path.name, data, 0o600)
            self._known |= self._added
            self._added.clear()
            _remove_stale(self._path, self.name)


def _outside(folder: Path, repo: Path | None) -> bool:
    """Never inside the repository: its files are the change under review's to write."""
    if repo is None:
        return True
    here, there = os.path.realpath(folder), os.path.realpath(repo)
    return os.path.commonpath([here, there]) != there


def _head(name: str, key: bytes) -> bytes:
    return MAGIC + name.encode() + b"\0" + key


def _encode(entries: Iterable[bytes], name: str, key: bytes, secret: bytes) -> bytes:
    body = b"".join(entries)
    head = _head(name, key) + (len(body) // ENTRY).to_bytes(8, "big")
    return head + body + hmac.digest(secret, head + body, hashlib.sha256)


def _secret(folder: Path) -> bytes:
    """The user's secret in `folder`, made (atomically, 0600, never replacing one) when there is none."""
    found = _read_secret(folder)
    if found is not None:
        return found
    path = folder / SECRET_FILE
    temporary = folder / f".{SECRET_FILE}.{secrets.token_hex(8)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(SECRET_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another run made one first: theirs is the one
            os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    found = _read_secret(folder)
    if found is None:
        raise OSError(f"{path}: not a private secret")
    return found


def _read_secret(folder: Path) -> bytes | None:
    """The secret, when it is a private regular file of exactly SECRET_BYTES in a private folder."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder / SECRET_FILE, flags)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        readable_by_others = info.st_mode & (stat.S_IRGRP | stat.S_IROTH)
        if not (_private(info) and stat.S_ISREG(info.st_mode) and _private(os.stat(folder))) or readable_by_others:
            return None
        data = handle.read(SECRET_BYTES + 1)
    return data if len(data) == SECRET_BYTES else None


def _read(path: Path, name: str, key: bytes, secret: bytes) -> set[bytes]:
    """The entries of a sound file, or an empty set: anything doubtful is not used."""
    expected = _head(name, key)
    head = len(expected) + 8
    body = _authentic(path, head + MAX_ENTRIES * ENTRY + ENTRY, secret)
    if body is None or len(body) < head or body[: len(expected)] != expected:
        return set()
    count = int.from_bytes(body[head - 8 : head], "big")
    entries = body[head:]
    if len(entries) != count * ENTRY:
        return set()
    return {entries[i : i + ENTRY] for i in range(0, len(entries), ENTRY)}


def _authentic(path: Path, limit: int, secret: bytes) -> bytes | None:
    """The file's bytes before its HMAC, when it is a private regular file (no link followed) of at most `limit`
    bytes whose HMAC-SHA256 under `secret` matches; None otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not (_private(info) and stat.S_ISREG(info.st_mode) and _private(os.stat(path.parent))):
            return None
        if info.st_size > limit:
            return None
        data = handle.read(info.st_size + 1)
    body, check = data[:-ENTRY], data[-ENTRY:]
    if len(data) < ENTRY or not hmac.compare_digest(hmac.digest(secret, body, hashlib.sha256), check):
        return None
    return body


# --- one value kept whole (a table built from packaged data), authenticated as the verdict files are ---

BLOB_MAGIC = b"mcp-lock kept value v1\n"
MAX_BLOB = 16 << 20


def read_value(folder: Path | None, repo: Path | None, name: str, key: bytes) -> bytes | None:
    """The bytes `save_value` kept under `name` and `key` in `folder`, when its file is sound (as `Kept` reads its
    own: private, no link followed, authenticated by the user's secret); None: build it again."""
    path = _value_path(folder, repo, name, key)
    if path is None:
        return None
    with contextlib.suppress(OSError, ValueError):
        secret = cache_key.derived(cache_key.VERDICTS) or _read_secret(path.parent)
        body = _authentic(path, MAX_BLOB, secret) if secret is not None else None
        expected = _value_head(name, key)
        if body is not None and body[: len(expected)] == expected:
            size = int.from_bytes(body[len(expected) : len(expected) + 8], "big")
            value = body[len(expected) + 8 :]
            return value if len(value) == size else None
    return None


def save_value(folder: Path | None, repo: Path | None, name: str, key: bytes, value: bytes) -> None:
    """Keep `value` (atomically); a failure to write costs the next run time, nothing else."""
    path = _value_path(folder, repo, name, key)
    if path is None or len(value) > MAX_BLOB - 1024:
        return
    with contextlib.suppress(OSError):
        _make_private_folder(path.parent)
        secret = cache_key.derived(cache_key.VERDICTS) or _secret(path.parent)
        body = _value_head(name, key) + len(value).to_bytes(8, "big") + value
        replace_atomically(str(path.parent), path.name, body + hmac.digest(secret, body, hashlib.sha256), 0o600)
        _remove_stale(path, name)


def _value_path(folder: Path | None, repo: Path | None, name: str, key: bytes) -> Path | None:
    return folder / f"{name}-{key.hex()[:32]}.bin" if folder is not None and _outside(folder, repo) else None


def _value_head(name: str, key: bytes) -> bytes:
    return BLOB_MAGIC + name.encode() + b"\0" + key


def _private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else (as ssh asks of its files)."""
    getuid = getattr(os, "getuid", None)
    return (getuid is None or info.st_uid == getuid()) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _make_private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or not _private(info):
        raise OSError(f"{folder}: not a private folder")


def _remove_stale(current: Path, name: str) -> None:
    cutoff = time.time() - STALE_DAYS * 86400
    for other in current.parent.glob(f"{name}-*.bin"):
        with contextlib.suppress(OSError):
            if other != current and other.lstat().st_mtime < cutoff:
                other.unlink()
