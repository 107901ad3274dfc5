"""A per-boot cgroup: at most PIDS_MAX tasks and `memory-mib` of memory for one server, and every process it
started found at the end.

RLIMIT_NPROC does not bind root (CI runs as root), so the process limit is the kernel's pids controller, and
the memory limit its memory controller: cgroup v1 (`/sys/fs/cgroup/pids`, `/sys/fs/cgroup/memory`) or v2 (a
unified hierarchy whose `cgroup.subtree_control` offers `pids` and `memory`, as on GitHub's runners). A
child cgroup is made under mcp-lock's own (or the hierarchy's root), the server's first process moves itself
into it before it execs the server (`wrap`), and everything it starts is born inside. Memory the server
writes to its private tmpfs is charged there too. At the end every process still in it is killed and the
cgroup removed.

Where no pids controller is writable (no cgroup mount, a non-root user without a delegated cgroup) there is
no process limit: `ProcessLimit.unavailable` says why, and the README names the gap. Where no memory
controller is writable, the server's data size is limited instead (RLIMIT_DATA, set by the wrapper shell):
an allocation past it fails inside the server rather than the kernel killing it. Not RLIMIT_AS: Node's
WebAssembly (undici's HTTP parser, behind `fetch`) reserves far more address space than it uses, and under
an address-space limit of even 16 GiB it cannot start; reserved, unwritable memory is not data.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import time
import uuid
from pathlib import Path

PIDS_MAX = 512  # tasks (threads count too): far above a real server, low enough to stop a fork bomb
DEFAULT_MEMORY_MIB = 2048  # per server; the policy's `memory-mib` changes it
MIB = 1024 * 1024
CGROUP_ROOT = Path("/sys/fs/cgroup")
MOUNTS = Path("/proc/self/mounts")
OWN = Path("/proc/self/cgroup")
REMOVE_WAIT = 2.0  # seconds to wait for the killed processes to leave before giving up on rmdir
REMOVE_POLL = 0.002  # seconds between two looks (a boot's sandbox slot is held until it is gone)
# What a server that ran out of its data-size limit says on stderr (Python, Node, C libraries).
OUT_OF_MEMORY = re.compile(r"MemoryError|out of memory|Cannot allocate memory|ENOMEM|bad_alloc", re.I)


class ProcessLimit:
    """One server's cgroups (`path`: the pids one, None when there is none, `unavailable` saying why;
    `memory_path`: the memory one, None when the data-size limit stands in for it)."""

    def __init__(
        self, path: Path | None, limit: int, unavailable: str = "", memory_path: Path | None = None,
        memory_mib: int = DEFAULT_MEMORY_MIB,
    ) -> None:
        self.path, self.limit, self.unavailable = path, limit, unavailable
        self.memory_path, self.memory_mib = memory_path, memory_mib

    @classmethod
    def create(cls, limit: int | None = None, memory_mib: int | None = None) -> ProcessLimit:
        """Fresh cgroups holding at most `limit` (default PIDS_MAX) tasks and `memory_mib` (default
        DEFAULT_MEMORY_MIB) MiB; never raises (see `unavailable`)."""
        limit = PIDS_MAX if limit is None else limit
        memory_mib = DEFAULT_MEMORY_MIB if memory_mib is None else memory_mib
        path, reason = _make("pids", {"pids.max": f"{limit}\n"})
        memory_bytes = memory_mib * MIB
        v1 = {"memory.limit_in_bytes": f"{memory_bytes}\n", "memory.memsw.limit_in_bytes?": f"{memory_bytes}\n"}
        v2 = {"memory.max": f"{memory_bytes}\n", "memory.swap.max?": "0\n"}
        memory_parents = _parents("memory")
        if path is not None and path.parent in memory_parents and _is_v2(path):
            memory_path = path if _write_all(path, v2) else None  # v2: one cgroup holds both limits
        else:
            memory_path, _ = _make("memory", v1, v2)
        return cls(path, limit, reason if path is None else "", memory_path, memory_mib)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, started so that its first process joins these cgroups (or, without a memory cgroup, takes
        the data-size limit) before anything else runs."""
        steps = [f"echo $$ > {shlex.quote(str(p / 'cgroup.procs'))} || exit 125" for p in self._paths()]
        if self.memory_path is None:
            steps.append(f"ulimit -d {self.memory_mib * 1024} || exit 125")  # KiB
        return ["/bin/sh", "-c", "; ".join([*steps, 'exec "$@"']), "sh", *argv]

    def hit(self) -> bool:
        """Whether a fork or clone in the cgroup was refused for the limit."""
        return self.path is not None and _counter(self.path / "pids.events", "max") > 0

    def memory_hit(self, stderr: str = "") -> bool:
        """Whether the kernel killed a process of the server for the memory limit (without a memory cgroup:
        whether its stderr says it ran out of memory)."""
        if self.memory_path is None:
            return bool(OUT_OF_MEMORY.search(stderr))
        events = "memory.events" if _is_v2(self.memory_path) else "memory.oom_control"
        return _counter(self.memory_path / events, "oom_kill") > 0

    def memory_peak(self) -> int | None:
        """The most memory the server's cgroup held at once, in bytes (None: not known here)."""
        if self.memory_path is None:
            return None
        name = "memory.peak" if _is_v2(self.memory_path) else "memory.max_usage_in_bytes"
        text = _read(self.memory_path / name).strip()
        return int(text) if text.isdigit() else None

    def close(self) -> int:
        """Kill every process left in the cgroups and remove them; returns how many were killed. Never raises."""
        killed = 0
        deadline = time.monotonic() + REMOVE_WAIT
        for path in self._paths():
            while True:
                pids = _members(path)
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                        killed += 1
                    except OSError:
                        continue
                if (not pids and _remove(path)) or time.monotonic() > deadline:
                    break
                time.sleep(REMOVE_POLL)
        return killed

    def _paths(self) -> list[Path]:
        return list(dict.fromkeys(p for p in (self.path, self.memory_path) if p is not None))


