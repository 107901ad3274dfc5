"""Run a stdio server in a bubblewrap (`bwrap`) sandbox, or refuse to start it.

The server sees the whole filesystem read-only (the repository and mcp-lock's own installation
included), a private throwaway /tmp holding its HOME and TMPDIR, an empty /run (no service sockets),
/proc of its own PID namespace only. A launch mcp-lock installed itself (scanner.install) runs from its
store entry, bound read-only like the rest; any other launcher finds only the private HOME's empty package
cache, and a package launch by the real launcher does not see the repository's package-manager configuration
(`project_config`). /tmp, /run and /dev/shm are tmpfs of a bounded size, and the rest of /dev is read-only. It
runs in new user, PID and IPC namespaces and a new session, with no capabilities; with `network: deny` also in
a new network namespace. When bwrap (PID 1 of that namespace) is killed, the kernel kills every process the
server started, however it detached.

Of what /tmp and /run hide, only the caller's own PATH entries, mcp-lock's installation and the
repository are bound back, and only folders and regular files among them. A declaration cannot
add to that: a `cwd`, `env.PATH` entry or command it names under /tmp or /run elsewhere is refused
(`refused` says so), and a socket or device is never bound. Every listening Unix socket the server could
still see (elsewhere, or inside what is bound back) is covered with /dev/null: connecting is refused.

bwrap is started with exactly the server's environment and nothing else: PID 1 is bwrap itself,
and its environment is readable at /proc/1/environ from inside.

The sandbox fails closed: where it cannot start, the server is not started, and the message says
how to fix the machine (or to set `sandbox: off` for that server).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from scanner.transports.isolation import DENY, IsolationUnavailable, isolated
from scanner.transports.project_config import LAUNCHER_ENV, covered, mask_mounts, package_launch, real_launcher

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
SHM = "/dev/shm"
# bwrap's --dev is a writable tmpfs without a size: /dev/shm gets a sized tmpfs of its own, and /dev is then
# made read-only (its device nodes, /dev/null included, are bind mounts and stay writable).
BASE_MOUNTS = (
    *("--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", SHM, "--remount-ro", "/dev", "--proc", "/proc"),
    *("--tmpfs", PRIVATE_TMP, "--tmpfs", PRIVATE_RUN, "--ro-bind-try", RESOLVER, RESOLVER),
)
UNIX_SOCKETS = "/proc/net/unix"
ACCEPTING = 0x10000  # __SO_ACCEPTCON in /proc/net/unix's Flags column: a listening socket
MAX_MASKED = 256
DEFAULT_TMPFS_MIB = 512  # the private /tmp; the policy's `tmpfs-mib` raises it
RUN_MIB = 16  # the private /run: empty but for the resolver's files, bound read-only
SHM_MIB = 64  # /dev/shm, as Docker sizes it
DEFAULT_TMPFS_BUDGET_MIB = 4096  # all sandboxes booting at once, together (scanner.run.budget)
MIB = 1024 * 1024
PROBE_TIMEOUT = 10.0
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

BIND_REFUSED = (
    "the sandbox does not bind back {what}: each lies under /tmp or /run, which the sandbox keeps private, "
    "outside the repository and the caller's own PATH (or is not a folder or regular file)"
)
WORKDIR_REFUSED = (
    "cwd {cwd} lies under /tmp or /run outside the repository, and the sandbox does not bind it back; "
    "declare a working directory inside the repository"
)

# bwrap path -> None when it works, else why not. One probe per binary per process.
_probed: dict[str, str | None] = {}


class SandboxUnavailable(IsolationUnavailable):
    """The sandbox was asked for and this machine cannot provide it; the server is not started."""


class BindRefused(IsolationUnavailable):
    """The declaration's working directory is one the sandbox does not bind back; the server is not started."""


