"""JSON from a server or a registry never crashes mcp-lock: fuzzed with hypothesis over each parser that reads it.

Parsers: `bounded_json.parse` (every answer of a registry, OSV or a container engine, and npm's lockfile), the stdio
channel's line reader (a server's JSON-RPC messages), the image digest reader and the reader of npm's package-lock.json
that records a launch's tree.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.artifacts import image
from scanner.files.bounded_json import AnswerError, Bounds, parse
from scanner.install.npm_record import read_npm_lock
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


def _depth(value: object) -> int:
    """How many containers nest in `value` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level + 1)
            stack += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts, st.integers(1, 100))
def test_bounded_json_returns_a_bounded_value_or_refuses(text: str, depth: int) -> None:
    raw = text.encode("utf-8", "surrogatepass")
    try:
        value = parse(raw, Bounds(bytes=1_000_000, depth=depth, values=100_000))
    except AnswerError as refused:
        assert str(refused)
        return
    assert _depth(value) <= depth
    assert len(raw) <= 1_000_000


def test_the_200000_deep_array_is_refused_not_a_traceback() -> None:
    bounds = Bounds(bytes=10_000_000, depth=64, values=10_000_000)
    with pytest.raises(AnswerError, match="nested deeper than 64 levels"):
        parse(deep(200_000).encode(), bounds)
    with pytest.raises(AnswerError, match="nested deeper than 64 levels"):
        parse(deep(65).encode(), bounds)
    assert _depth(parse(deep(64).encode(), bounds)) == 64


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts)
def test_the_image_digest_reader_never_raises(text: str) -> None:
    digest = image._digest(text, "ghcr.io/x/y:1")
    assert digest is None or digest.startswith("sha256:")


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(hostile_texts | values.map(lambda v: json.dumps({"lockfileVersion": 3, "packages": {"node_modules/x": v}})))
def test_the_npm_lockfile_reader_refuses_or_returns_a_tree(text: str) -> None:
    try:
        tree = read_npm_lock(text)
    except ValueError as refused:  # TreeError and AnswerError: a clear reason, never another exception
        assert str(refused)
        return
    assert isinstance(tree, dict) and isinstance(tree.get("packages"), list)


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


