"""What an installed store entry holds, sealed when it is installed, and checked before every boot.

A store folder is a cache: CI restores it from elsewhere, and a server run with `sandbox: off` can write to
it. So an entry boots only when it is exactly what mcp-lock installed from the lock's record:

* At install time, once npm or uv (and any install script, sandboxed) is done and before the entry is made
  read-only and published, every file, folder and link of it is listed with its type, mode, size, content
  sha256 (a link: its target) and its inode and change time. The manifest names the tree digest, and is
  sealed with an HMAC under a key of this machine's user, kept outside the store (`$XDG_STATE_HOME/mcp-lock`,
  else `~/.local/state/mcp-lock`), or under the key the caller gave (scanner.files.cache_key, a CI secret):
  a cache restore brings entries and manifests, never the key.
* Before a boot, the seal is checked, then each listed path's inode, change time, size and mode. The kernel
  sets a change time on every write, chmod, rename or link into a folder, and no unprivileged process can
  set it back, so a rewritten or added file shows without reading any content: the warm check is a stat per
  file. Only when the stat differs with the seal intact (the same machine copied the entry) are the contents
  hashed against the manifest and, if they match, the manifest sealed anew.
* An entry without a manifest, with a broken seal (another machine's, or forged), or with other content is
  never booted: the caller removes it and installs the tree again from the lock, where npm and uv check each
  download against the lock's integrity records.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from scanner.files import cache_key

KEY_BYTES = 32
MANIFEST_LIMIT = 256 * 1024 * 1024  # bytes of one manifest read back (a tree of a few hundred thousand files)
CHUNK = 1024 * 1024


def state_folder(caller: Mapping[str, str]) -> Path:
    state = caller.get("XDG_STATE_HOME")
    if not state or not os.path.isabs(state):
        state = os.path.join(caller.get("HOME") or os.path.expanduser("~"), ".local", "state")
    return Path(state, "mcp-lock")


def seal_key(caller: Mapping[str, str]) -> bytes:
    """The key the caller gave (scanner.files.cache_key: CI restoring the store from a cache), else this user's
    store key, made on first use (0600, never through a link)."""
    given = cache_key.derived(cache_key.STORE)
    if given is not None:
        return given
    folder = state_folder(caller)
    path = folder / "store.key"
    try:
        with open(path, "rb", opener=_no_follow) as handle:
            key = handle.read(KEY_BYTES + 1)
        if len(key) == KEY_BYTES:
            return key
    except OSError:
        pass
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = secrets.token_bytes(KEY_BYTES)
    temporary = folder / f".store.key.{secrets.token_hex(8)}"
    with open(temporary, "xb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW, 0o600)) as handle:
        handle.write(key)
    os.replace(temporary, path)
    return key


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)


MANIFEST = "mcp-lock-manifest"  # the sealed manifest, in the entry's own folder and not listed in itself


def manifest(entry: Path, tree_digest: str) -> dict[str, Any]:
    """What `entry` holds now: every path below it with its type, mode, size, content and stat (the folder
    itself: the names it holds, as its change time moves when it is renamed into place)."""
    files: dict[str, list[Any]] = {}
    total = 0
    for relative, info in _walk(entry):
        if relative == "":
            files[""] = [stat.S_IFDIR, 0, 0, sorted(_names(entry))]
            continue
        kind = stat.S_IFMT(info.st_mode)
        if stat.S_ISREG(kind):
            content = _file_digest(entry / relative)
            total += info.st_size
        elif stat.S_ISLNK(kind):
            content = os.readlink(entry / relative)
        elif stat.S_ISDIR(kind):
            content = ""
        else:
            raise OSError(f"{relative} is neither a file, a folder nor a link")
        files[relative] = [kind, stat.S_IMODE(info.st_mode), info.st_size, content, *_fingerprint(info)]
    return {"tree": tree_digest, "bytes": total, "files": files}


def sealed(document: dict[str, Any], key: bytes) -> bytes:
    """The manifest's bytes with its seal."""
    body = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b"\n" + body


def unsealed(data: bytes, key: bytes) -> dict[str, Any] | None:
    """The manifest these bytes hold, when their seal is this key's; else None."""
    seal, _, body = data.partition(b"\n")
    if not hmac.compare_digest(seal, hmac.new(key, body, hashlib.sha256).hexdigest().encode()):
        return None
    try:
        document = json.loads(body)
    except ValueError:
        return None
    return document if isinstance(document, dict) and isinstance(document.get("files"), dict) else None


def unchanged(entry: Path, document: Mapping[str, Any]) -> bool:
    """The cheap check: every listed path is still the very inode it was, untouched since (change time),
    and nothing else is below `entry` (a folder's change time moves when an entry is added or removed)."""
    files: Mapping[str, list[Any]] = document["files"]
    try:
        if "" not in files or sorted(_names(entry)) != files[""][3]:
            return False
    except OSError:
        return False
    base, lstat, fmt, imode = str(entry) + os.sep, os.lstat, stat.S_IFMT, stat.S_IMODE  # a stat per path: kept tight
    for relative, recorded in files.items():
        if not relative:
            continue
        try:
            info = lstat(base + relative)
        except OSError:
            return False
        kind, mode, size, _content, inode, changed = recorded
        if (fmt(info.st_mode), imode(info.st_mode), info.st_size, info.st_ino, info.st_ctime_ns) != (
            kind, mode, size, inode, changed
        ):
            return False
    return True


def same_content(entry: Path, document: Mapping[str, Any]) -> dict[str, Any] | None:
    """The full check: the manifest of `entry` now, when it lists the same paths, types, modes, sizes and
    contents as `document` (only inodes and change times differ); else None."""
    try:
        now = manifest(entry, str(document.get("tree")))
    except OSError:
        return None
    strip = lambda files: {k: v[:4] for k, v in files.items()}  # noqa: E731
    return now if strip(now["files"]) == strip(document["files"]) else None


def _names(entry: Path) -> list[str]:
    return [name for name in os.listdir(entry) if name != MANIFEST]


def _walk(entry: Path) -> Iterator[tuple[str, os.stat_result]]:
    yield "", os.lstat(entry)
    stack = [""]
    while stack:
        folder = stack.pop()
        with os.scandir(entry / folder if folder else entry) as listing:
            for item in listing:
                if not folder and item.name == MANIFEST:
                    continue
                relative = f"{folder}/{item.name}" if folder else item.name
                info = item.stat(follow_symlinks=False)
                yield relative, info
                if stat.S_ISDIR(info.st_mode):
                    stack.append(relative)


def _fingerprint(info: os.stat_result) -> list[int]:
    return [info.st_ino, info.st_ctime_ns]


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb", opener=_no_follow) as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
