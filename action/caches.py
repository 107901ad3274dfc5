"""The npm download cache the action keeps across runs (docs/ci.md, "What the action caches"), standard library only.

    python caches.py key LOCKFILE          # prints the cache key's digest of the lock's npm tree digests
    python caches.py prune LOCKFILE DIR    # in DIR (npm's _cacache/content-v2), keeps only the lock's tarballs

Only npm's content-addressed store is cached: each file is named by the digest of its bytes, and `npm ci` (from
the lockfile mcp-lock writes from the lock's tree record) asks for each tarball by the integrity the lock records
and checks the bytes against it as it reads them; a file that does not match is fetched again. So whoever could
write the cache (any job on the branch) can cost a run time, never change what it installs. Before the run,
every restored file that is not one of the lock's tarballs is removed (bounded: the cache never outgrows the
lock's trees), and so is anything that is not a regular file in npm's layout.

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
from collections.abc import Iterator
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


def npm_trees(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    servers = document.get("servers")
    for server in servers.values() if isinstance(servers, dict) else ():
        launch = server.get("launch") if isinstance(server, dict) else None
        tree = launch.get("tree") if isinstance(launch, dict) else None
        if isinstance(tree, dict) and tree.get("manager") == "npm" and isinstance(tree.get("digest"), str):
            yield tree


def key(path: str) -> str:
    """A digest of the lock's npm tree digests (sorted, each once), or `none`."""
    document = read_lock(path)
    digests = sorted({tree["digest"] for tree in npm_trees(document)}) if document else []
    if not digests:
        return "none"
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:32]


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
    if len(argv) == 4 and argv[1] == "prune":
        try:
            kept = prune(argv[2], argv[3])
        except OSError as error:  # what cannot be pruned is not used
            print(f"mcp-lock: the restored npm cache could not be pruned ({error}); dropping it", file=sys.stderr)
            shutil.rmtree(argv[3], ignore_errors=True)
            return 0
        print(f"mcp-lock: {kept} tarball(s) of the lock's npm trees restored from the cache")
        return 0
    print("usage: caches.py key LOCKFILE | caches.py prune LOCKFILE DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
