"""Run a stdio server in a bubblewrap (`bwrap`) sandbox, or refuse to start it.

The server sees the whole filesystem read-only (the repository and mcp-lock's own installation
included), a private throwaway /tmp holding its HOME and TMPDIR, an empty /run (no service sockets),
/proc of its own PID namespace only, and, writable, the package cache its launcher needs (npm's for
npx, uv's for uvx). It runs in new user, PID and IPC namespaces and a new session, with no
capabilities; with `network: deny` also in a new network namespace. When bwrap (PID 1 of that
namespace) is killed, the kernel kills every process the server started, however it detached.

bwrap is started with exactly the server's environment and nothing else: PID 1 is bwrap itself,
and its environment is readable at /proc/1/environ from inside.

The sandbox fails closed: where it cannot start, the server is not started, and the message says
how to fix the machine (or to set `sandbox: off` for that server).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from scanner.transports.isolation import DENY, IsolationUnavailable, isolated

ON = "on"
OFF = "off"
MODES = (ON, OFF)

PRIVATE_TMP = "/tmp"
HOME = f"{PRIVATE_TMP}/home"
# /run holds the machine's service sockets (Docker, D-Bus, PostgreSQL...), which a read-only mount does not
# stop a client from connecting to: hidden, but for the resolver's files (/etc/resolv.conf may point there).
PRIVATE_RUN = "/run"
RESOLVER = "/run/systemd/resolve"
HIDDEN = (PRIVATE_TMP, PRIVATE_RUN)
NAMESPACE_FLAGS = (
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
)
BASE_MOUNTS = (
    *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", PRIVATE_TMP, "--tmpfs", PRIVATE_RUN),
    *("--ro-bind-try", RESOLVER, RESOLVER),
)
PROBE_TIMEOUT = 10.0
LOOKUP_TIMEOUT = 20.0
# Variables the scanner itself could be recognised by; none reaches a sandboxed server.
OWN_PREFIX = "MCP_LOCK_"

APPARMOR_PROFILE = (
    "abi <abi/4.0>, include <tunables/global>, profile bwrap /usr/bin/bwrap flags=(unconfined) "
    "{ userns, include if exists <local/bwrap> }"
)
FIX_HINT = (
    "install bubblewrap (Debian/Ubuntu package `bubblewrap`); where unprivileged user namespaces are "
    "restricted (Ubuntu 23.10+, GitHub's ubuntu-24.04), allow them for bwrap only with an AppArmor profile "
    f"in /etc/apparmor.d/bwrap: `{APPARMOR_PROFILE}` (then `sudo apparmor_parser -r /etc/apparmor.d/bwrap`), "
    "or for every program with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; "
    "or set `sandbox: off` for this server in mcp-lock.yaml"
)
# A missing binary needs installing, not AppArmor advice; the lead says what runs sandboxed, not what the user set.
SANDBOXED = "stdio servers run in a bubblewrap sandbox (`sandbox: on`, the default)"
MISSING_HINT = (
    "install bubblewrap (Debian/Ubuntu package `bubblewrap`), "
    "or set `sandbox: off` for this server in mcp-lock.yaml to run it unsandboxed"
)
OTHER_SYSTEM = (
    SANDBOXED + ", but mcp-lock has no sandbox on {system} (bubblewrap is Linux only); not started: "
    "set `sandbox: off` for this server in mcp-lock.yaml to run it unsandboxed"
)

# Launcher (the command's basename) -> the variable naming its package cache.
NPM_CACHE, UV_CACHE = "npm_config_cache", "UV_CACHE_DIR"
LAUNCHER_CACHES = {"npx": NPM_CACHE, "npm": NPM_CACHE, "uvx": UV_CACHE, "uv": UV_CACHE}

# bwrap path -> None when it works, else why not. One probe per binary per process.
_probed: dict[str, str | None] = {}


class SandboxUnavailable(IsolationUnavailable):
    """The sandbox was asked for and this machine cannot provide it; the server is not started."""


def launch_command(
    argv: list[str], env: dict[str, str], cwd: str, network: str, sandbox: str, readable: Iterable[str] = ()
) -> tuple[list[str], dict[str, str]]:
    """What to start for a stdio server and with which environment: `argv` in the sandbox, or with
    `sandbox: off` as it is (`network: deny`: in a new network namespace). Raises SandboxUnavailable
    or IsolationUnavailable when what the policy asks for cannot be had, FileNotFoundError for a
    missing command (so it is named as such, not as a sandbox that exited)."""
    if sandbox == OFF and network != DENY:
        return argv, env
    if not _findable(argv[0], env, cwd):
        raise FileNotFoundError(argv[0])
    if sandbox == OFF:
        return isolated(argv), env
    return sandboxed(argv, env=env, cwd=cwd, network=network, readable=readable)


def _findable(command: str, env: Mapping[str, str], cwd: str) -> bool:
    if os.sep in command:
        return os.path.isfile(os.path.join(cwd, command))
    return shutil.which(command, path=env.get("PATH", os.defpath)) is not None


def sandboxed(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    network: str,
    readable: Iterable[str] = (),
    caller: Mapping[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The bwrap command line running `argv`, and the environment to start bwrap with.

    `readable` names host paths the server must see even when they lie under /tmp or /run (the
    repository); `caller` is mcp-lock's environment, where launcher caches are looked up (default:
    os.environ). The caches' variables override the declaration's: only the caller's are writable.
    """
    bwrap = require_bwrap()
    cwd = os.path.abspath(cwd)  # bwrap resolves a relative --chdir inside the sandbox, not here
    caller = os.environ if caller is None else caller
    caches = launcher_caches(argv[0], caller)
    server_env = {k: v for k, v in env.items() if not k.startswith(OWN_PREFIX)}
    server_env.update({"HOME": HOME, "TMPDIR": PRIVATE_TMP, "TMP": PRIVATE_TMP, "TEMP": PRIVATE_TMP})
    server_env.update(caches)
    server_env.update(_launcher_config(argv[0], caller, server_env))
    seen = [cwd, *map(os.path.abspath, readable), *_installations(argv, server_env, cwd)]
    mounts = [*BASE_MOUNTS, "--dir", HOME]
    for path in _hidden(seen):
        mounts += ["--ro-bind-try", path, path]
    for path in caches.values():
        if _safe_cache(path, seen):
            mounts += ["--bind-try", path, path]
    network_flags = ["--unshare-net"] if network == DENY else []
    return [bwrap, *NAMESPACE_FLAGS, *network_flags, *mounts, "--chdir", cwd, "--", *argv], server_env


