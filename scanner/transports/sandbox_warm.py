"""bwrap's probe (scanner.transports.sandbox), started in a thread ahead of the first sandboxed boot.

Both probes wait on a bwrap process (tens of milliseconds) that the first boot would otherwise make on the event
loop, every other boot waiting with it; meanwhile the caller imports the boot machinery. `settle` joins the thread,
so the boots find both answers cached. What the probe's sandbox leaves behind must be adopted by the caller
(scanner.transports.reaper), as each boot's is.
"""

from __future__ import annotations

import shutil
import sys
import threading

from scanner.transports import sandbox

_started: list[threading.Thread] = []


def warm_up() -> None:
    """Start probing this machine's bwrap in a thread (once per process); a refused probe stops there, as
    `require_bwrap` does, so a bwrap that cannot sandbox is run once."""
    bwrap = shutil.which("bwrap")
    if bwrap is None or _started or not sys.platform.startswith("linux"):
        return

    def probe() -> None:
        if sandbox.probe(bwrap) is None:
            sandbox.has_size(bwrap)

    thread = threading.Thread(target=probe, name="bwrap-probe", daemon=True)
    _started.append(thread)
    thread.start()


def settle() -> None:
    """Wait for the probe `warm_up` started (bounded by the probes' own timeouts)."""
    for thread in _started:
        thread.join(2 * sandbox.PROBE_TIMEOUT + 1)
