"""The store: one read-only directory per installed tree, keyed by what installs of it (`install_digest`), in the
user's cache directory (never the repository): `$MCP_LOCK_STORE`, else `$XDG_CACHE_HOME/mcp-lock/store`, else
`~/.cache/mcp-lock/store`.

An entry is installed into a staging folder beside it, sealed (scanner.install.verify), made read-only and
renamed into place in one step, so an entry either is complete or is not there; two boots of one tree at once
both install, and the first rename wins. Before a boot the entry is verified against its sealed manifest: one
that fails is removed, never booted, and the tree is installed again from the lock. The store is bounded:
past the policy's `store-mib`, the entries used least recently are removed (`.used/<entry>` records a use).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from scanner.install import verify
from scanner.lock.canonical import tree_digest

WRITABLE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
USED = ".used"  # one empty file per entry, its modification time the entry's last use
DEFAULT_STORE_MIB = 8192  # a few dozen real servers' trees (the largest measured: about 300 MiB)


def store_root(caller: Mapping[str, str]) -> Path:
    """Where the store lies for the user running mcp-lock."""
    explicit = caller.get("MCP_LOCK_STORE")
    if explicit and os.path.isabs(explicit):
        return Path(explicit)
    cache = caller.get("XDG_CACHE_HOME")
    if not cache or not os.path.isabs(cache):
        cache = os.path.join(caller.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(cache, "mcp-lock", "store")


# What a package record holds about a release that no install reads and that is recorded after the tree was
# installed (scanner.run.registry_facts: npm's license comes with npm's resolution, uv's from the index later),
# so adding it must not make the installed entry another one.
NOT_INSTALLED = {"npm": ("provenance",), "uv": ("provenance", "license")}


def install_digest(tree: Mapping[str, object]) -> str:
    """The digest of what installs from `tree`: its digest over the records less NOT_INSTALLED (a tree without
    them: its own digest, so entries made before these were recorded stay found)."""
    packages, dropped = tree.get("packages"), NOT_INSTALLED.get(str(tree.get("manager")), ())
    if not isinstance(packages, list) or not any(
        isinstance(p, dict) and any(k in p for k in dropped) for p in packages
    ):
        return str(tree["digest"])
    stripped = [{k: v for k, v in p.items() if k not in dropped} for p in packages]
    form = tree.get("format")
    return tree_digest(str(tree["manager"]), stripped, form if isinstance(form, int) else None)


def entry_name(digest: str) -> str:
    return digest.removeprefix("sha256:")


def ready_entry(root: Path, tree: Mapping[str, object], key: bytes) -> Path | None:
    """The installed entry of `tree`, when it is there and verifies (scanner.install.verify); an entry that
    is there but does not verify is removed, so that the caller installs the tree again."""
    digest = install_digest(tree)
    entry = root / entry_name(digest)
    try:
        if not stat.S_ISDIR(os.lstat(entry).st_mode):
            return None
    except OSError:
        return None
    if _verified(entry, digest, key):
        _used(root, entry.name)
        return entry
    discard(entry)
    return None


def _verified(entry: Path, digest: str, key: bytes) -> bool:
    try:
        with open(entry / verify.MANIFEST, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as handle:
            data = handle.read(verify.MANIFEST_LIMIT + 1)
    except OSError:
        return False
    document = verify.unsealed(data, key) if len(data) <= verify.MANIFEST_LIMIT else None
    if document is None or document.tree != digest:
        return False
    if verify.unchanged(entry, document):
        return True
    now = verify.same_content(entry, document)
    if now is None:
        return False
    with contextlib.suppress(OSError):  # the content verified: a manifest not rewritten costs only time
        reseal(entry, verify.sealed(now, key))  # the same bytes under new inodes: the next check is cheap again
    return True


def reseal(entry: Path, sealed: bytes) -> None:
    """Write the entry's manifest anew (its folder writable only meanwhile; neither is listed in it).

    Two boots of one copied entry both reseal it: each holds the entry's lock (flock on its folder) while its
    folder is writable, so neither leaves it writable for the other, and writes its own temporary file beside
    the entry (never in it, where a concurrent check would list it), renamed over the manifest in one step."""
    handle = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        mode = stat.S_IMODE(os.fstat(handle).st_mode)
        descriptor, fresh = tempfile.mkstemp(prefix=f".{entry.name}.manifest-", dir=entry.parent)
        try:
            with os.fdopen(descriptor, "wb") as written:
                written.write(sealed)
            _drop_write(fresh)
            os.chmod(entry, mode | stat.S_IWUSR)
            try:
                os.replace(fresh, entry / verify.MANIFEST)
            finally:
                os.chmod(entry, mode)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(fresh)
    finally:
        os.close(handle)  # and the lock with it


def staging(root: Path) -> Path:
    """A new private folder to install a tree into."""
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".staging-", dir=root))


def publish(root: Path, folder: Path, tree: Mapping[str, object], key: bytes) -> Path:
    """Seal the installed `folder`, make it read-only and move it into place as `tree`'s entry (or, when
    another boot got there first and its entry verifies, keep that one and remove `folder`)."""
    digest = install_digest(tree)
    read_only(folder, keep_root=True)
    sealed = folder / verify.MANIFEST
    sealed.write_bytes(verify.sealed(verify.manifest(folder, digest), key))
    # Only what the manifest does not list changes now: a chmod moves a change time even when the mode stays.
    _drop_write(str(sealed))
    _drop_write(str(folder))
    entry = root / entry_name(digest)
    try:
        os.rename(folder, entry)
    except OSError:
        discard(folder)
        found = ready_entry(root, tree, key)
        if found is None:
            raise
        return found
    _used(root, entry.name)
    return entry


def evict(root: Path, limit_mib: int, keep: set[str]) -> list[str]:
    """Remove the entries used least recently until the store holds at most `limit_mib` MiB (an entry named in
    `keep`, in use by this run, stays); the names removed."""
    sizes: dict[str, int] = {}
    for entry in root.iterdir() if root.is_dir() else ():
        if not entry.name.startswith(".") and entry.is_dir() and not entry.is_symlink():
            sizes[entry.name] = _size(entry)
    total, removed = sum(sizes.values()), []
    for name in sorted(sizes, key=lambda n: _last_use(root, n)):
        if total <= limit_mib * 1024 * 1024:
            break
        if name in keep:
            continue
        discard(root / name)
        (root / USED / name).unlink(missing_ok=True)
        total -= sizes[name]
        removed.append(name)
    return removed


def _size(entry: Path) -> int:
    """The bytes the entry's manifest lists (an entry without one is removed first: it can never boot)."""
    try:
        header = (entry / verify.MANIFEST).read_bytes().partition(b'"bytes":')[2]
        return int(header.split(b",", 1)[0])
    except (OSError, ValueError):
        return 1 << 62


