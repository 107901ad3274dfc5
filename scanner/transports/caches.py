"""Package caches in the sandbox: the caller's warm entries read-only, everything a server writes private.

A server must never write the caller's npm or uv cache: a later plain `npx`/`uvx` in the same job (or a
cached runner directory in a later run) would execute what it planted, unsandboxed. bubblewrap 0.8 has no
overlay mount, so the package manager's own cache setting layers the cache instead. Its variable
points into the sandbox's private, size-bounded /tmp, and that private cache holds:

- npm: each of the caller's installed `npx` entries: `_npx/<hash>/node_modules` bound read-only into a
  writable `_npx/<hash>/` folder (where npm takes its lock), its small `package.json` and
  `package-lock.json` copied in (npm rewrites them). A warm `npx -y pkg@1.2.3` runs the installed
  package as it is; anything else npm needs (the package's registry record, a package not installed
  yet, a newer release of an unpinned one) it downloads into the private cache, for this boot. Offline
  (`network: deny`) npm must find the record in the caller's `_cacache`: its index is copied in and its
  content (addressed by digest, verified on read) bound read-only.
- uv: each unpacked archive (`archive-v0/<id>`, which holds the cached tool environments too) bound
  read-only, the `environments-v2` links recreated, and the small metadata buckets (index pages, wheel
  and interpreter records) copied in before the server starts, since uv rewrites them on every run.

A cache is given only to the real launcher: the command must resolve, as the sandbox will run it, to
the same file as `npx`/`npm`/`uvx`/`uv` on the caller's own PATH; a repository script named `npx` gets
none. Nothing in the private cache outlives the boot.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field

NPM_CACHE, UV_CACHE = "npm_config_cache", "UV_CACHE_DIR"
LAUNCHER_CACHES = {"npx": NPM_CACHE, "npm": NPM_CACHE, "uvx": UV_CACHE, "uv": UV_CACHE}
PRIVATE_CACHES = "/tmp/.cache"  # in the sandbox's private /tmp
PRIVATE = {NPM_CACHE: f"{PRIVATE_CACHES}/npm", UV_CACHE: f"{PRIVATE_CACHES}/uv"}
SEED = f"{PRIVATE_CACHES}/seed"  # where what is copied into a private cache is seen read-only
LOOKUP_TIMEOUT = 20.0
MAX_ENTRIES = 512  # npx entries or uv archives bound per boot; past it, the rest are left out
SEED_LIMIT = 64 * 1024 * 1024  # bytes of uv metadata copied per boot; past it none is (uv refetches)
NPX_RECORDS = ("package.json", "package-lock.json")  # what npm rewrites in an npx entry
RECORD_LIMIT = 4 * 1024 * 1024  # bytes: an npx entry's record past it is left out (npm reinstalls)
UV_METADATA_PREFIXES = ("simple-v", "wheels-v", "interpreter-v", "sdists-v")


@dataclass
class PrivateCache:
    """A launcher's private cache: its variable's value, the bwrap mounts that layer it, and what to copy."""

    variable: str
    path: str
    mounts: list[str] = field(default_factory=list)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (seen under SEED, to) before the server starts

    def copy(self, source: str, target: str) -> None:
        """Copy host `source` to `target` in the sandbox (through a read-only bind under SEED)."""
        seen = f"{SEED}/{len(self.copies)}"
        self.mounts += ["--ro-bind", source, seen]
        self.copies.append((seen, target))


def launcher_caches(command: str, caller: Mapping[str, str]) -> dict[str, str]:
    """The package cache the launcher `command` uses (variable -> path), as the caller's own tools find it."""
    variable = LAUNCHER_CACHES.get(os.path.basename(command))
    if variable is None:
        return {}
    home = caller.get("HOME", os.path.expanduser("~"))
    if variable == NPM_CACHE:
        path = _npm_cache(caller.get(NPM_CACHE) or caller.get(NPM_CACHE.upper()), home)
    else:
        path = _uv_cache(caller.get(UV_CACHE), caller.get("XDG_CACHE_HOME"), home)
    return {variable: path}


def real_launcher(command: str, server_path: str, cwd: str, caller: Mapping[str, str]) -> bool:
    """Whether `command`, found as the sandbox will find it, is the caller's own npx/npm/uvx/uv."""
    name = os.path.basename(command)
    if name not in LAUNCHER_CACHES:
        return False
    if os.sep in command:
        found: str | None = os.path.join(cwd, command)
    else:
        found = shutil.which(command, path=server_path)
    own = shutil.which(name, path=caller.get("PATH", os.defpath))
    return found is not None and own is not None and os.path.realpath(found) == os.path.realpath(own)


