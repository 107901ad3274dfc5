"""The modules that judge booted servers, imported in a worker thread from the first spawn on (issue 39 item 2).

Until the first server is spawned every core but one is idle; nothing before it needs the pins' hashing, the diff,
the detectors, the lock's writer or the reporters, so they load here while the servers start on the other cores.
Whoever needs one of them first simply imports it: the import system's per-module locks make that import wait for
this thread's, never run it twice, and with no import cycle in the package (tests/test_layout.py) two threads
importing cannot deadlock. An import that fails here is dropped silently and fails again, with its usual error,
where the module is used.
"""

from __future__ import annotations

import threading

_started = threading.Lock()
_thread: threading.Thread | None = None


def load_in_background() -> None:
    """Start importing the analysis modules in a worker thread; once per process, later calls do nothing."""
    global _thread
    with _started:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_load, name="analysis-import", daemon=True)
    _thread.start()


def _load() -> None:
    try:
        # In the order a run needs them: each answer's pin, then its judging, then the lock and the report.
        import scanner.lock.pin  # noqa: I001
        import scanner.run.judging
        import scanner.lock.writer
        import scanner.reporters.locate
        import scanner.reporters.text_report  # noqa: F401
    except Exception:
        pass  # imported again where it is used, which reports the error
