"""Each transport's module, imported once per run; a heavy one (the SDK) in a worker thread, ahead of its boots."""

from __future__ import annotations

from collections.abc import Iterable

import anyio
from anyio.abc import TaskGroup

from scanner.model.transports import TransportKind
from scanner.transports.channel import Opener, load_opener


class TransportModules:
    """Each transport's module, imported once; a heavy one (the SDK) in a worker thread, ahead of its boots."""

    def __init__(self) -> None:
        self._ready: dict[str, anyio.Event] = {}

    def preload(self, group: TaskGroup, kinds: Iterable[TransportKind]) -> None:
        """Start importing the heavy modules among `kinds` while the servers that need none start."""
        for kind in kinds:
            if kind.heavy and kind.module not in self._ready:
                self._ready[kind.module] = anyio.Event()
                group.start_soon(self._load, kind)

    async def _load(self, kind: TransportKind) -> None:
        try:
            await anyio.to_thread.run_sync(load_opener, kind)
        except Exception:
            pass  # each boot imports again and reports the error as its own
        finally:
            self._ready[kind.module].set()

    async def opener(self, kind: TransportKind) -> Opener:
        """`kind`'s `open_channel`, once a preload of its module (if one started) has finished."""
        ready = self._ready.get(kind.module)
        if ready is not None:
            await ready.wait()  # importing here too would block the loop the worker thread shares
        return load_opener(kind)
