"""Package caches in the sandbox: the caller's warm entries read-only, everything a server writes private.

A server must never write the caller's npm or uv cache: a later plain `npx`/`uvx` in the same job (or a
cached runner directory in a later run) would execute what it planted, unsandboxed. bubblewrap 0.8 has no
overlay mount, so the package manager's own cache setting layers the cache instead. Its variable
points into the sandbox's private, size-bounded /tmp, and that private cache holds:

- npm: the caller's installed `npx` entry for the launch's packages (`_npx/<hash>`, the hash npm
  computes: the first 16 hex digits of the SHA-512 of the sorted package specs): its `node_modules`
  and its `package.json` and `package-lock.json` bound read-only into a writable `_npx/<hash>/`
  folder (where npm takes its lock), when every spec names an exact version. A warm
  `npx -y pkg@1.2.3` runs the installed package as it is; anything else npm needs (the package's
  registry record, a package not installed yet, an unpinned `pkg` or `pkg@^1`, which npm may
  update) it downloads into the private cache, for this boot. Offline (`network: deny`) npm must find
  each package's registry record in the caller's `_cacache`: that index entry is copied in, and the
  content store (addressed by digest, verified on read) bound read-only.
- uv: each unpacked archive (`archive-v0/<id>`, which holds the cached tool environments too) bound
  read-only, the `environments-v2` links recreated, and the small metadata buckets (index pages, wheel
  and interpreter records) copied in before the server starts, since uv rewrites them on every run.

A cache is given only to the real launcher: the command must resolve, as the sandbox will run it, to
the same file as `npx`/`npm`/`uvx`/`uv` on the caller's own PATH; a repository script named `npx` gets
none. Nothing in the private cache outlives the boot.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

NPM_CACHE, UV_CACHE = "npm_config_cache", "UV_CACHE_DIR"
LAUNCHER_CACHES = {"npx": NPM_CACHE, "npm": NPM_CACHE, "uvx": UV_CACHE, "uv": UV_CACHE}
PRIVATE_CACHES = "/tmp/.cache"  # in the sandbox's private /tmp
PRIVATE = {NPM_CACHE: f"{PRIVATE_CACHES}/npm", UV_CACHE: f"{PRIVATE_CACHES}/uv"}
SEED = f"{PRIVATE_CACHES}/seed"  # where what is copied into a private cache is seen read-only
LOOKUP_TIMEOUT = 20.0
MAX_ENTRIES = 512  # npx entries or uv archives bound per boot; past it, the rest are left out
SEED_LIMIT = 64 * 1024 * 1024  # bytes of uv metadata copied per boot; past it none is (uv refetches)
NPX_FILES = ("node_modules", "package.json", "package-lock.json")  # an npx entry, beside npm's lock
# An exact version: npm may update the entry of any other spec (`pkg`, `pkg@^1`), so those get none.
EXACT_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?\Z")
RECORD_LIMIT = 4 * 1024 * 1024  # bytes: a registry record's index entry past it is not copied
UV_METADATA_PREFIXES = ("simple-v", "wheels-v", "interpreter-v", "sdists-v")


@dataclass
class PrivateCache:
    """A launcher's private cache: its variable's value, the bwrap mounts that layer it, and what to copy."""

    variable: str
    path: str
    mounts: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)  # paths in the private cache copied in before the server starts

    def copy(self, source: str, relative: str) -> None:
        """Copy host `source` to `relative` in the private cache: bound read-only at SEED/`relative`, and
        SEED copied into the private cache as a whole (one `cp`) before the server starts."""
        self.mounts += ["--ro-bind", source, f"{SEED}/{relative}"]
        self.copies.append(relative)


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


def private_cache(
    argv: Sequence[str], caller: Mapping[str, str], offline: bool = False, env: Mapping[str, str] | None = None
) -> PrivateCache | None:
    """The private cache layered over the caller's for the launcher `argv[0]`, or None for other commands;
    `offline`: the server has no network, so what npm would fetch again must come from the caller's cache;
    `env`: the server's environment (a declared npm registry names the records to copy)."""
    command = argv[0]
    found = launcher_caches(command, caller)
    if not found:
        return None
    ((variable, path),) = found.items()
    layer = PrivateCache(variable, PRIVATE[variable], ["--dir", PRIVATE_CACHES, "--dir", PRIVATE[variable]])
    source = os.path.realpath(path)
    if os.path.isdir(source) and variable == NPM_CACHE:
        packages = npx_packages(argv)
        if packages:
            _npm_layer(source, layer, packages, _registry(env or {}, caller) if offline else None)
    elif os.path.isdir(source):
        _uv_layer(source, layer)
    return layer


