"""The transport seam: what a transport is given to open a channel to one server, and how a failure is told.

Each transport module (named in `scanner.model.transports.TRANSPORTS`) defines
`open_channel(request) -> AsyncContextManager[Channel]`. It turns failures only it understands into
`BootFailure` with a one-line message; `describe` says the rest. Modules are imported on first use, so a
stdio-only run never imports the SDK that the HTTP and SSE module needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from scanner.model.transports import TRANSPORT_BY_NAME, Transport, TransportKind
from scanner.sources.declarations import ResolvedLaunch
from scanner.transports.cgroup import DEFAULT_MEMORY_MIB
from scanner.transports.clients import DEFAULT_CLIENT, client_info
from scanner.transports.isolation import ALLOW
from scanner.transports.probe import Channel
from scanner.transports.protocol import ConnectionClosed, ProbeError, RpcError
from scanner.transports.sandbox import DEFAULT_TMPFS_MIB, ON
from scanner.transports.stage import Stage
from scanner.transports.stdio import StderrTail


@dataclass(frozen=True)
class Installed:
    """A launch mcp-lock installed itself (scanner.install): what to run instead of the declared command, the
    store entry the sandbox binds read-only, and the folders put first on the server's PATH (npx's .bin)."""

    argv: list[str]
    entry: str
    path: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ChannelRequest:
    """One attempt to reach one server."""

    launch: ResolvedLaunch
    transport: Transport  # the transport to speak: `launch.transport`, or SSE when falling back from HTTP
    repo: Path  # a local server's working directory is relative to it
    errlog: StderrTail  # where a local server's stderr goes (its tail is kept)
    timeout: float  # the whole boot's budget in seconds, for messages and HTTP client timeouts
    stage: Stage
    on_garbage: Callable[[str], None]  # told about each message that is not JSON-RPC
    passthrough: Sequence[str] = ()  # caller variables a local server may see
    network: str = ALLOW  # DENY: a local server runs without network
    sandbox: str = ON  # OFF: a local server runs outside the bubblewrap sandbox
    client: dict[str, str] = field(default_factory=lambda: client_info(DEFAULT_CLIENT))  # the clientInfo shown
    # Told what a local launch ran (scanner.artifacts.record), read once the server has listed.
    on_artifact: Callable[[dict[str, Any]], None] | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)  # the client capabilities shown in initialize
    tmpfs_mib: int = DEFAULT_TMPFS_MIB  # the size of a sandboxed server's private /tmp
    memory_mib: int = DEFAULT_MEMORY_MIB  # the memory a local server's processes may hold together
    sandbox_notes: list[tuple[str, str]] = field(default_factory=list)  # (rule id, message) the transport adds
    installed: Installed | None = None  # booted from mcp-lock's store instead of through the declared launcher
    hidden: Sequence[str] = ()  # paths a sandboxed server does not see: each covered by an empty one


class Opener(Protocol):
    def __call__(self, request: ChannelRequest) -> AbstractAsyncContextManager[Channel]: ...


class BootFailure(Exception):
    """The server could not be reached or started; the message is one line, fit to show as it is."""


class UnknownTransport(BootFailure):
    """A transport name no module speaks."""


def transport_kind(name: str) -> TransportKind:
    kind = TRANSPORT_BY_NAME.get(name)
    if kind is None:
        raise UnknownTransport(f"unknown transport {name!r} (known: {', '.join(TRANSPORT_BY_NAME)})")
    return kind


def load_opener(kind: TransportKind) -> Opener:
    """The `open_channel` of `kind`'s module, importing the module on first use."""
    return cast(Opener, importlib.import_module(kind.module).open_channel)


def open_channel(request: ChannelRequest) -> AbstractAsyncContextManager[Channel]:
    """A channel to `request.launch` over `request.transport`."""
    return load_opener(transport_kind(request.transport))(request)


def describe(error: BaseException, stage: Stage) -> str:
    """One line saying what went wrong, without a traceback (or a secret)."""
    leaf = first_error(error)
    if isinstance(leaf, BootFailure | ProbeError):
        return str(leaf)
    if isinstance(leaf, ConnectionClosed):
        return f"the server closed the connection during {stage}"
    if isinstance(leaf, RpcError):
        if leaf.code == -32000 or "closed" in leaf.message.lower():
            return f"the server closed the connection during {stage}"
        reason = (leaf.message.splitlines() or [""])[0][:300]
        return f"the server answered {stage} with error {leaf.code}: {reason}"
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__} during {stage}: {text}".splitlines()[0][:300]


def first_error(error: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
