"""The stdio transport: start the server as a local process and speak JSON-RPC over its pipes, without the SDK.

The process gets a minimal environment (`environment`) and runs in the bubblewrap sandbox (`sandbox`),
whose PID namespace ends everything it started. With `sandbox: off` it may run without network
(`isolation`), and a marker its descendants inherit (`reaper`) finds what it started, to kill it. Either
way it runs in a per-boot cgroup (`cgroup`) where the machine offers one: at most PIDS_MAX tasks and
`memory-mib` of memory (else an address-space limit), and whatever is left in it at the end is killed,
including processes that left the process group and dropped the marker.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, nullcontext
from pathlib import Path

import anyio
from anyio.abc import Process

from scanner.artifacts.resolve import resolved_artifact
from scanner.install.uv_launch import VENV
from scanner.model.environment import server_environment
from scanner.sources.declarations import ResolvedLaunch
from scanner.transports import rpc
from scanner.transports.cgroup import ProcessLimit
from scanner.transports.channel import BootFailure, ChannelRequest
from scanner.transports.isolation import DENY, OFFLINE_ENV, IsolationUnavailable
from scanner.transports.protocol import ConnectionClosed
from scanner.transports.reaper import MARKER, kill_marked, new_marker
from scanner.transports.sandbox import BIND_REFUSED, OFF, launch_command
from scanner.transports.stdio import EXIT_WAIT, running, scratch_folder

REFUSED = "sandbox-bind-refused"
LIMIT_HIT = "sandbox-limit-hit"
PIDS_HIT = (
    "the server tried to run more than {limit} processes or threads at once, and the sandbox's process limit "
    "refused the rest"
)
MEMORY_HIT = (
    "the server used more than the {mib} MiB of memory its sandbox allows and was stopped (a server that "
    "needs more can raise it: `memory-mib: N` in mcp-lock.yaml, for all servers or under servers.NAME)"
)


@asynccontextmanager
async def open_channel(request: ChannelRequest) -> AsyncIterator[rpc.StdioChannel]:
    """Start the server and yield mcp-lock's own JSON-RPC channel to it; on exit, kill all it started.

    An unsandboxed server's TMPDIR is a host folder made for this process and removed once it is ended; a
    sandboxed one's is its sandbox's private /tmp, so none is made: a folder never made is never left behind,
    however mcp-lock itself ends mid-boot (killed, os._exit), where no cleanup of its own can run."""
    folder = scratch_folder() if request.sandbox == OFF else nullcontext()
    async with folder as scratch, _open_channel(request, scratch) as channel:
        yield channel


@asynccontextmanager
async def _open_channel(request: ChannelRequest, scratch: str | None) -> AsyncIterator[rpc.StdioChannel]:
    launch = request.launch
    marker = new_marker()
    marked = {MARKER: marker} if request.sandbox == OFF else {}  # in the sandbox its PID namespace ends all
    # Only an unsandboxed server's processes carry the marker: looking for it reads the environment of every
    # process on the machine (hundreds on a busy runner), twice a boot, and would find none in the sandbox.
    end_marked = kill_marked if marked else _nothing_marked
    env = server_environment(launch.env, request.passthrough, temp_dir=scratch) | marked
    if request.network == DENY:
        env = OFFLINE_ENV | env
    cwd = str((request.repo / launch.cwd) if launch.cwd else request.repo)
    if request.installed is not None:  # as npx does: the installed tree's bins come first
        env["PATH"] = os.pathsep.join([*request.installed.path, env.get("PATH", os.defpath)])
    argv, env = _command_line(launch, env, cwd, request)
    limit = await _process_limit(request.memory_mib)
    try:
        async with AsyncExitStack() as stack:
            process = await _start(stack, limit.wrap(argv), env, cwd, request)
            roots = [{"uri": request.repo.resolve().as_uri(), "name": request.repo.resolve().name}]
            channel = rpc.open_channel(process, request.on_garbage, request.client, request.capabilities, roots)
            try:
                yield await stack.enter_async_context(channel)
            except ConnectionClosed:
                raise await _silent_exit(process, request) from None
            if request.on_artifact is not None and request.installed is None:
                artifact = resolved_artifact(launch, cwd, request.repo)
                if artifact is not None:
                    request.on_artifact(artifact)
            # Nothing more is asked of a server once it has listed: end it (and its children) now
            # rather than after the channel's teardown.
            end_marked(marker)
    finally:
        end_marked(marker)
        if limit.hit():
            request.sandbox_notes.append((LIMIT_HIT, PIDS_HIT.format(limit=limit.limit)))
        if limit.memory_hit(request.errlog.text()):
            request.sandbox_notes.append((LIMIT_HIT, MEMORY_HIT.format(mib=limit.memory_mib)))
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(limit.close)


async def _process_limit(memory_mib: int) -> ProcessLimit:
    """The boot's cgroups, made in a worker thread (mkdir and writes under /sys/fs/cgroup take milliseconds of
    the kernel's, every other boot waiting when the loop makes them); shielded, so that a cgroup made is never
    dropped unremoved by a cancelled boot."""
    with anyio.CancelScope(shield=True):
        return await anyio.to_thread.run_sync(functools.partial(ProcessLimit.create, memory_mib=memory_mib))


def _nothing_marked(marker: str) -> int:
    return 0


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


def _command_line(
    launch: ResolvedLaunch, env: dict[str, str], cwd: str, request: ChannelRequest
) -> tuple[list[str], dict[str, str]]:
    """The command line and its environment: sandboxed, network-isolated or plain, as the policy says."""
    assert launch.command is not None
    argv = list(request.installed.argv) if request.installed else [launch.command, *launch.args]
    readable = [str(request.repo)]  # the repository, even where it lies under the sandbox's private /tmp
    if request.installed is not None:
        readable.append(request.installed.entry)  # read-only, like everything bound back
    refused: list[str] = []
    try:
        return launch_command(
            argv, env, cwd, request.network, request.sandbox, readable, request.tmpfs_mib, refused,
            hidden=request.hidden,
        )
    except FileNotFoundError:
        if request.installed is not None and argv[0] == request.installed.argv[0]:
            raise _not_provided(Path(argv[0])) from None  # the launcher is there; the package has no such command
        raise _not_found(launch.command) from None  # before the sandbox, which would report its own exec failure
    except PermissionError:
        raise BootFailure(f"cannot execute {launch.command}: permission denied") from None
    except IsolationUnavailable as error:
        raise BootFailure(str(error)) from None
    finally:
        if refused:
            request.sandbox_notes.append((REFUSED, BIND_REFUSED.format(what=", ".join(refused))))


async def _silent_exit(process: Process, request: ChannelRequest) -> Exception:
    """For a server that ended without a word: which step it was at and its exit code (a launcher or an
    install script that fails silently says nothing else)."""
    with anyio.move_on_after(EXIT_WAIT):
        while process.returncode is None:
            await anyio.sleep(0.01)
    code = process.returncode
    if code is None or request.errlog.total:
        return ConnectionClosed("the server closed the connection")  # its stderr says more; describe() shows it
    return BootFailure(f"the server exited with code {code} without a word on stdout or stderr during {request.stage}")


def _not_found(command: str | None) -> BootFailure:
    return BootFailure(f"command not found: {command} (is it installed and on PATH?)")


# What a virtual environment's bin/ holds besides the package's own commands.
_VENV_TOOLS = re.compile(r"(activate|deactivate|python|pip|pydoc)([-.\w]*)?")
_SHOWN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_LISTED_AT_MOST, _READ_AT_MOST = 8, 256


def _not_provided(path: Path) -> BootFailure:
    """The installed tree has no command of the declared name (`uvx PKG` runs the command named PKG): which
    commands it does have, so the declaration can name one (`uvx --from PKG COMMAND`)."""
    offered: list[str] = []
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        for count, entry in enumerate(entries):
            if count >= _READ_AT_MOST:
                break
            if _SHOWN_NAME.fullmatch(entry.name) and not _VENV_TOOLS.fullmatch(entry.name):
                offered.append(entry.name)
    # The dependencies' commands are there too: those sharing a word with the wanted name first.
    wanted = set(re.split(r"[-_.]", path.name))
    offered.sort(key=lambda name: (-len(wanted & set(re.split(r"[-_.]", name))), name))
    shown = ", ".join(offered[:_LISTED_AT_MOST]) + (" …" if len(offered) > _LISTED_AT_MOST else "")
    how = "`uvx --from PACKAGE COMMAND`" if path.parent.parent.name == VENV else "the declaration"
    has = f"; it has: {shown} (name one in {how})" if offered else ""
    return BootFailure(f"the installed package has no command `{path.name}`{has}")