def npx_packages(argv: Sequence[str]) -> list[str]:
    """The package specs `npx …` / `npm exec …` installs: its --package values, else its first argument."""
    args = list(argv[1:])
    if os.path.basename(argv[0]) == "npm":
        if not args or args[0] not in ("exec", "x"):
            return []
        args = args[1:]
    packages: list[str] = []
    first: str | None = None
    while args:
        arg = args.pop(0)
        if arg == "--":
            first = first or (args[0] if args else None)
            break
        if arg in ("-p", "--package") and args:
            packages.append(args.pop(0))
        elif arg.startswith("--package="):
            packages.append(arg.split("=", 1)[1])
        elif not arg.startswith("-"):
            first = arg
            break
    return packages or ([first] if first else [])


def npx_entry(packages: Sequence[str]) -> str:
    """The folder under `_npx` npm installs `packages` into (libnpmexec: sorted specs, SHA-512, 16 digits)."""
    return hashlib.sha512("\n".join(sorted(packages)).encode()).hexdigest()[:16]


def _npm_layer(source: str, layer: PrivateCache, packages: list[str], registry: str | None) -> None:
    entry = os.path.join(source, "_npx", npx_entry(packages))
    target = f"{layer.path}/_npx/{os.path.basename(entry)}"
    exact = all(EXACT_VERSION.match(spec[len(_name(spec)) + 1 :]) for spec in packages)
    if exact and _plain(os.path.join(entry, "node_modules"), folders_only=True):  # installed: bind it as it is
        layer.mounts += ["--dir", target]
        for name in NPX_FILES:
            if _plain(os.path.join(entry, name)):
                layer.mounts += ["--ro-bind", os.path.join(entry, name), f"{target}/{name}"]
    content = os.path.join(source, "_cacache", "content-v2")
    if registry is None or not _plain(content, folders_only=True):
        return
    layer.mounts += ["--ro-bind", content, f"{layer.path}/_cacache/content-v2"]
    for package in packages:
        key = f"make-fetch-happen:request-cache:{registry.rstrip('/')}/{_escaped(_name(package))}"
        digest = hashlib.sha256(key.encode()).hexdigest()
        relative = f"index-v5/{digest[:2]}/{digest[2:4]}"
        path = os.path.join(source, "_cacache", relative, digest[4:])
        if _plain(path) and os.path.getsize(path) <= RECORD_LIMIT:
            layer.copy(path, f"_cacache/{relative}/{digest[4:]}")


def _name(spec: str) -> str:
    """The package name of a spec: `@scope/name@1.2.3` -> `@scope/name`, `name@^1` -> `name`."""
    at = spec.find("@", 1)
    return spec if at < 0 else spec[:at]


def _escaped(name: str) -> str:
    return name.replace("/", "%2f")  # how npm's registry client writes a scoped name in the URL


def _registry(env: Mapping[str, str], caller: Mapping[str, str]) -> str:
    declared = env.get("npm_config_registry") or env.get("NPM_CONFIG_REGISTRY")
    return declared or caller.get("npm_config_registry") or _npm_registry()


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
            layer.copy(os.path.join(source, name), name)


# Copies SEED ($0) into the private cache ($1); a failed copy is removed ($2: what was copied), so that a
# cache entry is used whole or not at all. Then runs the server.
COPY_SCRIPT = 'cp -R "$0"/. "$1" 2>/dev/null || for p in $2; do rm -rf "$1/$p"; done; shift 2; exec "$@"'


def seeded(argv: list[str], layer: PrivateCache) -> list[str]:
    """`argv`, preceded by the layer's copies into the private cache."""
    if not layer.copies:
        return argv
    return ["/bin/sh", "-c", COPY_SCRIPT, SEED, layer.path, " ".join(layer.copies), *argv]


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
def _npm_registry() -> str:
    return _ask(["npm", "config", "get", "registry"], absolute=False) or ""


@functools.cache
def _uv_cache(configured: str | None, xdg_cache: str | None, home: str) -> str:
    fallback = os.path.join(xdg_cache or os.path.join(home, ".cache"), "uv")
    return configured or _ask(["uv", "cache", "dir"]) or fallback


def _ask(command: list[str], absolute: bool = True) -> str | None:
    """One line of the caller's own tool's answer. Run from /, so no repository config steers it."""
    if shutil.which(command[0]) is None:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=LOOKUP_TIMEOUT, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and (os.path.isabs(answer) or not absolute) and answer else None
