"""One budget of RAM-backed tmpfs for the whole run: sandboxed servers booting at once never size more than
it together, so concurrency cannot multiply the per-server bound (8 boots of 592 MiB would be 4.6 GiB).

A boot waits for room rather than overcommit; one that needs more than the whole budget is not started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

BUDGET_KEY = "tmpfs-budget-mib"  # its key in mcp-lock.yaml (default: sandbox.DEFAULT_TMPFS_BUDGET_MIB)


class OverBudget(Exception):
    """One server alone needs more tmpfs than the run's budget; the message says which settings to change."""


class TmpfsBudget:
    def __init__(self, mib: int) -> None:
        self.total = self.free = mib
        self._changed = anyio.Condition()

    @asynccontextmanager
    async def room(self, need: int) -> AsyncIterator[None]:
        """Hold `need` MiB of the budget while the block runs, waiting until that much is free."""
        if need > self.total:
            raise OverBudget(
                f"its sandbox's tmpfs (/tmp, /run and /dev/shm: {need} MiB) would not fit the run's tmpfs budget "
                f"of {self.total} MiB; not started: lower `tmpfs-mib` for it or raise `{BUDGET_KEY}` in mcp-lock.yaml"
            )
        async with self._changed:
            while self.free < need:
                await self._changed.wait()
            self.free -= need
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self._changed:
                    self.free += need
                    self._changed.notify_all()
