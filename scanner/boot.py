"""Boot servers concurrently, each bounded by a timeout, and collect what each one said."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio

from scanner.policy import Policy
from scanner.snapshot import Snapshot
from scanner.sources.model import ResolvedLaunch, Server
from scanner.transports.clients import DEFAULT_CLIENT, client_info

DEFAULT_TIMEOUT = 90.0  # npx/uvx cold starts measured at 6-59 s
DEFAULT_CONCURRENCY = 8
STDERR_TAIL_BYTES = 4096
PROGRESS_INTERVAL = 5.0


@dataclass
class BootResult:
    key: str
    snapshot: Snapshot | None
    error: str | None
    stderr_tail: str
    seconds: float


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
) -> dict[str, BootResult]:
    """Boot every server (they must all have a resolved launch) and return results by key.

    `on_result` gets each result as it arrives, while the other servers still boot.
    """
    _quiet_sdk_logging()
    return anyio.run(_boot_all, servers, repo, policy, timeout, concurrency, progress, on_result)


async def _boot_all(
    servers: Sequence[Server],
    repo: Path,
    policy: Policy,
    timeout: float,
    concurrency: int,
    progress: Progress | None,
    on_result: Callable[[BootResult], None] | None,
) -> dict[str, BootResult]:
    results: dict[str, BootResult] = {}
    limiter = anyio.CapacityLimiter(max(1, concurrency))
    started = time.monotonic()
    sdk = _SdkLoader()

    async def run(server: Server) -> None:
        async with limiter:
            server_policy = policy.for_server(server.key)
            assert server.resolved is not None
            result = await boot_one(
                server.key,
                server.resolved,
                repo,
                timeout=server_policy.timeout or timeout,
                passthrough=server_policy.env,
                network=server_policy.network,
                sdk_ready=sdk.ready,
                sandbox=server_policy.sandbox,
                client=client_info(server.primary.client, server_policy.client),
            )
        results[server.key] = result
        if progress:
            progress(_done_line(result))
        if on_result:
            on_result(result)

    async with anyio.create_task_group() as reporter:
        if any(s.resolved is not None and s.resolved.transport != "stdio" for s in servers):
            reporter.start_soon(sdk.load)  # stdio servers never need the SDK
        if progress and servers:
            progress(f"booting {len(servers)} server(s), timeout {timeout:g}s each")
            reporter.start_soon(_report_waiting, servers, results, started, progress)
        async with anyio.create_task_group() as boots:
            for server in servers:
                boots.start_soon(run, server)
        reporter.cancel_scope.cancel()
    return results


class _SdkLoader:
    """Imports the SDK (about 0.4 s) in a worker thread, for HTTP and SSE servers only, while stdio servers start."""

    def __init__(self) -> None:
        self.ready = anyio.Event()

    async def load(self) -> None:
        try:
            await anyio.to_thread.run_sync(_import_sdk)
        except Exception:
            pass  # each boot imports again and reports the error as its own
        finally:
            self.ready.set()


def _import_sdk() -> None:
    # __import__ rather than importlib.import_module: the latter's parent imports are invisible to -X importtime.
    for module in ("mcp.client.session", "scanner.transports.sdk_channel", "scanner.transports.connect"):
        __import__(module)


async def _report_waiting(
    servers: Sequence[Server], results: dict[str, BootResult], started: float, progress: Progress
) -> None:
    while True:
        await anyio.sleep(PROGRESS_INTERVAL)
        waiting = [s.key for s in servers if s.key not in results]
        if not waiting:
            return
        shown = ", ".join(waiting[:5]) + (f" and {len(waiting) - 5} more" if len(waiting) > 5 else "")
        progress(f"still waiting for {shown} ({time.monotonic() - started:.0f}s)")


def _done_line(result: BootResult) -> str:
    if result.snapshot is None:
        return f"✗ {result.key}: {result.error} ({result.seconds:.1f}s)"
    counts = ", ".join(f"{len(v)} {k}" for k, v in result.snapshot.definitions.items() if v) or "nothing listed"
    return f"✓ {result.key}: {counts} ({result.seconds:.1f}s)"


async def boot_one(
    key: str,
    launch: ResolvedLaunch,
    repo: Path,
    *,
    timeout: float,
    passthrough: Sequence[str] = (),
    network: str = "allow",
    sdk_ready: anyio.Event | None = None,
    sandbox: str = "on",
    client: dict[str, str] | None = None,
) -> BootResult:
    """Boot one server and probe it; never raises for anything the server does.

    `sdk_ready` is set once the SDK is imported: HTTP and SSE servers wait for it; stdio servers never need it.
    A stdio server runs in the bubblewrap sandbox unless `sandbox` is "off"; `client` is the clientInfo shown.
    """
    from scanner.transports.environment import server_environment
    from scanner.transports.reaper import MARKER, kill_marked, new_marker

    started = time.monotonic()
    if network == "deny" and launch.transport != "stdio":
        return BootResult(key, None, _REMOTE_DENY.format(transport=launch.transport), "", 0.0)
    marker = new_marker()
    with tempfile.TemporaryDirectory(prefix="mcp-lock-") as temp_dir, open(
        Path(temp_dir) / "stderr.log", "w+", encoding="utf-8", errors="replace"
    ) as errlog:
        marked = {MARKER: marker} if sandbox == "off" else {}  # in the sandbox its PID namespace ends all
        env = server_environment(launch.env, passthrough, temp_dir=temp_dir) | marked
        if network == "deny":
            from scanner.transports.isolation import OFFLINE_ENV

            env = OFFLINE_ENV | env
        cwd, client = str((repo / launch.cwd) if launch.cwd else repo), client or client_info(DEFAULT_CLIENT)
        attempt = _Attempt(launch, env, cwd, errlog, network, sdk_ready, sandbox, client, [str(repo)])
        try:
            snapshot, error = await attempt.run(timeout)
        finally:
            kill_marked(marker)
        tail = _tail(Path(temp_dir) / "stderr.log")
    return BootResult(key, snapshot, error, tail, time.monotonic() - started)


_REMOTE_DENY = (
    "network: deny applies only to stdio servers; mcp-lock itself connects to this {transport} server over the "
    "network, so set `network: allow` for it in mcp-lock.yaml"
)


@dataclass
class _Attempt:
    launch: ResolvedLaunch
    env: dict[str, str]
    cwd: str
    errlog: IO[str]
    network: str
    sdk_ready: anyio.Event | None
    sandbox: str
    client: dict[str, str]
    readable: list[str]  # host paths a sandboxed server must see (the repository)

    async def run(self, timeout: float) -> tuple[Snapshot | None, str | None]:
        deadline = time.monotonic() + timeout
        transports = [self.launch.transport] + (["sse"] if self.launch.sse_fallback else [])
        errors: list[str] = []
        for transport in transports:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            snapshot, error = await self._connect_and_probe(transport, remaining, timeout)
            if snapshot is not None:
                return snapshot, None
            errors.append(error if len(transports) == 1 else f"{transport}: {error}")
        return None, "; ".join(errors) or f"timed out after {timeout:g}s"

    async def _connect_and_probe(self, transport: str, remaining: float, timeout: float) -> tuple[Snapshot | None, str]:
        from scanner.transports.isolation import IsolationUnavailable
        from scanner.transports.stage import Stage

        stage = Stage()
        witness: Any = None
        garbage: list[str] = []
        try:
            with anyio.fail_after(remaining):
                if transport == "stdio":
                    async with AsyncExitStack() as stack:
                        snapshot = await _probe(await self._stdio_channel(stack, garbage), stage, self.client)
                        _end_now(self.env)
                else:
                    from scanner.transports.errors import HttpWitness

                    witness = HttpWitness()
                    snapshot = await _watched(witness, self._remote_probe, transport, timeout, witness, garbage, stage)
        except TimeoutError:
            return None, f"timed out after {timeout:g}s waiting for {stage}"
        except IsolationUnavailable as error:
            return None, str(error)
        except Exception as error:
            if transport != "stdio":
                await self._sdk()  # _describe needs it; importing here would block the loop the thread is sharing
            return None, _describe(error, self.launch, transport, stage, witness=witness, timeout=timeout)
        if garbage:
            snapshot.notes.append(f"ignored {len(garbage)} line(s) on stdout that are not JSON-RPC")
        return snapshot, ""

    async def _stdio_channel(self, stack: AsyncExitStack, garbage: list[str]) -> Any:
        """mcp-lock's own JSON-RPC client over the server's pipes: no SDK import on the way."""
        from scanner.transports.rpc import open_channel
        from scanner.transports.stdio import running

        argv, env = self._launch()
        process = await stack.enter_async_context(running(argv, env=env, cwd=self.cwd, errlog=self.errlog))
        return await stack.enter_async_context(open_channel(process, garbage.append, self.client))

    async def _remote_probe(self, transport: str, timeout: float, witness: Any, garbage: list[str], stage: Any) -> Any:
        async with AsyncExitStack() as stack:
            channel = await self._sdk_channel(stack, transport, timeout, witness, garbage)
            return await _probe(channel, stage, self.client)

    async def _sdk_channel(
        self, stack: AsyncExitStack, transport: str, timeout: float, witness: Any, garbage: list[str]
    ) -> Any:
        """The SDK's session over its HTTP or SSE transport."""
        await self._sdk()
        import mcp_types
        from mcp.client.session import ClientSession

        from scanner.transports.connect import open_transport
        from scanner.transports.sdk_channel import SdkChannel

        async def on_message(message: object) -> None:
            if isinstance(message, Exception):
                garbage.append(str(message).splitlines()[0][:200] if str(message) else type(message).__name__)

        read, write = await stack.enter_async_context(
            open_transport(self.launch, timeout=timeout, transport=transport, witness=witness)
        )
        info = mcp_types.Implementation(**self.client)
        session = ClientSession(read, write, message_handler=on_message, client_info=info)
        session = await stack.enter_async_context(session)
        return SdkChannel(session)

    async def _sdk(self) -> None:
        if self.sdk_ready is not None:
            await self.sdk_ready.wait()

    def _launch(self) -> tuple[list[str], dict[str, str]]:
        """The command line and its environment: sandboxed, network-isolated or plain, as the policy says."""
        from scanner.transports.sandbox import launch_command

        assert self.launch.command is not None
        argv = [self.launch.command, *self.launch.args]
        return launch_command(argv, self.env, self.cwd, self.network, self.sandbox, self.readable)


