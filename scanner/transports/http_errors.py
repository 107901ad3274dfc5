"""Watch an HTTP server's answers, and say in one line what went wrong with it.

The SDK's Streamable HTTP transport folds every non-2xx status into a JSON-RPC error without the
status ("Server returned an error response"), and a connection error only ends its writer task, so
the request would wait for the timeout. `HttpWitness` wraps the httpx2 transport to remember the
status and content type of the last POST, to report a connection failure at once, and to stop
reading a response past MAX_RESPONSE_BYTES (the SDK would buffer all of it) or a listing whose pages together
pass its byte cap (`scanner.transports.listing`).

Messages never carry header values, URL credentials or query strings.
"""

from __future__ import annotations

import ssl
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2

from scanner.transports.listing import ListingBudget, ListingCapExceeded
from scanner.transports.protocol import RpcError
from scanner.transports.stage import Stage
from scanner.transports.stdio import MAX_LINE

AUTH_HINT = (
    'the server needs authentication: declare a header taken from an environment variable, e.g. '
    '"headers": {"Authorization": "Bearer ${TOKEN}"}, and set TOKEN where mcp-lock runs'
)


MAX_RESPONSE_BYTES = MAX_LINE  # the cap on one stdio line: far past any real listing


class ResponseTooLarge(httpx2.TransportError):
    """The server kept sending one response past MAX_RESPONSE_BYTES."""


class HttpWitness(httpx2.AsyncBaseTransport):
    """An httpx2 transport that records what the server answered to each POST."""

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self.inner = inner or httpx2.AsyncHTTPTransport()
        self.status: int | None = None
        self.content_type = ""
        self.location = ""
        self.redirects = 0
        self.error: Exception | None = None
        self.failed = anyio.Event()
        self.listing: ListingBudget | None = None  # set while a listing is read: its pages share one byte cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self.inner.handle_async_request(request)
        except httpx2.TransportError as error:
            if request.method == "POST":
                self.fail(error)
            raise
        response.stream = _Capped(response.stream, self)  # type: ignore[arg-type]
        if request.method == "POST":
            self.status = response.status_code
            self.content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if 300 <= response.status_code < 400:
                self.redirects += 1
                self.location = _safe_url(response.headers.get("location", ""))
            else:
                self.redirects = 0
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def fail(self, error: Exception) -> None:
        if self.error is None:
            self.error = error
            self.failed.set()


class _Capped(httpx2.AsyncByteStream):
    """A response body that ends the boot once it passes MAX_RESPONSE_BYTES."""

    def __init__(self, inner: Any, witness: HttpWitness) -> None:
        self.inner, self.witness = inner, witness

    async def __aiter__(self) -> Any:
        received = 0
        async for chunk in self.inner:
            received += len(chunk)
            error: Exception | None = None
            if received > MAX_RESPONSE_BYTES:
                error = ResponseTooLarge(f"a response longer than {MAX_RESPONSE_BYTES} bytes")
            elif self.witness.listing is not None:
                try:
                    self.witness.listing.take_bytes(len(chunk))
                except ListingCapExceeded as over:
                    error = over
            if error is not None:
                self.witness.fail(error)  # the SDK would only log it and let the request wait
                raise error
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


def describe_http(
    error: BaseException, url: str, witness: HttpWitness | None, stage: Stage, timeout: float
) -> str | None:
    """A one-line message for an HTTP failure, or None when the error is not about HTTP."""
    where = _safe_url(url)
    host = _host_port(url)
    if isinstance(error, httpx2.TimeoutException):
        return f"timed out after {timeout:g}s waiting for {stage} ({where} accepted the connection but did not answer)"
    if isinstance(error, httpx2.ConnectError):
        return _connect_error(error, url, host)
    if isinstance(error, ResponseTooLarge):
        return f"{where} sent more than {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB in one response during {stage}"
    if isinstance(error, httpx2.TransportError):
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"HTTP connection to {host} failed during {stage}: {text[:200]}"
    if not isinstance(error, RpcError) or witness is None or witness.status is None:
        return None
    status = witness.status
    if witness.redirects:
        if witness.redirects > 1:
            return f"too many redirects from {where} ({witness.redirects} in a row, last to {witness.location})"
        return f"{where} redirects to {witness.location}, which was not followed: declare that URL if it is the server"
    if status in (401, 403):
        return f"HTTP {status} ({_reason(status)}) from {where}: {AUTH_HINT}"
    if status == 404:
        return f"HTTP 404 (not found) from {where}: is the URL's path the server's MCP endpoint (often /mcp)?"
    if status >= 400:
        return f"HTTP {status} ({_reason(status)}) from {where} during {stage}"
    if witness.content_type not in ("application/json", "text/event-stream"):
        kind = witness.content_type or "no content type"
        return f"{where} answered with {kind}, not JSON-RPC: is this the server's MCP endpoint?"
    return None


def _connect_error(error: httpx2.ConnectError, url: str, host: str) -> str:
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            break
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    if isinstance(cause, ssl.SSLError) or "SSL" in text or "TLS" in text:
        reason = getattr(cause, "reason", None) or (text.splitlines()[0] if text else "TLS error")
        hint = "; if the server speaks plain HTTP, use an http:// URL" if urlsplit(url).scheme == "https" else ""
        return f"TLS handshake with {host} failed ({str(reason)[:120]}){hint}"
    lowered = text.lower()
    if "refused" in lowered or "all connection attempts failed" in lowered:
        return f"connection refused by {host}: is the server running and listening there?"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "resolution" in lowered:
        return f"cannot resolve the host of {host}: check the URL"
    return f"cannot connect to {host}: {text.splitlines()[0][:200] if text else type(error).__name__}"


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return "unknown status"


def _safe_url(url: Any) -> str:
    """scheme://host:port/path — without user info, query or fragment."""
    parts = urlsplit(str(url))
    if not parts.scheme:
        return parts.path.split("?")[0][:200]
    return f"{parts.scheme}://{_netloc(parts)}{parts.path}"[:200]


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname or '?'}:{port}"


def _netloc(parts: Any) -> str:
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host
