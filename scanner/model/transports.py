"""The transports mcp-lock speaks: one line each, naming how the server is reached and which module speaks it.

Adding a transport is one module under `scanner.transports` with an `open_channel(request)`, one line in
TRANSPORTS, and its name in `Transport` (the type the config parsers produce).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Transport = Literal["stdio", "http", "sse"]
STDIO: Transport = "stdio"
HTTP: Transport = "http"  # Streamable HTTP
SSE: Transport = "sse"  # the older HTTP+SSE transport


@dataclass(frozen=True)
class TransportKind:
    name: Transport
    # True: mcp-lock starts the server as a process (command, args, cwd, env) and can cut its network.
    # False: mcp-lock connects to a URL (headers); the server runs elsewhere.
    local: bool
    module: str  # the module whose `open_channel(request)` speaks it
    # Its module imports the SDK (about 0.4 s): imported in a worker thread while other servers start.
    heavy: bool = False


TRANSPORTS: tuple[TransportKind, ...] = (
    TransportKind(STDIO, local=True, module="scanner.transports.local"),
    TransportKind(HTTP, local=False, module="scanner.transports.remote", heavy=True),
    TransportKind(SSE, local=False, module="scanner.transports.remote", heavy=True),
)
TRANSPORT_BY_NAME: dict[str, TransportKind] = {kind.name: kind for kind in TRANSPORTS}


def is_local(name: object) -> bool:
    """Whether a transport named in a declaration or a lockfile (untrusted) is a process mcp-lock starts."""
    kind = TRANSPORT_BY_NAME.get(name) if isinstance(name, str) else None
    return kind is not None and kind.local
