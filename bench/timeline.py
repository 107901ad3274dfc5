"""A wall-clock timeline of one mcp-lock command: where it computes and where it waits (issue 39 items 2 and 3).

    python -P bench/timeline.py lock --repo bench/.cache/peers/fixture --quiet     # any mcp-lock arguments

Runs the command in this process with a few engine functions wrapped (each patched right after its module is
imported, so the import order is the command's own) and prints, at exit, one line per event: wall seconds since
the interpreter started, the thread, the modules loaded so far, the process CPU seconds so far, the server a boot
event belongs to, and the event (`>` entering, `<` leaving; `spawn` a child process). Nothing is asserted;
PYTHONPATH chooses the tree, as for the other benches.
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import importlib.abc
import importlib.util
import inspect
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


def _process_start() -> float:
    """The wall-clock time this process started (/proc/self/stat, in clock ticks since boot); else now."""
    try:
        with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
            return time.time() - float(uptime.read().split()[0]) + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()


STARTED = _process_start()
EVENTS: list[tuple[float, str, str]] = []
SERVER: contextvars.ContextVar[str] = contextvars.ContextVar("server", default="")

# module -> functions to time; a (name, True) pair names the server by the call's first argument.
WRAPPED: dict[str, list[tuple[str, bool]]] = {
    "scanner.cli.commands": [("workspace_at", False), ("finish", False)],
    "scanner.run.operations": [
        ("_record_facts", False), ("write_lock", False), ("boot_and_pin", False), ("kept_verdicts", False),
        ("config_findings", False), ("bootable", False), ("read_lock", False),
    ],
    "scanner.run.judging": [
        ("new_server_findings", True), ("against_pin", True), ("cross_server_findings", False),
        ("pinned_findings", False), ("learn", False),
    ],
    "scanner.run.analysis": [("_load", False)],
    "scanner.run.pinning": [("pin", False), ("settle", False), ("warm_up", False), ("redactor_for", False)],
    "scanner.run.boot": [("boot_servers", False), ("boot_one", True)],
    "scanner.run.faces": [("relist_with_control", False), ("face_findings", False)],
    "scanner.transports.probe": [("probe", False)],
    "scanner.transports.stdio": [("stop", False)],
    "scanner.transports.local": [("launch_command", False), ("_process_limit", False)],
}


def note(what: str) -> None:
    EVENTS.append((time.time() - STARTED, threading.current_thread().name[:12],
                   f"[{len(sys.modules)} {time.process_time():.3f}] {SERVER.get():>5} {what}"))


def timed(function: Callable[..., Any], label: str, names_server: bool) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            if names_server:
                SERVER.set(str(args[0]))
            note(f"> {label}")
            try:
                return await function(*args, **kwargs)
            finally:
                note(f"< {label}")
        return waited

    @functools.wraps(function)
    def ran(*args: Any, **kwargs: Any) -> Any:
        note(f"> {label}" + (f" {args[0]}" if names_server else ""))
        try:
            return function(*args, **kwargs)
        finally:
            note(f"< {label}" + (f" {args[0]}" if names_server else ""))
    return ran


class Patcher(importlib.abc.MetaPathFinder):
    """Wraps WRAPPED's functions of a module as soon as it has run."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in WRAPPED:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        assert spec is not None and spec.loader is not None
        run_module = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run_module(module)
            for function, names_server in WRAPPED[name]:
                label = f"{name.rsplit('.', 1)[-1]}.{function}"
                setattr(module, function, timed(getattr(module, function), label, names_server))
            note(f"imported {name}")

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def main() -> None:
    note("timeline start")
    sys.meta_path.insert(0, Patcher())
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def spawned(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> Any:
        argv = [str(a) for a in (args if isinstance(args, list | tuple) else [args])]
        note("spawn " + os.path.basename(argv[0]) + " " + " ".join(a[-24:] for a in argv[-2:]))
        return execute_child(self, args, *rest, **kwargs)

    subprocess.Popen._execute_child = spawned  # type: ignore[attr-defined]

    def report() -> None:
        note("exit")
        usage = resource.getrusage(resource.RUSAGE_SELF)
        print(f"own CPU {usage.ru_utime + usage.ru_stime:.3f} s; seconds, thread, [modules CPU-s] server event",
              file=sys.stderr)
        for at, thread, what in EVENTS:
            print(f"{at:7.3f} {thread:12s} {what}", file=sys.stderr)

    atexit.register(report)
    sys.argv[0] = "mcp-lock"
    from scanner.cli.main import main as mcp_lock

    mcp_lock()


if __name__ == "__main__":
    main()
