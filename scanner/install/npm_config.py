"""npm's registries as one run reads them: `npm config list` asked once per npm environment, not once per
install (issue 35).

Every install of an npm tree writes a package-lock that names each tarball at the registry npm's configuration
names (scanner.install.npm_record.npm_files), and learns those registries from `npm config list --json`, run in
the sandbox like every step (scanner.install.install). That is a Node.js start (1.8 s a tree on the 28 real
servers' cold check under load) whose answer depends on the step's environment (the caller's npm settings and
the declaration's registry: scanner.install.npm_launch.npm_environment), on whether it runs in the sandbox, and
on the configuration files npm reads (the user's `.npmrc`, npm's own), which a run does not write. So a run asks
once per distinct key of those: the first install asks, the installs started meanwhile wait for its answer, and
two launches whose environments differ in anything are asked for separately.

An error (npm failing, an answer that cannot be read) is kept as that error, never as an answer: every install
of that environment fails with it, as each would have on asking again (npm's configuration is local files, and
the same files answer the same). An asker stopped before it had an answer (its own install's deadline, a
cancelled run) leaves nothing: the next waiter asks.

A stale answer cannot widen anything: the network gate of every later step reads the registries afresh from
the step's own settings (scanner.install.registry_hosts), and `npm ci` checks each tarball's integrity.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

import anyio

Ask = Callable[[], Awaitable[dict[str, str]]]


@dataclass
class _Asking:
    done: anyio.Event
    answer: dict[str, str] | None = None
    error: Exception | None = None


@dataclass
class NpmConfigs:
    """One run's answers of `npm config list` (scanner.run.installing.InstallTerms holds one a run, so that no
    answer outlives the run): key -> the registries, or the error asking gave."""

    asked: dict[Hashable, _Asking] = field(default_factory=dict)

    async def registries(self, key: Hashable, ask: Ask) -> dict[str, str]:
        """The registries `ask` answers for `key`, asked once: the first caller asks, the others wait for it
        and get its answer or raise its error."""
        while True:
            asking = self.asked.get(key)
            if asking is None:
                return await self._ask(key, ask)
            await asking.done.wait()
            if asking.error is not None:
                raise asking.error
            if asking.answer is not None:
                return dict(asking.answer)
            # Its asker was stopped before npm answered: the entry is gone, and this caller asks.

    async def _ask(self, key: Hashable, ask: Ask) -> dict[str, str]:
        asking = self.asked[key] = _Asking(anyio.Event())
        try:
            asking.answer = dict(await ask())
        except Exception as error:
            asking.error = error
            raise
        except BaseException:  # cancelled: no answer and no error of npm's, so nothing to keep
            del self.asked[key]
            raise
        finally:
            asking.done.set()
        return dict(asking.answer)
