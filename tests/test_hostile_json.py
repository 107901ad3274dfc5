"""JSON from a server or a registry never crashes mcp-lock: fuzzed with hypothesis over each parser that reads it.

Parsers: `safe_json.loads` (npm's install records, a container engine's answer), the stdio channel's line
reader (a server's JSON-RPC messages), the image digest reader and the npm record reader.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.artifacts import image, npm
from scanner.files import safe_json
from scanner.transports.rpc import StdioChannel

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


def deep(levels: int, opener: str = "[") -> str:
    closer = {"[": "]", "{": "}"}[opener]
    if opener == "[":
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "1" + closer * levels


hostile_texts = (
    st.text(max_size=200)
    | st.binary(max_size=200).map(lambda b: b.decode("latin-1"))
    | st.integers(1, 300_000).map(deep)
    | st.integers(1, 3_000).map(lambda n: deep(n, "{"))
    | values.map(json.dumps)
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts, st.integers(1, 100))
def test_safe_json_returns_a_bounded_value_or_refuses(text: str, depth: int) -> None:
    try:
        value = safe_json.loads(text, limit=1_000_000, depth=depth)
    except safe_json.JsonRefused as refused:
        assert str(refused)
        return
    assert not safe_json.too_deep(value, depth)
    assert len(text) <= 1_000_000


def test_the_200000_deep_array_is_refused_not_a_traceback() -> None:
    with pytest.raises(safe_json.JsonRefused, match="nested deeper than 64 levels"):
        safe_json.loads(deep(200_000), limit=10_000_000)
    with pytest.raises(safe_json.JsonRefused, match="nested deeper than 64 levels"):
        safe_json.loads(deep(65), limit=10_000_000)  # parses, but deeper than what follows may walk
    assert safe_json.loads(deep(64), limit=10_000_000)
    with pytest.raises(safe_json.JsonRefused, match="larger than 10 bytes"):
        safe_json.loads("[" + "1," * 10 + "1]", limit=10)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts)
def test_the_image_digest_reader_never_raises(text: str) -> None:
    digest = image._digest(text, "ghcr.io/x/y:1")
    assert digest is None or digest.startswith("sha256:")


class _FileView:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, path: str, inside: str, limit: int) -> bytes:
        return self.data[:limit]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts)
def test_the_npm_record_reader_never_raises(text: str) -> None:
    record = npm.installed(_FileView(text.encode("utf-8", "surrogatepass")), "/x", "pkg")  # type: ignore[arg-type]
    assert record is None or isinstance(record.get("version"), str)


messages = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0") | scalars},
    optional={"id": scalars, "method": scalars, "params": values, "result": values, "error": values},
).map(json.dumps)


class _Sink:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send(self, data: bytes) -> None:
        self.sent.append(data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(hostile_texts | messages, max_size=5))
def test_the_stdio_channel_reads_any_line_without_raising(lines: list[str]) -> None:
    garbage: list[str] = []
    process = SimpleNamespace(stdin=_Sink())
    channel = StdioChannel(process=process, on_garbage=garbage.append)  # type: ignore[arg-type]

    async def feed() -> None:
        for line in lines:
            await channel._receive(line.encode("utf-8", "surrogatepass"))

    anyio.run(feed)
    assert len(garbage) <= len(lines)


