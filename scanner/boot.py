"""Boot servers concurrently, each bounded by a timeout, and collect what each one said."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio

from scanner.policy import Policy
from scanner.snapshot import Snapshot
from scanner.sources.model import ResolvedLaunch, Server

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
) -> dict[str, BootResult]:
    """Boot every server (they must all have a resolved launch) and return results by key."""
    _quiet_sdk_logging()
    return anyio.run(_boot_all, servers, repo, policy, timeout, concurrency, progress)


async def _boot_all(
    servers: Sequence[Server],
    repo: Path,
    policy: Policy,
    timeout: float,
    concurrency: int,
    progress: Progress | None,
) -> dict[str, BootResult]:
    results: dict[str, BootResult] = {}
    limiter = anyio.CapacityLimiter(max(1, concurrency))
    started = time.monotonic()

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
            )
        results[server.key] = result
        if progress:
            progress(_done_line(result))

    async with anyio.create_task_group() as reporter:
        if progress and servers:
            progress(f"booting {len(servers)} server(s), timeout {timeout:g}s each")
            reporter.start_soon(_report_waiting, servers, results, started, progress)
        async with anyio.create_task_group() as boots:
            for server in servers:
                boots.start_soon(run, server)
        reporter.cancel_scope.cancel()
    return results


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
) -> BootResult:
    """Boot one server and probe it; never raises for anything the server does."""
    from scanner.transports.environment import server_environment
    from scanner.transports.reaper import MARKER, kill_marked, new_marker

    started = time.monotonic()
    marker = new_marker()
    with tempfile.TemporaryDirectory(prefix="mcp-lock-") as temp_dir, open(
        Path(temp_dir) / "stderr.log", "w+", encoding="utf-8", errors="replace"
    ) as errlog:
        env = server_environment(launch.env, passthrough, temp_dir=temp_dir) | {MARKER: marker}
        cwd = str((repo / launch.cwd) if launch.cwd else repo)
        try:
            snapshot, error = await _attempt(launch, env, cwd, errlog, timeout)
        finally:
            kill_marked(marker)
        tail = _tail(Path(temp_dir) / "stderr.log")
    return BootResult(key, snapshot, error, tail, time.monotonic() - started)


async def _attempt(
    launch: ResolvedLaunch, env: dict[str, str], cwd: str, errlog: IO[str], timeout: float
) -> tuple[Snapshot | None, str | None]:
    deadline = time.monotonic() + timeout
    transports = [launch.transport] + (["sse"] if launch.sse_fallback else [])
    errors: list[str] = []
    for transport in transports:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        snapshot, error = await _connect_and_probe(launch, transport, env, cwd, errlog, remaining, timeout)
        if snapshot is not None:
            return snapshot, None
        errors.append(error if len(transports) == 1 else f"{transport}: {error}")
    return None, "; ".join(errors) or f"timed out after {timeout:g}s"


async def _connect_and_probe(
    launch: ResolvedLaunch,
    transport: str,
    env: dict[str, str],
    cwd: str,
    errlog: IO[str],
    remaining: float,
    timeout: float,
) -> tuple[Snapshot | None, str]:
    from mcp.client.session import ClientSession

    from scanner.transports.connect import open_transport
    from scanner.transports.errors import HttpWitness
    from scanner.transports.probe import Stage

    stage = Stage()
    witness = HttpWitness() if transport == "http" else None
    garbage: list[str] = []

    async def on_message(message: object) -> None:
        if isinstance(message, Exception):
            garbage.append(str(message).splitlines()[0][:200] if str(message) else type(message).__name__)

    try:
        with anyio.fail_after(remaining):
            async with open_transport(
                launch, env=env, cwd=cwd, errlog=errlog, timeout=timeout, transport=transport, witness=witness
            ) as (read, write), ClientSession(read, write, message_handler=on_message) as session:
                snapshot = await _watched_probe(session, stage, witness)
                if transport == "stdio":
                    _end_now(env)
    except TimeoutError:
        return None, f"timed out after {timeout:g}s waiting for {stage}"
    except Exception as error:
        return None, _describe(error, launch, transport, stage, witness=witness, timeout=timeout)
    if garbage:
        snapshot.notes.append(f"ignored {len(garbage)} line(s) on stdout that are not JSON-RPC")
    return snapshot, ""


def _end_now(env: dict[str, str]) -> None:
    """Kill a stdio server as soon as everything is listed.

    Nothing more is asked of it, and the SDK's polite teardown (close stdin, wait up to 2 s,
    SIGTERM) measured 0.3-0.5 s per Python server, paid before the result counts as done.
    """
    from scanner.transports.reaper import MARKER, kill_marked

    if MARKER in env:
        kill_marked(env[MARKER])


async def _watched_probe(session: Any, stage: Any, witness: Any) -> Snapshot:
    """Probe, but fail at once when the HTTP witness sees the connection fail (the SDK would wait)."""
    from scanner.transports.probe import probe

    if witness is None:
        return await probe(session, stage)
    found: list[Snapshot] = []

    async def run(scope: anyio.CancelScope) -> None:
        found.append(await probe(session, stage))
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
    from mcp.shared.exceptions import MCPError

    from scanner.transports.probe import ProbeError

    if transport in ("http", "sse") and launch.url:
        from scanner.transports.errors import describe_http

        message = describe_http(leaf, launch.url, witness, stage, timeout)
        if message:
            return message

    if isinstance(leaf, ProbeError):
        return str(leaf)
    if isinstance(leaf, FileNotFoundError) and transport == "stdio":
        return f"command not found: {launch.command} (is it installed and on PATH?)"
    if isinstance(leaf, PermissionError) and transport == "stdio":
        return f"cannot execute {launch.command}: permission denied"
    if isinstance(leaf, MCPError):
        if leaf.code == -32000 or "closed" in str(leaf).lower():
            return f"the server closed the connection during {stage}"
        return f"the server answered {stage} with error {leaf.code}: {leaf}"
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
    print(f"mcp-lock: {message}", file=sys.stderr, flush=True)
