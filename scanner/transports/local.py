"""The stdio transport: start the server as a local process and speak JSON-RPC over its pipes, without the SDK.

The process gets a minimal environment (`environment`), optionally no network (`isolation`), and a
marker its descendants inherit (`reaper`), so that everything it started is killed once it has listed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from anyio.abc import Process

from scanner.sources.model import ResolvedLaunch
from scanner.transports import rpc
from scanner.transports.channel import BootFailure, ChannelRequest
from scanner.transports.environment import server_environment
from scanner.transports.isolation import DENY, OFFLINE_ENV, IsolationUnavailable, isolated
from scanner.transports.reaper import MARKER, kill_marked, new_marker
from scanner.transports.stdio import running


@asynccontextmanager
async def open_channel(request: ChannelRequest) -> AsyncIterator[rpc.StdioChannel]:
    """Start the server and yield mcp-lock's own JSON-RPC channel to it; on exit, kill all it started."""
    launch = request.launch
    marker = new_marker()
    env = server_environment(launch.env, request.passthrough, temp_dir=request.scratch) | {MARKER: marker}
    if request.network == DENY:
        env = OFFLINE_ENV | env
    cwd = str((request.repo / launch.cwd) if launch.cwd else request.repo)
    try:
        async with AsyncExitStack() as stack:
            process = await _start(stack, _command_line(launch, env, cwd, request.network), env, cwd, request)
            yield await stack.enter_async_context(rpc.open_channel(process, request.on_garbage))
            # Nothing more is asked of a server once it has listed: end it (and its children) now
            # rather than after the channel's teardown.
            kill_marked(marker)
    finally:
        kill_marked(marker)


async def _start(
    stack: AsyncExitStack, argv: list[str], env: dict[str, str], cwd: str, request: ChannelRequest
) -> Process:
    command = request.launch.command
    try:
        return await stack.enter_async_context(running(argv, env=env, cwd=cwd, errlog=request.errlog))
    except FileNotFoundError:
        raise _not_found(command) from None
    except PermissionError:
        raise BootFailure(f"cannot execute {command}: permission denied") from None


def _command_line(launch: ResolvedLaunch, env: dict[str, str], cwd: str, network: str) -> list[str]:
    """The command line; with `network: deny`, wrapped in a new network namespace (or refused)."""
    assert launch.command is not None
    argv = [launch.command, *launch.args]
    if network != DENY:
        return argv
    if not _findable(launch.command, env, cwd):
        raise _not_found(launch.command)  # before isolation, which would report its own failure to exec
    try:
        return isolated(argv)
    except IsolationUnavailable as error:
        raise BootFailure(str(error)) from None


def _findable(command: str, env: dict[str, str], cwd: str) -> bool:
    if os.sep in command:
        return os.path.isfile(os.path.join(cwd, command))
    return shutil.which(command, path=env.get("PATH", os.defpath)) is not None


def _not_found(command: str | None) -> BootFailure:
    return BootFailure(f"command not found: {command} (is it installed and on PATH?)")
