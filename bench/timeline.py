"""A wall-clock timeline of one mcp-lock command: where it computes and where it waits (issue 39 items 2 and 3).

    python -P bench/timeline.py lock --repo bench/.cache/peers/fixture --quiet     # any mcp-lock arguments

Runs the command in this process with a few engine functions wrapped (each patched right after its module is
imported, so the import order is the command's own) and prints, at exit, one line per event: wall seconds since
the interpreter started, the thread, the modules loaded so far, the process CPU seconds so far, the server a boot
event belongs to, and the event (`>` entering, `<` leaving; `spawn` a child process). Nothing is asserted;
PYTHONPATH chooses the tree, as for the other benches.

Then the install steps summed by kind (issue 35: where a cold check spends its time): each package-manager step
(`run_manager`, by its step name) and the store's lookup, seal and eviction, with their count, wall seconds, the
CPU seconds of the thread that ran them (the store's hashing and sealing run in worker threads) and of the
children reaped meanwhile (a step's package manager; bwrap's pid namespace hands none of it up, so a sandboxed
step reads 0 there). With `TIMELINE_CPUACCT` naming a cgroup v1 cpuacct folder the whole command runs in, that
column is the cgroup's CPU instead (every process of the run, sandboxed ones included). Either is per step only
with `--concurrency 1`, when no two steps overlap.
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import importlib.abc
import importlib.util
import inspect
import os
import re
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


# module -> (function or Class.method, kind) summed in the install summary; run_manager's kind is its `step`.
STEPS: dict[str, list[tuple[str, str]]] = {
    "scanner.install.runner": [("run_manager", "")],
    "scanner.install.store": [("ready_entry", "store lookup"), ("publish", "store seal"), ("evict", "store evict")],
    # An install's wait for npm's registries (asked once a run since issue 35; absent before).
    "scanner.install.npm_config": [("NpmConfigs.registries", "npm registries (asked or waited for)")],
}
TOTALS: dict[str, list[float]] = {}  # kind -> [count, wall s, thread CPU s, children CPU s]


CPUACCT = os.environ.get("TIMELINE_CPUACCT")


def _children_cpu() -> float:
    if CPUACCT:
        with open(os.path.join(CPUACCT, "cpuacct.usage")) as usage:
            return int(usage.read()) / 1e9
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _add(kind: str, wall: float, thread: float, children: float) -> None:
    total = TOTALS.setdefault(kind, [0, 0.0, 0.0, 0.0])
    for at, value in enumerate((1, wall, thread, children)):
        total[at] += value


def summed(function: Callable[..., Any], label: str) -> Callable[..., Any]:
    """`function` with its calls summed into TOTALS (a coroutine function's thread CPU is the loop's, left out)."""
    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            kind = label or re.sub(r"^npm rebuild \S+", "npm rebuild", str(args[3]))
            wall, children = time.perf_counter(), _children_cpu()
            try:
                return await function(*args, **kwargs)
            finally:
                _add(kind, time.perf_counter() - wall, 0.0, _children_cpu() - children)
        return waited

    @functools.wraps(function)
    def ran(*args: Any, **kwargs: Any) -> Any:
        wall, thread, children = time.perf_counter(), time.thread_time(), _children_cpu()
        try:
            return function(*args, **kwargs)
        finally:
            _add(label, time.perf_counter() - wall, time.thread_time() - thread, _children_cpu() - children)
    return ran


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
        if name not in WRAPPED and name not in STEPS:
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
            for function, names_server in WRAPPED.get(name, []):
                label = f"{name.rsplit('.', 1)[-1]}.{function}"
                setattr(module, function, timed(getattr(module, function), label, names_server))
            for function, kind in STEPS.get(name, []):
                *owners, last = function.split(".")
                owner = functools.reduce(getattr, owners, module)
                setattr(owner, last, summed(getattr(owner, last), kind))
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
        column = "cgroup CPU s" if CPUACCT else "children CPU s"
        print(f"install steps: kind, count, wall s, thread CPU s, {column}", file=sys.stderr)
        for kind, (count, wall, thread, children) in sorted(TOTALS.items(), key=lambda item: -item[1][1]):
            print(f"  {kind:40s} {count:4.0f} {wall:9.2f} {thread:8.2f} {children:8.2f}", file=sys.stderr)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"children reaped, whole run: {reaped.ru_utime:.2f} user + {reaped.ru_stime:.2f} sys", file=sys.stderr)

    atexit.register(report)
    sys.argv[0] = "mcp-lock"
    from scanner.cli.main import main as mcp_lock

    mcp_lock()


if __name__ == "__main__":
    main()
