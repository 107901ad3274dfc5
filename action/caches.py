"""What the action keeps across runs (docs/ci.md, "What the action caches"): the lock's side, standard library only.

    python caches.py key LOCKFILE            # the npm download cache's key: a digest of the lock's npm tree digests
    python caches.py prune LOCKFILE DIR      # in DIR (npm's _cacache/content-v2), keeps only the lock's tarballs
    python caches.py trees LOCKFILE          # the store's key: a digest of every tree digest of the lock (npm, uv)
    python caches.py lock-digest LOCKFILE    # the verdict cache's key: a digest of the lock's content
    python caches.py prune-verdicts DIR      # in DIR (MCP_LOCK_CACHE_DIR), keeps only kept-verdict files
    VENV/bin/python caches.py detectors      # what the kept verdicts depend on (mcp-lock's own code: its venv)
    VENV/bin/python caches.py prune-store LOCKFILE DIR   # in DIR (MCP_LOCK_STORE), keeps only the lock's entries

npm's content-addressed store: each file is named by the digest of its bytes, and `npm ci` (from the lockfile
mcp-lock writes from the lock's tree record) asks for each tarball by the integrity the lock records and checks
the bytes against it as it reads them; a file that does not match is fetched again. So whoever could write the
cache (any job on the branch) can cost a run time, never change what it installs. Before the run, every
restored file that is not one of the lock's tarballs is removed (bounded: the cache never outgrows the lock's
trees), and so is anything that is not a regular file in npm's layout.

The verdicts and the store are kept only when the action is given a cache key (a repository secret): their
files are authenticated by keys derived from it (scanner/files/cache_key.py), which no cache holds, and
mcp-lock checks each before using it (a verdict file's HMAC; a store entry's sealed manifest, then its
contents). Pruning here only bounds what is carried: the verdict folder keeps its `clean-*.bin` and
`canonical-*.bin` files, the store the entries of the lock's trees, and nothing that is a link.

The lock is the repository's input: read with a size bound, never through a link; anything unreadable or
malformed gives the key `none` and keeps nothing.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from typing import Any

LOCK_LIMIT = 64 << 20
ALGORITHMS = {"sha512": 64, "sha384": 48, "sha256": 32, "sha1": 20}  # the digests npm's integrity strings use


def read_lock(path: str) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        data = handle.read(LOCK_LIMIT + 1)
    if len(data) > LOCK_LIMIT:
        return None
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return None
    return document if isinstance(document, dict) else None


def lock_trees(document: dict[str, Any], managers: tuple[str, ...] = ("npm", "uv")) -> Iterator[dict[str, Any]]:
    servers = document.get("servers")
    for server in servers.values() if isinstance(servers, dict) else ():
        launch = server.get("launch") if isinstance(server, dict) else None
        tree = launch.get("tree") if isinstance(launch, dict) else None
        if isinstance(tree, dict) and tree.get("manager") in managers and isinstance(tree.get("digest"), str):
            yield tree


def npm_trees(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    return lock_trees(document, ("npm",))


def key(path: str, managers: tuple[str, ...] = ("npm",)) -> str:
    """A digest of the lock's tree digests of `managers` (sorted, each once), or `none`."""
    document = read_lock(path)
    digests = sorted({tree["digest"] for tree in lock_trees(document, managers)}) if document else []
    if not digests:
        return "none"
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:32]


def lock_digest(path: str) -> str:
    """A digest of the lock's content (what the verdicts judged), or `none`."""
    document = read_lock(path)
    if document is None:
        return "none"
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()[:32]


def detectors() -> str:
    """A digest of what kept verdicts and canonical texts depend on, from mcp-lock's own code (run by its venv)."""
    from scanner.detectors.verdict_cache import detector_key
    from scanner.lock.reader import rendering_key

    return hashlib.sha256(detector_key() + rendering_key()).hexdigest()[:32]


KEPT_FILE = re.compile(r"(clean|canonical)-[0-9a-f]{32}\.bin")


def prune_verdicts(folder: str) -> int:
    """Remove from `folder` all but kept-verdict files (no `verdict-key`, no link, no folder); returns how many
    are kept. What is kept is still checked by mcp-lock (its HMAC under the given key) before it is used."""
    return _keep_only(folder, lambda name, mode: KEPT_FILE.fullmatch(name) is not None and stat.S_ISREG(mode))


def prune_store(path: str, folder: str) -> int:
    """Remove from `folder` all but the store entries of the lock's trees (run by mcp-lock's venv: the entry
    names are mcp-lock's own `install_digest`); returns how many are kept. mcp-lock verifies each before it
    boots it (scanner.install.store.ready_entry)."""
    from scanner.install.store import entry_name, install_digest

    document = read_lock(path)
    wanted = {entry_name(install_digest(tree)) for tree in lock_trees(document)} if document else set()
    return _keep_only(folder, lambda name, mode: name in wanted and stat.S_ISDIR(mode))