def _used(root: Path, name: str) -> None:
    folder = root / USED
    folder.mkdir(exist_ok=True)
    marker = folder / name
    marker.touch()
    now = time.time()
    os.utime(marker, (now, now))


def _last_use(root: Path, name: str) -> float:
    try:
        return os.stat(root / USED / name).st_mtime
    except OSError:
        return 0.0


def discard(folder: Path) -> None:
    """Remove a staging folder or an entry, read-only or not."""
    for path, dirs, _files in os.walk(folder):
        for name in (path, *(os.path.join(path, d) for d in dirs)):
            try:
                mode = os.lstat(name).st_mode
                if not stat.S_ISLNK(mode):  # a link in a restored entry may point anywhere: never chmod through it
                    os.chmod(name, mode | stat.S_IWUSR)
            except OSError:
                continue
    shutil.rmtree(folder, ignore_errors=True)


def read_only(folder: Path, keep_root: bool = False) -> None:
    """Take every write bit off `folder` and what it holds (links are left alone: their mode is not used);
    with `keep_root`, the folder itself stays writable."""
    for path, dirs, files in os.walk(folder, topdown=False):
        for name in (*files, *dirs):
            _drop_write(os.path.join(path, name))
    if not keep_root:
        _drop_write(str(folder))


def _drop_write(path: str) -> None:
    mode = os.lstat(path).st_mode
    if not stat.S_ISLNK(mode):
        os.chmod(path, stat.S_IMODE(mode) & ~WRITABLE)
