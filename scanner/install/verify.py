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
  hashed against the manifest and, if they match, the manifest sealed anew. The manifest is laid out for
  that check (format 2): the paths, the contents, and the stats as one packed array, so that reading it is a
  few splits and the stats of every path are compared in one step (bench/README.md, the 28 real servers).
* An entry without a manifest, with a broken seal (another machine's, or forged), or with other content is
  never booted: the caller removes it and installs the tree again from the lock, where npm and uv check each
  download against the lock's integrity records.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import itertools
import json
import operator
import os
import secrets
import stat
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

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
FORMAT = b"mcp-lock manifest 2\n"  # format 1 (one JSON document) is not read: such an entry is installed again
# Per listed path, in one packed array: its whole st_mode (type and permission bits), size, inode and change
# time. The warm check packs what lstat says now the same way and compares the two arrays in one step.
STAT = struct.Struct("<IQQq")
IDENTITY = operator.attrgetter("st_mode", "st_size", "st_ino", "st_ctime_ns")


@dataclass(frozen=True)
class Manifest:
    """What an entry held when it was sealed. `paths` are relative, as the file system spells them (bytes),
    the entry folder's own names first (`top` of them); `stats` packs each one's STAT; `contents` gives each
    one's content: a file's sha256, a link's target, a folder's b""."""

    tree: str
    total: int  # bytes of the files listed
    top: int
    paths: list[bytes]
    stats: bytes
    contents: list[bytes]


def manifest(entry: Path, tree_digest: str) -> Manifest:
    """What `entry` holds now: every path below it with its type, mode, size, content and stat."""
    paths: list[bytes] = []
    stats: list[bytes] = []
    contents: list[bytes] = []
    total = top = 0
    base = os.fsencode(entry) + b"/"
    for relative, info in _walk(base):
        kind = stat.S_IFMT(info.st_mode)
        if stat.S_ISREG(kind):
            contents.append(_file_digest(base + relative).encode())
            total += info.st_size
        elif stat.S_ISLNK(kind):
            contents.append(os.readlink(base + relative))
        elif stat.S_ISDIR(kind):
            contents.append(b"")
        else:
            raise OSError(f"{os.fsdecode(relative)} is neither a file, a folder nor a link")
        top += b"/" not in relative
        paths.append(relative)
        stats.append(STAT.pack(*IDENTITY(info)))
    return Manifest(tree_digest, total, top, paths, b"".join(stats), contents)


def sealed(document: Manifest, key: bytes) -> bytes:
    """The manifest's bytes with its seal: a JSON header line, then the paths and the contents (each
    NUL-separated: no path or link target holds a NUL) and the packed stats, the sections' sizes in the header."""
    paths, contents = b"\0".join(document.paths), b"\0".join(document.contents)
    header = {"bytes": document.total, "contents": len(contents), "count": len(document.paths),
              "paths": len(paths), "top": document.top, "tree": document.tree}
    body = FORMAT + json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    body += paths + contents + document.stats
    return hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b"\n" + body


def unsealed(data: bytes, key: bytes) -> Manifest | None:
    """The manifest these bytes hold, when their seal is this key's and they are whole; else None."""
    seal, _, body = data.partition(b"\n")
    if not hmac.compare_digest(seal, hmac.new(key, body, hashlib.sha256).hexdigest().encode()):
        return None
    if not body.startswith(FORMAT):
        return None
    line, _, rest = body[len(FORMAT):].partition(b"\n")
    try:
        header = json.loads(line)
        count, top, sizes = header["count"], header["top"], (header["paths"], header["contents"])
        tree, total = header["tree"], header["bytes"]
    except (ValueError, TypeError, KeyError):
        return None
    numbers = (count, top, total, *sizes)
    if not isinstance(tree, str) or not all(type(n) is int and n >= 0 for n in numbers):
        return None
    paths, contents = rest[: sizes[0]], rest[sizes[0] : sizes[0] + sizes[1]]
    stats = rest[sizes[0] + sizes[1] :]
    listed = paths.split(b"\0") if count else []
    described = contents.split(b"\0") if count else []
    if len(listed) != count or len(described) != count or len(stats) != count * STAT.size or top > count:
        return None
    return Manifest(tree, total, top, listed, stats, described)


def unchanged(entry: Path, document: Manifest) -> bool:
    """The cheap check: every listed path is still the very inode it was, untouched since (change time), and
    nothing else is below `entry` (a folder's change time moves when an entry is added or removed)."""
    try:
        folder = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        if sorted(_names(folder)) != sorted(document.paths[: document.top]):
            return False
        # A stat per path, relative to the entry's folder: the kernel walks only the path below it.
        now = map(IDENTITY, map(functools.partial(os.lstat, dir_fd=folder), document.paths))
        return b"".join(itertools.starmap(STAT.pack, now)) == document.stats
    except OSError:
        return False
    finally:
        os.close(folder)


def same_content(entry: Path, document: Manifest) -> Manifest | None:
    """The full check: the manifest of `entry` now, when it lists the same paths, types, modes, sizes and
    contents as `document` (only inodes, change times and the order a folder lists its names in differ); else
    None."""
    try:
        now = manifest(entry, document.tree)
    except OSError:
        return None
    return now if _identity(now) == _identity(document) else None


def _identity(document: Manifest) -> dict[bytes, tuple[int, int, bytes]]:
    records = zip(document.paths, STAT.iter_unpack(document.stats), document.contents, strict=True)
    return {path: (mode, size, content) for path, (mode, size, _inode, _changed), content in records}


def _names(folder: int) -> list[bytes]:
    return [os.fsencode(name) for name in os.listdir(folder) if name != MANIFEST]


MANIFEST_NAME = os.fsencode(MANIFEST)


def _walk(base: bytes) -> Iterator[tuple[bytes, os.stat_result]]:
    """Every path below the folder `base` (ending in a slash), relative, its own names first."""
    stack = [b""]
    while stack:
        folder = stack.pop()
        with os.scandir(base + folder if folder else base) as listing:
            for item in listing:
                if not folder and item.name == MANIFEST_NAME:
                    continue
                relative = folder + b"/" + item.name if folder else item.name
                info = item.stat(follow_symlinks=False)
                yield relative, info
                if stat.S_ISDIR(info.st_mode):
                    stack.append(relative)


def _file_digest(path: bytes) -> str:
    digest = hashlib.sha256()
    with open(path, "rb", opener=_no_follow) as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