def _keep_only(folder: str, keep: Callable[[str, int], bool]) -> int:
    """Remove every name in `folder` that `keep` (its name, its lstat mode) refuses; returns how many stay."""
    if not _private_folder(folder):
        return 0
    kept = 0
    for name in os.listdir(folder):
        full = os.path.join(folder, name)
        mode = os.lstat(full).st_mode
        if keep(name, mode):
            kept += 1
        elif stat.S_ISDIR(mode):
            _remove_tree(full)
        else:
            os.unlink(full)
    return kept


def _private_folder(folder: str) -> bool:
    """`folder` as a private folder of this user's; anything else in its place is removed (False)."""
    if not os.path.lexists(folder):
        return False
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        if stat.S_ISDIR(info.st_mode):
            _remove_tree(folder)
        else:
            os.unlink(folder)
        return False
    os.chmod(folder, 0o700)
    return True


def _remove_tree(folder: str) -> None:
    """Remove `folder`, read-only or not, never changing anything through a link."""
    for root, folders, _ in os.walk(folder):
        for name in (root, *(os.path.join(root, f) for f in folders)):
            if not stat.S_ISLNK(os.lstat(name).st_mode):
                os.chmod(name, stat.S_IMODE(os.lstat(name).st_mode) | stat.S_IRWXU)
    shutil.rmtree(folder)


def content_paths(document: dict[str, Any]) -> set[str]:
    """Where npm's content-v2 keeps each tarball the lock's npm trees pin: `<algorithm>/<hex[:2]>/<hex[2:4]>/<rest>`."""
    paths = set()
    for tree in npm_trees(document):
        packages = tree.get("packages")
        for package in packages if isinstance(packages, list) else ():
            integrity = package.get("integrity") if isinstance(package, dict) else None
            for part in integrity.split() if isinstance(integrity, str) else ():
                algorithm, _, encoded = part.partition("-")
                size = ALGORITHMS.get(algorithm)
                try:
                    digest = base64.b64decode(encoded.split("?")[0], validate=True)
                except (binascii.Error, ValueError):
                    continue
                if size is None or len(digest) != size:
                    continue
                hexed = digest.hex()
                paths.add(f"{algorithm}/{hexed[:2]}/{hexed[2:4]}/{hexed[4:]}")
    return paths


def prune(path: str, folder: str) -> int:
    """Remove from `folder` all but the lock's tarballs; returns how many files are kept."""
    document = read_lock(path)
    wanted = content_paths(document) if document else set()
    kept = 0
    if not os.path.lexists(folder):
        return 0
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        os.unlink(folder)
        return 0
    for root, folders, files in os.walk(folder):
        for name in files:
            full = os.path.join(root, name)
            relative = os.path.relpath(full, folder)
            if relative in wanted and re.fullmatch(r"[a-z0-9]+/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]+", relative) \
                    and stat.S_ISREG(os.lstat(full).st_mode):
                kept += 1
            else:
                os.unlink(full)
        for name in list(folders):
            full = os.path.join(root, name)
            if stat.S_ISLNK(os.lstat(full).st_mode):  # os.walk does not enter a link; it goes
                os.unlink(full)
                folders.remove(name)
    for root, folders, _ in os.walk(folder, topdown=False):
        for name in folders:
            with contextlib.suppress(OSError):  # not empty: it holds a kept tarball
                os.rmdir(os.path.join(root, name))
    return kept


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "key":
        print(key(argv[2]))
        return 0
    printed = {"trees": lambda: key(argv[2], ("npm", "uv")), "lock-digest": lambda: lock_digest(argv[2])}
    if len(argv) == 3 and argv[1] in printed:
        print(printed[argv[1]]())
        return 0
    if len(argv) == 2 and argv[1] == "detectors":
        print(detectors())
        return 0
    pruned = {"prune-verdicts": (lambda: prune_verdicts(argv[2]), 3, "kept verdict file(s)"),
              "prune-store": (lambda: prune_store(argv[2], argv[3]), 4, "store entries of the lock's trees")}
    if len(argv) >= 2 and argv[1] in pruned and len(argv) == pruned[argv[1]][1]:
        prune_kept, _, what = pruned[argv[1]]
        try:
            count = prune_kept()
        except OSError as error:  # what cannot be pruned is not used
            print(f"mcp-lock: the restored cache could not be pruned ({error}); dropping it", file=sys.stderr)
            with contextlib.suppress(OSError):
                _remove_tree(argv[-1])
            return 0
        print(f"mcp-lock: {count} {what} restored from the cache")
        return 0
    if len(argv) == 4 and argv[1] == "prune":
        try:
            kept = prune(argv[2], argv[3])
        except OSError as error:  # what cannot be pruned is not used
            print(f"mcp-lock: the restored npm cache could not be pruned ({error}); dropping it", file=sys.stderr)
            shutil.rmtree(argv[3], ignore_errors=True)
            return 0
        print(f"mcp-lock: {kept} tarball(s) of the lock's npm trees restored from the cache")
        return 0
    print("usage: caches.py key|trees|lock-digest LOCKFILE | prune LOCKFILE DIR | prune-verdicts DIR | detectors"
          " | prune-store LOCKFILE DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
