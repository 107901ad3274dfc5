"""JSON-RPC 2.0 with a stdio server, without the SDK.

mcp-lock sends a handful of requests and reads their answers; this small client does that over the
pipes of a process `stdio.running` started, so a stdio-only run never pays the SDK's import. It
answers the server's own requests as the declaring client would for the capabilities it advertised
(ping; `roots/list` with the repository; a declined elicitation or sampling request; anything else
"method not found"), ignores notifications, and fails a request at once when its answer cannot be read.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from anyio.abc import Process

from scanner.transports.listing import ListingBudget, ListingCapExceeded
from scanner.transports.protocol import (
    CLIENT_INFO,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    PROTOCOL_VERSION_META_KEY,
    ConnectionClosed,
    RpcError,
    modern_envelope,
)
from scanner.transports.stdio import HEAD, MAX_LINE, OverlongLine, lines

# A response meant for us ('{"jsonrpc": …, "id": 3, …') whose id can still be read when the rest cannot.
_RESPONSE_ID = re.compile(rb'^\s*\{.*?"id"\s*:\s*(\d{1,18})\b', re.S)


class _Waiter:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.outcome: dict[str, Any] | BaseException | None = None

    def settle(self, outcome: dict[str, Any] | BaseException) -> None:
        if not self.done.is_set():
            self.outcome = outcome
            self.done.set()


class StdioChannel:
    """Requests and notifications to one stdio server; see `open_channel`."""

    def __init__(
        self,
        process: Process,
        on_garbage: Callable[[str], None],
        client: dict[str, str] = CLIENT_INFO,
        capabilities: dict[str, Any] | None = None,
        roots: list[dict[str, str]] | None = None,
    ) -> None:
        self._process = process
        self._client = client
        self._capabilities = capabilities
        self._roots = roots or []
        self._on_garbage = on_garbage
        self._pending: dict[int, _Waiter] = {}
        self._next_id = 0
        self._closed: ConnectionClosed | None = None
        self._envelope: dict[str, Any] | None = None
        self._write_lock = anyio.Lock()
        self._listing: ListingBudget | None = None
        self._over_cap = False  # a listing went past a cap: nothing more from this server is parsed

    # --- what the probe calls -------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any], *, negotiation: bool = False) -> dict[str, Any]:
        """The result of `method`; RpcError for an error answer, ConnectionClosed when the server went away."""
        if self._envelope is not None:
            params = {**params, "_meta": {**(params.get("_meta") or {}), **self._envelope}}
        self._next_id += 1
        request_id = self._next_id
        waiter = self._pending[request_id] = _Waiter()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            message["params"] = params
        try:
            await self._send(message)
            await waiter.done.wait()
        finally:
            self._pending.pop(request_id, None)
        if isinstance(waiter.outcome, BaseException):
            raise waiter.outcome
        assert waiter.outcome is not None
        return waiter.outcome

    async def notify(self, method: str) -> None:
        await self._send({"jsonrpc": "2.0", "method": method})

    async def discover(self, version: str) -> dict[str, Any]:
        envelope = modern_envelope(version, self._client, self._capabilities)
        return await self.request("server/discover", {"_meta": envelope}, negotiation=True)

    def adopt_legacy(self, result: dict[str, Any]) -> None:
        """After `initialize`: requests need nothing more over stdio (the version header is HTTP's)."""

    def adopt_modern(self, version: str, result: dict[str, Any]) -> None:
        """After `server/discover`: every request carries the per-request envelope from now on."""
        self._envelope = modern_envelope(version, self._client, self._capabilities)

    def watch_listing(self, budget: ListingBudget | None) -> None:
        """Count every line read against `budget` (None: stop) before it is parsed."""
        self._listing = budget

    def present(self, client: dict[str, str]) -> None:
        """Name `client` in every request from now on (the envelope's clientInfo, once a modern version is agreed)."""
        self._client = dict(client)
        if self._envelope is not None:
            version = self._envelope[PROTOCOL_VERSION_META_KEY]
            self._envelope = modern_envelope(version, self._client, self._capabilities)

    # --- the wire -------------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        if self._closed is not None:
            raise self._closed
        assert self._process.stdin is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            async with self._write_lock:
                await self._process.stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self._close()  # the server stopped reading: end now, do not wait for a timeout
            raise self._closed or ConnectionClosed() from None

    async def read_all(self) -> None:
        """Route every line the server prints until its stdout ends."""
        assert self._process.stdout is not None
        async for line in lines(self._process.stdout):
            await self._receive(line)
        self._close()

    def _close(self) -> None:
        if self._closed is None:
            self._closed = ConnectionClosed("the server closed the connection")
        for waiter in list(self._pending.values()):
            waiter.settle(self._closed)

    async def _receive(self, line: bytes) -> None:
        if self._over_cap:
            return
        if self._listing is not None and not isinstance(line, OverlongLine):  # that one fails its request below
            try:
                self._listing.take_line(line, len(line))
            except ListingCapExceeded as refused:
                self._over_cap = True
                for waiter in list(self._pending.values()):
                    waiter.settle(refused)  # during a listing, only the listing's request is pending
                return
        if isinstance(line, OverlongLine):
            too_long = f"a line longer than {MAX_LINE} bytes"
            self._unreadable(line, too_long, f"dropped {too_long}")
            return
        # Invalid UTF-8 must not kill the reader; the replaced text then parses or fails like any line.
        text = line.decode("utf-8", "replace")
        try:
            # Python's parser: a schema nested past pydantic's 200-level limit is a definition to pin.
            message = json.loads(text)
        except RecursionError:
            self._unreadable(line, "JSON nested too deeply to parse")
            return
        except ValueError as error:
            self._unreadable(line, str(error).splitlines()[0][:200] or "not JSON")
            return
        problem = _shape_problem(message)
        if problem is not None:
            self._unreadable(line, problem)
        elif "method" in message:
            if "id" in message:
                await self._answer_server_request(message)
        else:
            self._settle_response(message)

    def _settle_response(self, message: dict[str, Any]) -> None:
        waiter = self._pending.get(message["id"]) if _is_id(message["id"]) else None
        if waiter is None:
            return  # an answer to nothing we are waiting for (late, or invented)
        if "error" in message:
            error = message["error"]
            waiter.settle(RpcError(error["code"], error["message"], error.get("data")))
        else:
            waiter.settle(message["result"])

    async def _answer_server_request(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        method, offered = message["method"], self._capabilities or {}
        if method == "ping":
            reply["result"] = {}
        elif method == "roots/list" and "roots" in offered:
            reply["result"] = {"roots": list(self._roots)}
        elif method == "elicitation/create" and "elicitation" in offered:
            reply["result"] = {"action": "decline"}  # what a user who says no answers
        elif method == "sampling/createMessage" and "sampling" in offered:
            reply["error"] = {"code": -1, "message": "User rejected sampling request"}
        else:
            reply["error"] = {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}
        with suppress(ConnectionClosed):
            await self._send(reply)

    def _unreadable(self, line: bytes, reason: str, note: str | None = None) -> None:
        """A line that is not a JSON-RPC message: noted, and when it answers a pending request, fails it now."""
        request_id = _response_id(line)
        waiter = self._pending.get(request_id) if request_id is not None else None
        if waiter is None:
            self._on_garbage(note or reason)
            return
        waiter.settle(RpcError(PARSE_ERROR, f"mcp-lock could not parse the response: {reason}"))


def _response_id(line: bytes) -> int | None:
    head = line[:HEAD]
    if b'"jsonrpc"' not in head:
        return None
    match = _RESPONSE_ID.match(head)
    return int(match[1]) if match else None


def _is_id(value: Any) -> bool:
    return type(value) is int or type(value) is str  # not bool: True == 1 would answer request 1


def _shape_problem(message: Any) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 message, or None when it is one."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return "not a JSON-RPC 2.0 message"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "a request whose method is not a string"
        return None
    if "id" not in message:
        return "a message with neither method nor id"
    if "error" in message:
        error = message["error"]
        if not (isinstance(error, dict) and type(error.get("code")) is int and isinstance(error.get("message"), str)):
            return "an error response without an integer code and a message"
        return None
    if not isinstance(message.get("result"), dict):
        return "a response whose result is not a JSON object"
    return None


@asynccontextmanager
async def open_channel(
    process: Process,
    on_garbage: Callable[[str], None],
    client: dict[str, str] = CLIENT_INFO,
    capabilities: dict[str, Any] | None = None,
    roots: list[dict[str, str]] | None = None,
) -> AsyncIterator[StdioChannel]:
    """A channel to `process` presenting `client` as clientInfo and `capabilities` (answering `roots/list`
    with `roots`), reading its stdout until the block ends."""
    channel = StdioChannel(process, on_garbage, client, capabilities, roots)
    async with anyio.create_task_group() as group:
        group.start_soon(channel.read_all)
        try:
            yield channel
        finally:
            group.cancel_scope.cancel()
