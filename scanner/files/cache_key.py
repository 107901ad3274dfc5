"""A key for what mcp-lock keeps across runs that the cache holding it cannot hold: given by the caller on a file
descriptor, never in the environment, a file of the cache or the repository.

Why: CI restores mcp-lock's verdicts and its store from a cache that any job of the default branch can write
(docs/ci.md, "What the action caches"). What authenticates them (the `verdict-key` beside the verdicts, the
store's `store.key`) is made on the runner and so is new on every fresh runner: a restored verdict or entry
fails its seal and is redone. A key the caller keeps elsewhere (a repository secret the action passes on)
authenticates across runners instead, and whoever can write the cache but not read the secret can still only
cost a run time.

`MCP_LOCK_CACHE_KEY_FD=N`: mcp-lock reads the key from descriptor N once, as it starts and before any server
or package manager runs, closes N and drops the variable from its environment, so nothing it starts inherits
either; the key stays in this process's memory, which a sandboxed child (its own PID namespace) cannot read.
Each use gets its own key derived from it (HMAC-SHA256 under a fixed label), so a verdict seal is never a store
seal. A descriptor that cannot be read, or a key shorter than MIN_BYTES, is an error: asked for a key, mcp-lock
never silently runs without one.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import MutableMapping

FD_ENV = "MCP_LOCK_CACHE_KEY_FD"
MIN_BYTES = 32  # e.g. `openssl rand -hex 32`: 64 characters
MAX_BYTES = 4096
VERDICTS = "verdicts"
STORE = "store"

_key: bytes | None = None


class CacheKeyError(Exception):
    """The caller asked for a cache key and gave none that is usable."""


def load(environ: MutableMapping[str, str]) -> None:
    """Read the key named by `environ` (removing the variable from it), if any; else keep the runner's own keys."""
    global _key
    value = environ.pop(FD_ENV, None)
    if value is None:
        return
    if not value.isdigit() or int(value) < 3:  # never stdin, stdout or stderr
        raise CacheKeyError(f"{FD_ENV} must name an open file descriptor of 3 or more")
    fd = int(value)
    try:
        chunks = []
        while (chunk := os.read(fd, MAX_BYTES + 1)) and sum(map(len, chunks)) <= MAX_BYTES:
            chunks.append(chunk)
    except OSError as error:
        raise CacheKeyError(f"{FD_ENV}={fd}: the cache key could not be read ({error.strerror})") from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    key = b"".join(chunks).strip()
    if len(key) > MAX_BYTES:
        raise CacheKeyError(f"{FD_ENV}={fd}: the cache key is longer than {MAX_BYTES} bytes")
    if len(key) < MIN_BYTES:
        raise CacheKeyError(
            f"{FD_ENV}={fd}: the cache key has {len(key)} bytes, fewer than {MIN_BYTES}: use a random secret "
            "(e.g. `openssl rand -hex 32`)"
        )
    _key = key


def derived(purpose: str) -> bytes | None:
    """The key for `purpose` (VERDICTS, STORE), when the caller gave one; None: use the runner's own."""
    if _key is None:
        return None
    return hmac.digest(_key, f"mcp-lock cache key v1\0{purpose}".encode(), hashlib.sha256)


def forget() -> None:
    """Drop the key (tests run many commands in one process)."""
    global _key
    _key = None
