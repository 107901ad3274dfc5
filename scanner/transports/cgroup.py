"""A per-boot cgroup: at most PIDS_MAX tasks for one server, and every process it started found at the end.

RLIMIT_NPROC does not bind root (CI runs as root), so the limit is the kernel's pids controller: cgroup v1
(`/sys/fs/cgroup/pids`) or v2 (a unified hierarchy whose `cgroup.subtree_control` offers `pids`, as on
GitHub's runners). A child cgroup is made under mcp-lock's own (or the hierarchy's root), the server's
first process moves itself into it before it execs the server (`wrap`), and everything it starts is
born inside. At the end every process still in it is killed and the cgroup removed.

Where no pids controller is writable (no cgroup mount, a non-root user without a delegated cgroup)
there is no process limit: `ProcessLimit.unavailable` says why, and the README names the gap.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

PIDS_MAX = 512  # tasks (threads count too): far above a real server, low enough to stop a fork bomb
CGROUP_ROOT = Path("/sys/fs/cgroup")
MOUNTS = Path("/proc/self/mounts")
OWN = Path("/proc/self/cgroup")
REMOVE_WAIT = 2.0  # seconds to wait for the killed processes to leave before giving up on rmdir


class ProcessLimit:
    """One server's cgroup, or (`path` None) the reason there is none."""

    def __init__(self, path: Path | None, limit: int, unavailable: str = "") -> None:
        self.path, self.limit, self.unavailable = path, limit, unavailable

    @classmethod
    def create(cls, limit: int | None = None) -> ProcessLimit:
        """A fresh cgroup holding at most `limit` (default PIDS_MAX) tasks; never raises (see `unavailable`)."""
        limit = PIDS_MAX if limit is None else limit
        parents = _parents()
        if not parents:
            return cls(None, limit, "no cgroup pids controller is mounted")
        reason = ""
        for parent in parents:
            path = parent / f"run-u{uuid.uuid4().hex[:16]}.scope"
            try:
                path.mkdir()
            except OSError as error:
                reason = f"cannot create a cgroup under {parent}: {error.strerror or error}"
                continue
            try:
                (path / "pids.max").write_text(f"{limit}\n")
                return cls(path, limit)
            except OSError as error:
                reason = f"cannot set pids.max in {path}: {error.strerror or error}"
                _remove(path)
        return cls(None, limit, reason)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, started so that its first process joins this cgroup before anything else runs."""
        if self.path is None:
            return argv
        script = 'echo $$ > "$0" || exit 125; exec "$@"'
        return ["/bin/sh", "-c", script, str(self.path / "cgroup.procs"), *argv]

    def hit(self) -> bool:
        """Whether a fork or clone in the cgroup was refused for the limit."""
        if self.path is None:
            return False
        try:
            events = (self.path / "pids.events").read_text()
        except OSError:
            return False
        counts = dict(line.split(maxsplit=1) for line in events.splitlines() if " " in line)
        return counts.get("max", "0").strip() not in ("", "0")

    def close(self) -> int:
        """Kill every process left in the cgroup and remove it; returns how many were killed. Never raises."""
        if self.path is None:
            return 0
        killed = 0
        deadline = time.monotonic() + REMOVE_WAIT
        while True:
            pids = _members(self.path)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except OSError:
                    continue
            if (not pids and _remove(self.path)) or time.monotonic() > deadline:
                return killed
            time.sleep(0.01)


def _parents() -> list[Path]:
    """Where a pids-limited child cgroup can be made: mcp-lock's own cgroup, then its hierarchy's root."""
    found: list[Path] = []
    own = _own_cgroups()
    for mount, kind in _pids_mounts():
        key = "" if kind == "cgroup2" else "pids"
        relative = own.get(key, "/").lstrip("/")
        for parent in dict.fromkeys([mount / relative, mount]):
            if kind == "cgroup2" and "pids" not in _read(parent / "cgroup.subtree_control").split():
                continue
            found.append(parent)
    return found


def _pids_mounts() -> list[tuple[Path, str]]:
    """cgroup v1 hierarchies with the pids controller, then cgroup2 mounts."""
    v1, v2 = [], []
    for line in _read(MOUNTS).splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        if fields[2] == "cgroup" and "pids" in fields[3].split(","):
            v1.append((Path(fields[1]), "cgroup"))
        elif fields[2] == "cgroup2":
            v2.append((Path(fields[1]), "cgroup2"))
    return v1 + v2


def _own_cgroups() -> dict[str, str]:
    """mcp-lock's cgroup path by controller list ("" for v2)."""
    own: dict[str, str] = {}
    for line in _read(OWN).splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                own[controller] = parts[2]
    return own


def _members(path: Path) -> list[int]:
    return [int(p) for p in _read(path / "cgroup.procs").split() if p.isdigit()]


def _remove(path: Path) -> bool:
    try:
        path.rmdir()
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