def _make(controller: str, v1: dict[str, str], v2: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """A new cgroup with `controller` where one can be made and its files written (v1's or v2's; a name
    ending in `?` is written where the file exists); else None and why not."""
    parents = _parents(controller)
    if not parents:
        return None, f"no cgroup {controller} controller is mounted"
    reason = ""
    for parent in parents:
        path = parent / f"run-u{uuid.uuid4().hex[:16]}.scope"
        try:
            path.mkdir()
        except OSError as error:
            reason = f"cannot create a cgroup under {parent}: {error.strerror or error}"
            continue
        if _write_all(path, v2 if v2 is not None and _is_v2(path) else v1):
            return path, ""
        reason = f"cannot set the limits in {path}"
        _remove(path)
    return None, reason


def _write_all(path: Path, files: dict[str, str]) -> bool:
    for name, value in files.items():
        optional = name.endswith("?")
        target = path / name.rstrip("?")
        if optional and not target.exists():
            continue
        try:
            target.write_text(value)
        except OSError:
            if not optional:
                return False
    return True


def _is_v2(path: Path) -> bool:
    return (path / "cgroup.controllers").exists()


def _counter(path: Path, key: str) -> int:
    """The value of `key` in a flat-keyed cgroup file ("max 3", "oom_kill 1"); 0 when absent."""
    for line in _read(path).splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == key and fields[1].isdigit():
            return int(fields[1])
    return 0


def _parents(controller: str) -> list[Path]:
    """Where a child cgroup with `controller` can be made: mcp-lock's own cgroup, then its hierarchy's root."""
    found: list[Path] = []
    own = _own_cgroups()
    for mount, kind in _mounts(controller):
        key = "" if kind == "cgroup2" else controller
        relative = own.get(key, "/").lstrip("/")
        for parent in dict.fromkeys([mount / relative, mount]):
            if kind == "cgroup2" and controller not in _read(parent / "cgroup.subtree_control").split():
                continue
            found.append(parent)
    return found


def _mounts(controller: str) -> list[tuple[Path, str]]:
    """cgroup v1 hierarchies with `controller`, then cgroup2 mounts."""
    v1, v2 = [], []
    for line in _read(MOUNTS).splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        if fields[2] == "cgroup" and controller in fields[3].split(","):
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