def launch_command(
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    network: str,
    sandbox: str,
    readable: Iterable[str] = (),
    tmpfs_mib: int = DEFAULT_TMPFS_MIB,
    refused: list[str] | None = None,
    writable: Iterable[str] = (),
    hidden: Iterable[str] = (),
) -> tuple[list[str], dict[str, str]]:
    """What to start for a stdio server and with which environment: `argv` in the sandbox, or with
    `sandbox: off` as it is (`network: deny`: in a new network namespace). Raises SandboxUnavailable
    or IsolationUnavailable when what the policy asks for cannot be had, FileNotFoundError for a
    missing command (so it is named as such, not as a sandbox that exited)."""
    if not _findable(argv[0], env, cwd):  # before any wrapper (sandbox, unshare, cgroup) reports its own failure
        raise FileNotFoundError(argv[0])
    if os.sep in argv[0] and not os.access(os.path.join(cwd, argv[0]), os.X_OK):
        raise PermissionError(argv[0])
    if sandbox == OFF:
        # Nothing can be hidden without the sandbox; uv and pip can at least be told to read no project config.
        if package_launch(argv) and real_launcher(argv[0], env.get("PATH", os.defpath), cwd, os.environ):
            env = {**env, **LAUNCHER_ENV}
        return (argv, env) if network != DENY else (isolated(argv), env)
    return sandboxed(
        argv, env=env, cwd=cwd, network=network, readable=readable, tmpfs_mib=tmpfs_mib, refused=refused,
        writable=writable, hidden=hidden,
    )


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
    tmpfs_mib: int = DEFAULT_TMPFS_MIB,
    refused: list[str] | None = None,
    writable: Iterable[str] = (),
    hidden: Iterable[str] = (),
) -> tuple[list[str], dict[str, str]]:
    """The bwrap command line running `argv`, and the environment to start bwrap with.

    `readable` names host paths the server must see even when they lie under /tmp or /run (the
    repository); `caller` is mcp-lock's environment, whose PATH is bound back (default: os.environ);
    `writable` names the folders bound writable (a store entry while its install scripts run, nothing else);
    `hidden` the files and folders covered by an empty one (`covering`).
    Paths a declaration asked for and does not get are appended to `refused` (see BIND_REFUSED); raises
    BindRefused when the refused path is the working directory.
    """
    bwrap = require_bwrap()
    cwd = os.path.abspath(cwd)  # bwrap resolves a relative --chdir inside the sandbox, not here
    caller = os.environ if caller is None else caller
    readable = [os.path.abspath(path) for path in readable]
    trusted = [*readable, *_callers_installations(caller)]
    if any(_within(form, root) for root in HIDDEN for form in _forms(cwd)) and not _covered(cwd, trusted):
        raise BindRefused(f"{WORKDIR_REFUSED.format(cwd=cwd)}; not started")
    bound, denied = _binds(argv[0], env.get("PATH", ""), cwd, trusted)
    if refused is not None:
        refused.extend(denied)
    server_env = {k: v for k, v in env.items() if not k.startswith(OWN_PREFIX)}
    server_env.update({"HOME": HOME, "TMPDIR": PRIVATE_TMP, "TMP": PRIVATE_TMP, "TEMP": PRIVATE_TMP})
    command = list(argv)
    mounts = [*_sized(bwrap, tmpfs_mib), "--dir", HOME]
    for path in _hidden(bound):
        mounts += ["--ro-bind-try", path, path]
    for path in listening_sockets(bound):  # connect() ignores a read-only mount: cover each with /dev/null
        mounts += ["--ro-bind-try", "/dev/null", path]
    for path in writable:
        mounts += ["--bind", path, path]
    mounts += covering(hidden)
    server_env.update(_launcher_config(argv[0], caller, server_env))
    if package_launch(argv) and real_launcher(argv[0], server_env.get("PATH", os.defpath), cwd, caller):
        # the repository's package-manager configuration never chooses what it runs
        server_env.update(LAUNCHER_ENV)
        mounts += mask_mounts(covered(cwd, readable))
    # A new cgroup namespace: /proc/self/cgroup shows "/", not the per-boot cgroup mcp-lock made.
    flags = [*NAMESPACE_FLAGS, "--unshare-cgroup-try", *(["--unshare-net"] if network == DENY else [])]
    return [bwrap, *flags, *mounts, "--chdir", cwd, "--", *command], server_env


def covering(paths: Iterable[str]) -> list[str]:
    """Mounts that make each path absent in effect: a folder an empty read-only tmpfs, a file /dev/null (not a
    regular file: Node's `require` finds no module there, a read gets nothing). Only a path with no link in it
    (a mount on a link would cover its target) that exists now."""
    mounts: list[str] = []
    for path in paths:
        if os.path.realpath(path) != os.path.normpath(path) or not os.path.lexists(path):
            continue
        if os.path.isdir(path):
            size = ["--size", str(MIB)] if _size_ok() else []
            mounts += [*size, "--tmpfs", path, "--remount-ro", path]
        else:
            mounts += ["--ro-bind", "/dev/null", path]
    return mounts


def _size_ok() -> bool:
    bwrap = shutil.which("bwrap")
    return bwrap is not None and _has_size(bwrap)