def _end_now(env: dict[str, str]) -> None:
    """Kill a stdio server as soon as everything is listed.

    Nothing more is asked of it, and the SDK's polite teardown (close stdin, wait up to 2 s,
    SIGTERM) measured 0.3-0.5 s per Python server, paid before the result counts as done.
    """
    from scanner.transports.reaper import MARKER, kill_marked

    if MARKER in env:
        kill_marked(env[MARKER])


async def _probe(channel: Any, stage: Any, client: dict[str, str]) -> Snapshot:
    from scanner.transports.probe import probe

    return await probe(channel, stage, client)


async def _watched(witness: Any, work: Callable[..., Awaitable[Snapshot]], *args: Any) -> Snapshot:
    """`work(*args)`, but fail at once when the HTTP witness sees the connection fail (the SDK would wait)."""
    found: list[Snapshot] = []

    async def run(scope: anyio.CancelScope) -> None:
        found.append(await work(*args))
        scope.cancel()

    async def watch() -> None:
        await witness.failed.wait()
        raise witness.error

    async with anyio.create_task_group() as group:
        group.start_soon(run, group.cancel_scope)
        group.start_soon(watch)
    return found[0]


def _describe(
    error: BaseException,
    launch: ResolvedLaunch,
    transport: str,
    stage: object,
    *,
    witness: Any = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> str:
    """One line saying what went wrong, without a traceback (or a secret)."""
    leaf = _leaf(error)
    from scanner.transports.protocol import ConnectionClosed, ProbeError, RpcError

    if transport in ("http", "sse") and launch.url:
        from scanner.transports.errors import describe_http
        from scanner.transports.sdk_channel import rpc_error

        leaf = rpc_error(leaf)  # the SDK's transports raise its own MCPError outside any request
        message = describe_http(leaf, launch.url, witness, stage, timeout)
        if message:
            return message

    if isinstance(leaf, ProbeError):
        return str(leaf)
    if isinstance(leaf, FileNotFoundError) and transport == "stdio":
        return f"command not found: {launch.command} (is it installed and on PATH?)"
    if isinstance(leaf, PermissionError) and transport == "stdio":
        return f"cannot execute {launch.command}: permission denied"
    if isinstance(leaf, ConnectionClosed):
        return f"the server closed the connection during {stage}"
    if isinstance(leaf, RpcError):
        if leaf.code == -32000 or "closed" in leaf.message.lower():
            return f"the server closed the connection during {stage}"
        reason = (leaf.message.splitlines() or [""])[0][:300]
        return f"the server answered {stage} with error {leaf.code}: {reason}"
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__} during {stage}: {text}".splitlines()[0][:300]


def _leaf(error: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _tail(path: Path) -> str:
    with path.open("rb") as log:
        log.seek(0, 2)
        log.seek(max(0, log.tell() - STDERR_TAIL_BYTES))
        return log.read().decode("utf-8", "replace").strip()


def _quiet_sdk_logging() -> None:
    # The SDK logs a traceback for every unparsable stdout line; the probe reports those itself.
    import logging

    for name in ("mcp", "httpx2", "httpx", "anyio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def stderr_progress(message: str) -> None:
    from scanner.reporters.terminal import safe

    print(f"mcp-lock: {safe(message)}", file=sys.stderr, flush=True)
