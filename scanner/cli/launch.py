"""The `mcp-lock` executable. `mcp-lock --version` is answered before click is imported, which is about half
of the command's start-up (the pre-commit hook and CI's version checks run it); every other command goes to
the click group, loaded by name as its subcommands are (scanner.cli.main)."""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
import threading

from scanner import __version__

VERSION_LINE = f"mcp-lock, version {__version__}"  # click's version_option wording, as `main` prints it

# Pins, locks and findings are hundreds of thousands of acyclic dicts and lists; at the default gen-0 threshold (700
# allocations) the cyclic collector rescans them over and over, a quarter of the own work at 10,000 definitions
# (bench/README.md). Set before the imports (about fifty young collections of module objects otherwise) and high
# enough that a lock of a few hundred definitions runs none (one of 7,000 objects at its end took 6-11 ms of a
# 0.4 s pin, issue 39 item 2); cycles are still collected, just less often.
GC_THRESHOLDS = (200_000, 20, 20)


def run() -> None:
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(VERSION_LINE + "\n")
        return
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        importlib.import_module("scanner.cli.main").main()
    except SystemExit as done:
        leave(done.code)
        raise
    leave(0)


def leave(code: object) -> None:
    """End the process with `code` once the command is done, without the interpreter's teardown.

    Tearing down frees every pin, lock, finding and module one object at a time and runs the cyclic collector
    over them: 30-60 ms after a lock of 500 definitions, a tenth of the run (bench/README.md, issue 39 item 2),
    all of it for memory the kernel takes back at once. What the teardown does that matters is done here first:
    the exit handlers run (temporary folders removed, logging flushed) and the output is flushed. Returns, so
    that the usual exit happens, whenever the shortcut could lose something: another thread still running, an
    exit code that is not a number, output that cannot be flushed (the usual exit reports that)."""
    if code is None:
        code = 0
    if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 255:
        return
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.current_thread()):
        return
    atexit._run_exitfuncs()  # the handlers the teardown would run, each once (it clears them)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
