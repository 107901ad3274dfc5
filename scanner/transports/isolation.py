"""Run a stdio server without network access: a new user and network namespace via util-linux `unshare`.

A new user namespace lets an unprivileged user create the network namespace, so no root and no
setuid helper is needed. The namespace holds only a loopback interface, left down: a stdio server
speaks over its pipes, and bringing `lo` up would need root inside the namespace (`--map-root-user`,
which changes the uid the server sees) plus `ip` and a shell wrapper around the server's own command.

Isolation fails closed: when it is asked for and cannot be had, the server is not started.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

ALLOW = "allow"
DENY = "deny"

# Tried in order. --map-current-user (util-linux 2.38+) keeps the caller's uid inside the namespace;
# older util-linux only offers --map-root-user. Without --fork, unshare execs the server in place, so
# the server keeps the pid, process group and pipes mcp-lock gave it.
FLAG_SETS = (
    ("--user", "--map-current-user", "--net"),
    ("--user", "--map-root-user", "--net"),
)
PROBE_TIMEOUT = 10.0
FIX_HINT = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ "
    "kernel.apparmor_restrict_unprivileged_userns=0), install util-linux's unshare, "
    "or set `network: allow` for this server in mcp-lock.yaml"
)

# Without a network, package runners would wait out their registry timeouts (npx: over a minute)
# before falling back to their cache; these tell npx/npm and uv/uvx to use the cache at once.
# A declaration's own env wins.
OFFLINE_ENV = {"npm_config_offline": "true", "UV_OFFLINE": "1"}

# unshare path -> (flags that work, or None; why not). One probe per binary per process.
_probed: dict[str, tuple[tuple[str, ...] | None, str]] = {}


class IsolationUnavailable(Exception):
    """Network isolation was asked for and this machine cannot provide it."""


def isolated(argv: Sequence[str]) -> list[str]:
    """`argv` wrapped to run in a new network namespace; raises IsolationUnavailable when it cannot be."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise IsolationUnavailable(f"network: deny is set, but there is no `unshare` on PATH; not started: {FIX_HINT}")
    flags, reason = _probe(unshare)
    if flags is None:
        raise IsolationUnavailable(
            f"network: deny is set, but {unshare} cannot create a network namespace here ({reason}); "
            f"not started: {FIX_HINT}"
        )
    return [unshare, *flags, "--", *argv]


def _probe(unshare: str) -> tuple[tuple[str, ...] | None, str]:
    if unshare not in _probed:
        _probed[unshare] = _try_flag_sets(unshare)
    return _probed[unshare]


def _try_flag_sets(unshare: str) -> tuple[tuple[str, ...] | None, str]:
    reason = "no flag set worked"
    for flags in FLAG_SETS:
        try:
            done = subprocess.run(
                [unshare, *flags, "--", unshare, "--version"],  # a command surely executable by us
                capture_output=True,
                timeout=PROBE_TIMEOUT,
                env={"PATH": os.environ.get("PATH", os.defpath)},
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            reason = str(error) or type(error).__name__
            continue
        if done.returncode == 0:
            return flags, ""
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1][:200] if lines else f"exit status {done.returncode}"
    return None, reason
