"""Boot servers concurrently, each bounded by a timeout, and collect what each one said."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from scanner.model.transports import SSE, TRANSPORT_BY_NAME, TransportKind
from scanner.policy.settings import DEFAULT_TIMEOUT, Policy
from scanner.run.boot_progress import done_line, report_waiting
from scanner.run.budget import OverBudget, TmpfsBudget
from scanner.run.faces import OFF, PROCESS, SESSION, Face, SecondListing, controlled, relist_with_control
from scanner.run.installing import Install, InstallTerms, install_launch, script_destinations
from scanner.run.sandbox_choice import boots_sandboxed, sandbox_of
from scanner.run.transport_modules import TransportModules
from scanner.snapshot import Snapshot
from scanner.sources.declarations import ResolvedLaunch, Server
from scanner.transports.cgroup import DEFAULT_MEMORY_MIB
from scanner.transports.channel import (
    ChannelRequest,
    UnknownTransport,
    describe,
    transport_kind,
)
from scanner.transports.clients import DEFAULT_CLIENT, client_hello, client_info, second_face
from scanner.transports.isolation import ALLOW, DENY
from scanner.transports.listing import DEFAULT_CAPS, ListingCaps
from scanner.transports.probe import probe
from scanner.transports.reaper import adopting_orphans
from scanner.transports.sandbox import DEFAULT_TMPFS_BUDGET_MIB, DEFAULT_TMPFS_MIB, ON, tmpfs_total_mib
from scanner.transports.stage import Stage
from scanner.transports.stdio import StderrTail

DEFAULT_CONCURRENCY = 8


@dataclass
class BootResult:
    key: str
    snapshot: Snapshot | None
    error: str | None
    stderr_tail: str
    seconds: float
    # What the sandbox refused or bounded for this server: (rule id, message), each a finding.
    sandbox_notes: list[tuple[str, str]] = field(default_factory=list)
    exit_code: int | None = None  # a local server's own exit status, when it exited before it was ended
    client: dict[str, str] = field(default_factory=dict)  # the clientInfo the (first) listing was made as
    second: SecondListing | None = None  # the same server listed as another client (scanner.run.faces)


Progress = Callable[[str], None]


def boot_servers(
    servers: Sequence[Server],
    repo: Path,
    policy: Policy,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    on_result: Callable[[BootResult], None] | None = None,
    bare: Collection[str] = (),
    trees: Mapping[str, dict[str, Any]] | None = None,
    confined: Collection[str] = (),
    hidden: Mapping[str, Sequence[str]] | None = None,
    second_listing: str = SESSION,
    on_open: Callable[[], None] | None = None,
) -> dict[str, BootResult]:
    """Boot every server (they must all have a resolved launch) and return results by key.

    `second_listing`: how each server is listed again as another client (scanner.run.faces): SESSION, PROCESS or OFF.

    `on_result` gets each result as it arrives (in a worker thread, one at a time), while the other servers still
    boot. The servers keyed in `bare` get none of the caller variables the policy passes through; `trees` are the
    lock's dependency trees by server key, booted from the store when it holds them. `on_open` is called (on the
    loop) each time a server's channel opens: its process has just been spawned.
    """
    _quiet_sdk_logging()
    with adopting_orphans():  # every process of the run is waited for, and none outlives it
        return anyio.run(
            _boot_all, servers, repo, policy, timeout, concurrency, progress, on_result, frozenset(bare), trees or {},
            frozenset(confined), hidden or {}, second_listing, on_open,
        )


async def _boot_all(
    servers: Sequence[Server],
    repo: Path,
    policy: Policy,
    timeout: float,
    concurrency: int,
    progress: Progress | None,
    on_result: Callable[[BootResult], None] | None,
    bare: frozenset[str],
    trees: Mapping[str, dict[str, Any]],
    confined: frozenset[str],
    hidden: Mapping[str, Sequence[str]],
    second_listing: str,
    on_open: Callable[[], None] | None,
) -> dict[str, BootResult]:
    results: dict[str, BootResult] = {}
    limiter = anyio.CapacityLimiter(max(1, concurrency))
    analysing = anyio.CapacityLimiter(1)  # `on_result` never runs twice at once
    started = time.monotonic()
    modules = TransportModules()
    budget = TmpfsBudget(policy.tmpfs_budget_mib or DEFAULT_TMPFS_BUDGET_MIB)
    installing = InstallTerms(
        policy.install_timeout,
        policy.store_mib,
        builds=frozenset(policy.builds),
        script_hosts={name: script_destinations(hosts) for name, hosts in policy.script_hosts.items()},
    )

    async def run(server: Server) -> None:
        async with limiter:
            server_policy = policy.for_server(*server.policy_names)
            assert server.resolved is not None
            tmpfs_mib = server_policy.tmpfs_mib or DEFAULT_TMPFS_MIB
            sandbox = sandbox_of(server, policy, confined)
            sandboxed = boots_sandboxed(server, policy, confined)
            need = tmpfs_total_mib(tmpfs_mib) if sandboxed else 0
            # Both listings at once when the budget holds both sandboxes; one after the other when not.
            parallel = second_listing == PROCESS and 2 * need <= budget.total
            try:
                async with budget.room(2 * need if parallel else need):
                    result = await boot_one(
                        server.key,
                        server.resolved,
                        repo,
                        timeout=server_policy.timeout or timeout,
                        passthrough=() if server.key in bare else server_policy.env,
                        network=server_policy.network,
                        sandbox=sandbox,
                        client=client_info(server.primary.client, server_policy.client),
                        modules=modules,
                        caps=server_policy.caps or DEFAULT_CAPS,
                        tmpfs_mib=tmpfs_mib,
                        memory_mib=server_policy.memory_mib or DEFAULT_MEMORY_MIB,
                        declared_by=server.primary.client,
                        pinned_tree=trees.get(server.key),
                        installing=installing,
                        hidden=tuple(hidden.get(server.key, ())),
                        second_listing=second_listing,
                        second_parallel=parallel,
                        on_open=on_open,
                    )
            except OverBudget as refused:
                result = BootResult(server.key, None, str(refused), "", 0.0)
        results[server.key] = result
        if progress:
            progress(done_line(result))
        if on_result:
            # Off the loop, one at a time: pinning and judging is CPU work that held every other boot's messages.
            await anyio.to_thread.run_sync(on_result, result, limiter=analysing)

    async with anyio.create_task_group() as reporter:
        modules.preload(reporter, _transports_needed(servers))
        if progress and servers:
            progress(f"booting {len(servers)} server(s), timeout {timeout:g}s each")
            reporter.start_soon(report_waiting, servers, results, started, progress)
        async with anyio.create_task_group() as boots:
            for server in servers:
                boots.start_soon(run, server)
        reporter.cancel_scope.cancel()
    return results


def _transports_needed(servers: Sequence[Server]) -> list[TransportKind]:
    names = {name for s in servers if s.resolved is not None for name in transports_of(s.resolved)}
    return [TRANSPORT_BY_NAME[name] for name in sorted(names) if name in TRANSPORT_BY_NAME]


async def boot_one(
    key: str,
    launch: ResolvedLaunch,
    repo: Path,
    *,
    timeout: float,
    passthrough: Sequence[str] = (),
    network: str = ALLOW,
    sandbox: str = ON,
    client: dict[str, str] | None = None,
    modules: TransportModules | None = None,
    caps: ListingCaps = DEFAULT_CAPS,
    tmpfs_mib: int = DEFAULT_TMPFS_MIB,
    memory_mib: int = DEFAULT_MEMORY_MIB,
    declared_by: str | None = None,
    pinned_tree: dict[str, Any] | None = None,
    installing: InstallTerms | None = None,
    hidden: Sequence[str] = (),
    second_listing: str = OFF,
    second_parallel: bool = False,
    on_open: Callable[[], None] | None = None,
) -> BootResult:
    """Boot one server and probe it; never raises for anything the server does.

    A stdio server runs in the bubblewrap sandbox unless `sandbox` is "off"; `client` is the clientInfo shown,
    with the protocol version and capabilities of the client that declared the server (`declared_by`).
    `pinned_tree`: the lock's tree for the reviewed launch, installed exactly and booted (scanner.run.installing);
    `installing`: the policy's install bound and store size.
    `second_listing`: also list it as another client (scanner.run.faces); a second process at once or after.
    """
    try:
        kinds = [transport_kind(name) for name in transports_of(launch)]
    except UnknownTransport as error:
        return BootResult(key, None, str(error), "", 0.0)
    if network == DENY and not all(kind.local for kind in kinds):
        return BootResult(key, None, _REMOTE_DENY.format(transport=launch.transport), "", 0.0)
    started = time.monotonic()
    errlog = StderrTail()
    shown = client or client_info(DEFAULT_CLIENT)
    attempt = _Attempt(
        launch, repo, errlog, tuple(passthrough), network, sandbox, shown, modules or TransportModules(),
        caps, tmpfs_mib, memory_mib, client_hello(declared_by),
        pinned_tree=pinned_tree,
        installing=installing or InstallTerms(),
        hidden=tuple(hidden),
        second_client=None if second_listing == OFF else second_face(shown),
        second_mode=second_listing,
        second_parallel=second_parallel,
        on_open=on_open,
    )
    snapshot, error = await attempt.run(kinds, timeout)
    notes = list(dict.fromkeys(attempt.sandbox_notes))
    elapsed = time.monotonic() - started
    second = attempt.second if snapshot is not None else None
    return BootResult(key, snapshot, error, errlog.text(), elapsed, notes, errlog.exit_code, shown, second)


def transports_of(launch: ResolvedLaunch) -> list[str]:
    """The transports to try, in order: the declared one, then SSE where the client falls back to it."""
    return [launch.transport, *([SSE] if launch.sse_fallback else [])]


_REMOTE_DENY = (
    "network: deny applies only to stdio servers; mcp-lock itself connects to this {transport} server over the "
    "network, so set `network: allow` for it in mcp-lock.yaml"
)


@dataclass
class _Attempt:
    launch: ResolvedLaunch
    repo: Path
    errlog: StderrTail
    passthrough: tuple[str, ...]
    network: str
    sandbox: str
    client: dict[str, str]
    modules: TransportModules
    caps: ListingCaps = DEFAULT_CAPS
    tmpfs_mib: int = DEFAULT_TMPFS_MIB
    memory_mib: int = DEFAULT_MEMORY_MIB
    hello: tuple[str, dict[str, Any]] = field(default_factory=lambda: client_hello(None))
    sandbox_notes: list[tuple[str, str]] = field(default_factory=list)
    install: Install = field(default_factory=Install)
    pinned_tree: dict[str, Any] | None = None  # the lock's tree for this launch: installed exactly, never resolved
    installing: InstallTerms = field(default_factory=InstallTerms)
    hidden: tuple[str, ...] = ()  # what its sandbox hides of the repository (scanner.policy.inert)
    second_client: dict[str, str] | None = None  # list it again as this client (scanner.run.faces)
    second_mode: str = OFF  # SESSION: over the first listing's connection; PROCESS: a fresh process
    second_parallel: bool = True  # PROCESS: the second listing alongside the first, not after it
    second: SecondListing | None = None
    on_open: Callable[[], None] | None = None  # each time a channel opens (boot_servers)

    async def run(self, kinds: Sequence[TransportKind], timeout: float) -> tuple[Snapshot | None, str | None]:
        if all(kind.local for kind in kinds):
            # Installing has its own bound; the server's `timeout:` starts when its tree is ready.
            self.install = await install_launch(
                self.launch, self.installing, sandbox=self.sandbox,
                notes=self.sandbox_notes, pinned_tree=self.pinned_tree,
            )
            if self.install.error is not None:
                return None, self.install.error
        return await self._boot_faces(kinds, time.monotonic() + timeout, timeout)

    async def _boot_faces(
        self, kinds: Sequence[TransportKind], deadline: float, timeout: float
    ) -> tuple[Snapshot | None, str | None]:
        """The first listing, and the second (scanner.run.faces) beside it or after it; the first is the result."""
        client = self.second_client
        if client is None or self.second_mode != PROCESS:
            return await self._boot(kinds, deadline, timeout)
        if not self.second_parallel:
            first = await self._boot(kinds, deadline, timeout)
            if first[0] is not None:
                self.second = await self._second(client, kinds, deadline, timeout)
            return await self._controlled(first, kinds, deadline, timeout)

        async def second() -> None:
            self.second = await self._second(client, kinds, deadline, timeout)

        async with anyio.create_task_group() as group:
            group.start_soon(second)
            first = await self._boot(kinds, deadline, timeout)
            if first[0] is None:
                group.cancel_scope.cancel()  # nothing to compare it with
        return await self._controlled(first, kinds, deadline, timeout)

    async def _controlled(
        self, first: tuple[Snapshot | None, str | None], kinds: Sequence[TransportKind], deadline: float, timeout: float
    ) -> tuple[Snapshot | None, str | None]:
        """`first`, once the second listing has its control (a fresh process as the first client) if they differ."""
        if first[0] is not None and self.second is not None:
            self.second = await controlled(self.second, first[0], lambda: self._second(self.client, kinds, deadline,
                                                                                        timeout))
        return first

    async def _second(
        self, client: dict[str, str], kinds: Sequence[TransportKind], deadline: float, timeout: float
    ) -> SecondListing:
        """A fresh process (its own stderr) listing as `client`, without prompt bodies."""
        face = Face(client, StderrTail(), bodies=False)
        snapshot, error = await self._boot(kinds, deadline, timeout, face)
        return SecondListing(client, snapshot, error)

    async def _boot(
        self, kinds: Sequence[TransportKind], deadline: float, timeout: float, face: Face | None = None
    ) -> tuple[Snapshot | None, str | None]:
        errors: list[str] = []
        for kind in kinds:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            snapshot, error = await self._connect_and_probe(kind, remaining, timeout, face)
            if snapshot is not None:
                return snapshot, None
            errors.append(error if len(kinds) == 1 else f"{kind.name}: {error}")
        return None, "; ".join(errors) or f"timed out after {timeout:g}s"

    async def _connect_and_probe(
        self, kind: TransportKind, remaining: float, timeout: float, face: Face | None = None
    ) -> tuple[Snapshot | None, str]:
        face = face or Face(self.client, self.errlog)
        ends = time.monotonic() + remaining
        stage = Stage()
        garbage: list[str] = []
        artifacts: list[dict[str, Any]] = []
        request = ChannelRequest(
            launch=self.launch,
            transport=kind.name,
            repo=self.repo,
            errlog=face.errlog,
            timeout=timeout,
            stage=stage,
            on_garbage=garbage.append,
            passthrough=self.passthrough,
            network=self.network,
            sandbox=self.sandbox,
            client=face.client,
            on_artifact=artifacts.append if face.bodies else None,
            tmpfs_mib=self.tmpfs_mib,
            memory_mib=self.memory_mib,
            capabilities=dict(self.hello[1]),
            sandbox_notes=self.sandbox_notes,
            installed=self.install.installed,
            hidden=self.hidden,
        )
        try:
            # Importing the transport (the SDK, in a worker thread) is mcp-lock's own time, not the server's:
            # on a loaded runner it took seconds, and a short timeout failed the server for it.
            open_channel = await self.modules.opener(kind)
            with anyio.fail_after(remaining):
                async with open_channel(request) as channel:
                    if self.on_open:
                        self.on_open()
                    snapshot = await probe(
                        channel, stage, face.client, caps=self.caps, hello=self.hello, bodies=face.bodies
                    )
                    garbage = list(garbage)  # what the first listing saw; the second listing's lines are its own
                    if self.second_client is not None and self.second_mode == SESSION:
                        self.second = await relist_with_control(
                            channel, self.second_client, self.caps, self.hello, ends, snapshot, face.client
                        )
        except TimeoutError:
            return None, f"timed out after {timeout:g}s waiting for {stage}"
        except Exception as error:
            return None, describe(error, stage)
        snapshot.artifact = self.install.artifact or (artifacts[0] if artifacts else None)
        snapshot.tree = self.install.tree
        if garbage:
            snapshot.notes.append(f"ignored {len(garbage)} line(s) on stdout that are not JSON-RPC")
        return snapshot, ""


def _quiet_sdk_logging() -> None:
    # The SDK logs a traceback for every message it cannot parse; the probe reports those itself.
    for name in ("mcp", "httpx2", "httpx", "anyio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
