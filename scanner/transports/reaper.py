"""End every process a stdio server left behind, including ones that left its process group.

Killing the server's process group misses children that started their own session (daemons, `setsid`)
or outlived a server that already exited. Each server started with `sandbox: off` gets a unique
marker in its environment, which descendants inherit, and after the session every process carrying it is
killed. (In the sandbox, the server's PID namespace ends them all; see sandbox.py.)

While servers boot, mcp-lock is a child subreaper (`adopting_orphans`): a process of the run whose parent
exits (a sandbox's PID 1 once bwrap is killed, a daemon that double-forked, a child of a killed server) is
reparented to mcp-lock, not to a subreaper above it (a CI runner, a container's init) nor to init. At the
end each one is killed and waited for, so none outlives the run, even one that left its cgroup and marker.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

# Named as systemd names its per-unit id (32 hex digits too): no mcp-lock variable tells a server it is scanned.
MARKER = "INVOCATION_ID"
PROC = Path("/proc")


def new_marker() -> str:
    return uuid.uuid4().hex


def kill_marked(marker: str) -> int:
    """SIGKILL every process whose environment carries `marker`; returns how many. No-op without /proc."""
    needle = f"{MARKER}={marker}".encode() + b"\0"
    killed = 0
    if not PROC.is_dir():
        return 0
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes():
                continue
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
        except (OSError, ValueError):
            continue  # gone already, or not ours to read
    return killed


PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
REAP_ROUNDS = 64  # a killed orphan's own children are adopted in turn: at most this many generations
REAP_WAIT = 5.0  # seconds for all of that, past which the rest is left to the kernel


@contextmanager
def adopting_orphans() -> Iterator[list[int]]:
    """While the block runs, orphans of the run are mcp-lock's; at its end each is killed and reaped. Yields
    the list the reaped pids are appended to. A no-op where prctl is not available (not Linux)."""
    reaped: list[int] = []
    prctl = _prctl()
    if prctl is None:
        yield reaped
        return
    before = set(children())
    was = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    adopted = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield reaped
    finally:
        reaped += _end_adopted(before)
        if adopted and not was.value:
            prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def children() -> list[int]:
    """This process's children, from /proc/self/task/*/children."""
    found: list[int] = []
    try:
        tasks = list(Path("/proc/self/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(pid) for pid in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def _end_adopted(before: set[int]) -> list[int]:
    """Kill and wait for every child that was not one before the run (what was reparented here), then for
    what killing those reparents in turn."""
    ended: list[int] = []
    deadline = time.monotonic() + REAP_WAIT
    for _ in range(REAP_ROUNDS):
        orphans = [pid for pid in children() if pid not in before and pid not in ended]
        if not orphans or time.monotonic() > deadline:
            break
        for pid in orphans:
            with suppress(OSError):  # a zombie already, or gone
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with suppress(ChildProcessError):  # reaped by its own watcher after all
                os.waitpid(pid, 0)
            ended.append(pid)
    return ended


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
