"""The command lines of a running server's process tree (Linux /proc), which name the install it runs from,
and the root they are seen from."""

from __future__ import annotations

import os
from dataclasses import dataclass

MAX_PROCESSES = 256  # a server's own tree; a fork bomb is cut off here, not walked
MAX_CMDLINE = 64 * 1024


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, breadth first, at most MAX_PROCESSES; [] where /proc is not there."""
    found: list[int] = []
    queue = [pid]
    while queue and len(found) < MAX_PROCESSES:
        current = queue.pop(0)
        found.append(current)
        queue += _children(current)
    return found


def _children(pid: int) -> list[int]:
    children: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return children
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as handle:
                children += [int(word) for word in handle.read().split()]
        except (OSError, ValueError):
            continue
    return children


@dataclass(frozen=True)
class ServerTree:
    """Where the server's process tree runs: the root its command lines name paths in (`/`, or
    `/proc/<pid>/root` of a process in its sandbox, whose private mounts only that path reaches) and the
    command lines of the processes that run there."""

    root: str
    command_lines: list[list[str]]
    pid: int | None = None  # the process whose root it is, in the mount namespace `namespace`
    namespace: tuple[int, int] | None = None

    def current(self) -> bool:
        """Whether `pid` is still a process of that namespace (its PID was not reused since)."""
        return self.pid is None or _identity(f"/proc/{self.pid}/ns/mnt") == self.namespace


def server_tree(pid: int) -> ServerTree:
    """The tree below `pid`, seen from its sandbox when it runs in one (another mount namespace than ours)."""
    own = _identity("/proc/self/ns/mnt")
    seen = [(process, _identity(f"/proc/{process}/ns/mnt"), _argv(process)) for process in descendants(pid)]
    sandboxed = next(((process, ns) for process, ns, _ in seen if ns is not None and ns != own), None)
    if sandboxed is None:
        return ServerTree("/", [argv for _, _, argv in seen if argv is not None])
    process, namespace = sandboxed
    # The sandbox's first processes are bwrap forked without an exec: their command line (naming every
    # bind's path) is the launcher's, as bwrap outside has it, not the server's.
    launcher = {tuple(argv) for _, ns, argv in seen if argv is not None and ns != namespace}
    inside = [argv for _, ns, argv in seen if argv is not None and ns == namespace and tuple(argv) not in launcher]
    return ServerTree(f"/proc/{process}/root", inside, process, namespace)


def _identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _argv(pid: int) -> list[str] | None:
    """The argv of `pid`; None once it cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(MAX_CMDLINE)
    except OSError:
        return None
    return [word.decode("utf-8", "replace") for word in raw.split(b"\0") if word]