def private_cache(command: str, caller: Mapping[str, str], offline: bool = False) -> PrivateCache | None:
    """The private cache layered over the caller's for the launcher `command`, or None for other commands;
    `offline`: the server has no network, so what npm would fetch again must come from the caller's cache."""
    found = launcher_caches(command, caller)
    if not found:
        return None
    ((variable, path),) = found.items()
    layer = PrivateCache(variable, PRIVATE[variable], ["--dir", PRIVATE_CACHES, "--dir", PRIVATE[variable]])
    source = os.path.realpath(path)
    if os.path.isdir(source) and variable == NPM_CACHE:
        _npm_layer(source, layer, offline)
    elif os.path.isdir(source):
        _uv_layer(source, layer)
    return layer


def _npm_layer(source: str, layer: PrivateCache, offline: bool) -> None:
    index, content = (os.path.join(source, "_cacache", name) for name in ("index-v5", "content-v2"))
    if offline and _plain(index, True) and _plain(content, True) and _size(index) <= SEED_LIMIT:
        layer.copy(index, f"{layer.path}/_cacache/index-v5")
        layer.mounts += ["--ro-bind", content, f"{layer.path}/_cacache/content-v2"]
    entries = os.path.join(source, "_npx")
    layer.mounts += ["--dir", f"{layer.path}/_npx"]
    for entry in _folders(entries):
        target = f"{layer.path}/_npx/{entry}"
        layer.mounts += ["--dir", target]
        for name in _listing(os.path.join(entries, entry)):
            path = os.path.join(entries, entry, name)
            if name == "node_modules" and _plain(path, folders_only=True):
                layer.mounts += ["--ro-bind", path, f"{target}/{name}"]
            elif name in NPX_RECORDS and _plain(path) and os.path.getsize(path) <= RECORD_LIMIT:
                layer.copy(path, f"{target}/{name}")


def _uv_layer(source: str, layer: PrivateCache) -> None:
    archives = os.path.join(source, "archive-v0")
    layer.mounts += ["--dir", f"{layer.path}/archive-v0"]
    for entry in _folders(archives):
        layer.mounts += ["--ro-bind", os.path.join(archives, entry), f"{layer.path}/archive-v0/{entry}"]
    environments = os.path.join(source, "environments-v2")
    for name in _folders(environments):
        layer.mounts += ["--dir", f"{layer.path}/environments-v2/{name}"]
        for link in _listing(os.path.join(environments, name)):
            target = os.path.join(environments, name, link)
            if os.path.islink(target):
                layer.mounts += ["--symlink", os.readlink(target), f"{layer.path}/environments-v2/{name}/{link}"]
    metadata = [name for name in _listing(source) if name.startswith(UV_METADATA_PREFIXES)]
    metadata = [name for name in metadata if _plain(os.path.join(source, name))]
    if sum(_size(os.path.join(source, name)) for name in metadata) <= SEED_LIMIT:
        for name in metadata:
            layer.copy(os.path.join(source, name), f"{layer.path}/{name}")


# Copies each (from, to) pair, removing a partial copy (a cache entry is used whole or not at all), then execs.
COPY_SCRIPT = 'while [ "$1" != -- ]; do cp -R "$1" "$2" 2>/dev/null || rm -rf "$2"; shift 2; done; shift; exec "$@"'


def seeded(argv: list[str], layer: PrivateCache) -> list[str]:
    """`argv`, preceded by the layer's copies into the private cache."""
    if not layer.copies:
        return argv
    pairs = [path for pair in layer.copies for path in pair]
    return ["/bin/sh", "-c", COPY_SCRIPT, "sh", *pairs, "--", *argv]


def _folders(path: str) -> list[str]:
    return [name for name in _listing(path) if _plain(os.path.join(path, name), folders_only=True)][:MAX_ENTRIES]


def _listing(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _plain(path: str, folders_only: bool = False) -> bool:
    """A real folder or regular file (not a link, socket or device): what may be bound into the cache."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) or (not folders_only and stat.S_ISREG(mode))


def _size(path: str) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
            if total > SEED_LIMIT:
                return total
    return total


@functools.cache
def _npm_cache(configured: str | None, home: str) -> str:
    return configured or _ask(["npm", "config", "get", "cache"]) or os.path.join(home, ".npm")


@functools.cache
def _uv_cache(configured: str | None, xdg_cache: str | None, home: str) -> str:
    fallback = os.path.join(xdg_cache or os.path.join(home, ".cache"), "uv")
    return configured or _ask(["uv", "cache", "dir"]) or fallback


def _ask(command: list[str]) -> str | None:
    """One line of the caller's own tool's answer. Run from /, so no repository config steers it."""
    if shutil.which(command[0]) is None:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=LOOKUP_TIMEOUT, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and os.path.isabs(answer) else None