def _sized(bwrap: str, tmpfs_mib: int) -> list[str]:
    """BASE_MOUNTS with each tmpfs bounded (where this bwrap has --size): /tmp to `tmpfs_mib` MiB, /run to
    RUN_MIB, /dev/shm to SHM_MIB; together `tmpfs_total_mib`."""
    if not _has_size(bwrap):
        return list(BASE_MOUNTS)
    sizes = {PRIVATE_TMP: tmpfs_mib, PRIVATE_RUN: RUN_MIB, SHM: SHM_MIB}
    mounts: list[str] = []
    for index, arg in enumerate(BASE_MOUNTS):
        if arg == "--tmpfs":
            mounts += ["--size", str(sizes[BASE_MOUNTS[index + 1]] * MIB)]
        mounts.append(arg)
    return mounts


def tmpfs_total_mib(tmpfs_mib: int) -> int:
    """The RAM-backed MiB a sandboxed server can fill: its /tmp, /run and /dev/shm together."""
    return tmpfs_mib + RUN_MIB + SHM_MIB


@functools.cache
def _has_size(bwrap: str) -> bool:
    """bubblewrap 0.7+ bounds a tmpfs with --size; older ones leave it unbounded (README: the gap)."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in done.stdout + done.stderr


def has_size(bwrap: str) -> bool:
    """Whether this bwrap bounds a tmpfs with --size (scanner.install.step_room sizes the tmpfs over a home)."""
    return _has_size(bwrap)


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


def _launcher_config(command: str, caller: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """The caller's own npm config file, which the private HOME would hide from npx (registry, proxy)."""
    home = caller.get("HOME", "")
    npmrc = os.path.join(home, ".npmrc") if home else ""
    wanted = os.path.basename(command) in ("npx", "npm")
    if wanted and npmrc and os.path.isfile(npmrc) and "npm_config_userconfig" not in env:
        return {"npm_config_userconfig": npmrc}
    return {}


def _callers_installations(caller: Mapping[str, str]) -> list[str]:
    """What the server may see of the caller's own: mcp-lock's installation and the caller's PATH."""
    paths = [sys.prefix, str(Path(__file__).resolve().parents[2])]
    return paths + [_root_of(p) for p in caller.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]


def _binds(command: str, declared_path: str, cwd: str, trusted: list[str]) -> tuple[list[str], list[str]]:
    """What to bind back (the trusted folders and regular files), and what the declaration names under /tmp
    or /run that is refused (the command too, when it lies in none of them), e.g. "env.PATH entry /tmp/x"."""
    bound = [p for p in trusted if _bindable(p)]
    asked = [(f"env.PATH entry {p}", p) for p in declared_path.split(os.pathsep) if os.path.isabs(p)]
    if os.sep in command:
        asked.append((f"command {command}", os.path.join(cwd, command)))
    refused = []
    for what, path in asked:
        hidden = [form for form in _forms(path) if any(_within(form, root) for root in HIDDEN)]
        covered = all(_covered(form, trusted) for form in hidden)
        if hidden and os.path.lexists(path) and not (covered and _bindable(path)):
            refused.append(what)
    return bound, refused


def _covered(form: str, trusted: Iterable[str]) -> bool:
    """Whether `form` (a path as written, or with its links resolved) lies within a trusted path, as written
    or resolved: a venv's `bin/python` under a bound /tmp folder is there, though it links to /usr."""
    return any(_within(form, t) or _within(form, os.path.realpath(t)) for t in trusted)


def _bindable(path: str) -> bool:
    """A folder or regular file (links followed): never a socket, FIFO or device."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


def _forms(path: str) -> set[str]:
    return {os.path.normpath(path), os.path.realpath(path)}


def listening_sockets(bound: Iterable[str], table: str = UNIX_SOCKETS) -> list[str]:
    """Listening Unix sockets of this network namespace (/proc/net/unix) that the sandbox would show: outside
    /tmp and /run, or inside a path bound back. At most MAX_MASKED (each mount costs bwrap about 0.5 ms)."""
    try:
        with open(table, encoding="utf-8", errors="replace") as lines:
            rows = [line.split() for line in lines.readlines()[1:]]
    except OSError:
        return []
    shown = [os.path.realpath(p) for p in bound]
    found: list[str] = []
    for row in rows:
        if len(row) < 8 or not row[7].startswith("/") or not int(row[3], 16) & ACCEPTING:
            continue
        path = os.path.realpath(row[7])
        hidden = any(_within(path, root) for root in HIDDEN) and not any(_within(path, b) for b in shown)
        if not hidden and path not in found and _is_socket(path):
            found.append(path)
    return found[:MAX_MASKED]


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _root_of(folder: str) -> str:
    """A `bin` folder's installation (the venv that holds it); /bin and any other folder itself."""
    root = os.path.dirname(folder.rstrip("/"))
    return root if os.path.basename(folder.rstrip("/")) == "bin" and root != "/" else folder


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