def require_bwrap() -> str:
    """The path of a bwrap that can start a sandbox here; raises SandboxUnavailable otherwise."""
    if not sys.platform.startswith("linux"):
        system = {"darwin": "macOS", "win32": "Windows"}.get(sys.platform, sys.platform)
        raise SandboxUnavailable(OTHER_SYSTEM.format(system=system))
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(f"{SANDBOXED}, but there is no `bwrap` on PATH; not started: {MISSING_HINT}")
    reason = probe(bwrap)
    if reason is not None:
        raise SandboxUnavailable(
            f"{SANDBOXED}, but {bwrap} cannot start a sandbox here ({reason}); not started: {FIX_HINT}"
        )
    return bwrap


def probe(bwrap: str) -> str | None:
    """None when `bwrap` can start the sandbox here, else the reason (its last stderr line); cached."""
    if bwrap not in _probed:
        _probed[bwrap] = _try(bwrap)
    return _probed[bwrap]


def _try(bwrap: str) -> str | None:
    command = [bwrap, *NAMESPACE_FLAGS, "--unshare-net", *BASE_MOUNTS, "--", bwrap, "--version"]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=PROBE_TIMEOUT, env={"PATH": os.environ.get("PATH", os.defpath)}
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error) or type(error).__name__
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else f"exit status {done.returncode}"


def launcher_caches(command: str, caller: Mapping[str, str]) -> dict[str, str]:
    """The package cache the launcher `command` writes (variable -> path), as the caller's own tools find it."""
    variable = LAUNCHER_CACHES.get(os.path.basename(command))
    if variable is None:
        return {}
    home = caller.get("HOME", os.path.expanduser("~"))
    if variable == NPM_CACHE:
        path = _npm_cache(caller.get(NPM_CACHE) or caller.get(NPM_CACHE.upper()), home)
    else:
        path = _uv_cache(caller.get(UV_CACHE), caller.get("XDG_CACHE_HOME"), home)
    return {variable: path}


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


def _launcher_config(command: str, caller: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """The caller's own npm config file, which the private HOME would hide from npx (registry, proxy)."""
    home = caller.get("HOME", "")
    npmrc = os.path.join(home, ".npmrc") if home else ""
    wanted = LAUNCHER_CACHES.get(os.path.basename(command)) == NPM_CACHE
    if wanted and npmrc and os.path.isfile(npmrc) and "npm_config_userconfig" not in env:
        return {"npm_config_userconfig": npmrc}
    return {}


def _safe_cache(path: str, seen: Iterable[str]) -> bool:
    """A cache may be made writable unless it is, or holds, the repository or mcp-lock's installation."""
    cache = os.path.realpath(path)
    if cache == "/":
        return False
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError:
        return False
    guarded = [*seen, str(Path(__file__).resolve().parents[2]), sys.prefix]
    return not any(_within(os.path.realpath(g), cache) for g in guarded)


def _installations(argv: Sequence[str], env: Mapping[str, str], cwd: str) -> list[str]:
    """mcp-lock's own installation, the caller's PATH, and the command's installation.

    The command is named by the declaration, so it is bound back only when it is a regular file (itself,
    or for a program in a `bin` folder its venv), never a folder it merely lies in: a declaration must
    not open /tmp/.X11-unix or /run/postgresql by naming something there.
    """
    paths = [sys.prefix, str(Path(__file__).resolve().parents[2])]
    paths += [_root_of(p) for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    found = shutil.which(argv[0], path=env.get("PATH", os.defpath)) if os.sep not in argv[0] else None
    command = found or os.path.join(cwd, argv[0])
    for path in {command, os.path.realpath(command)}:
        if os.path.isfile(path):
            paths.append(_root_of(os.path.dirname(path)) if Path(path).parent.name == "bin" else path)
    return paths


def _root_of(folder: str) -> str:
    """A `bin` folder's installation (the venv that holds it); any other folder itself."""
    return os.path.dirname(folder) if os.path.basename(folder.rstrip("/")) == "bin" else folder


def _hidden(paths: Iterable[str]) -> list[str]:
    """Existing paths under /tmp or /run, which the sandbox hides, without ones another already covers."""
    kept: list[str] = []
    candidates = {os.path.normpath(p) for p in paths} | {os.path.realpath(p) for p in paths}
    for path in sorted(candidates, key=len):
        hidden = any(_within(path, root) and path != root for root in HIDDEN) and os.path.exists(path)
        if hidden and not any(_within(path, k) for k in kept):
            kept.append(path)
    return kept


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
