"""Which sandbox a server's boot gets: one decision for the boot itself and for warming bwrap's probe ahead of it."""

from __future__ import annotations

from collections.abc import Collection

from scanner.model.transports import is_local
from scanner.policy.settings import Policy
from scanner.sources.declarations import Server
from scanner.transports.sandbox import ON


def sandbox_of(server: Server, policy: Policy, confined: Collection[str]) -> str:
    """The sandbox setting `server` boots with: on where it is confined (scanner.run.withhold: unreviewed),
    else its policy's."""
    return ON if server.key in confined else policy.for_server(*server.policy_names).sandbox


def boots_sandboxed(server: Server, policy: Policy, confined: Collection[str]) -> bool:
    """Whether `server` starts a local process in the sandbox (a remote one holds no sandbox)."""
    return (server.resolved is not None and is_local(server.resolved.transport)
            and sandbox_of(server, policy, confined) == ON)
