"""The shared entry parser: transport inference per client, and no crash on any entry value."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.sources import codex, continuedev, mcpb, mcpjson, opencode, server_json
from scanner.sources.declarations import LaunchTemplate as T
from scanner.sources.discover import group
from scanner.sources.entry import Dialect, Where, declare
from scanner.sources.interpolate import Context

CTX = Context(environ={"HOME": "/home/ci", "T": "v"}, workspace=Path("/ws"))
DIALECTS = [
    *{id(f.dialect): f.dialect for f in mcpjson.FORMATS.values()}.values(),
    mcpjson.GEMINI_EXTENSION,
    codex.CODEX,
    continuedev.CONTINUE,
    opencode.OPENCODE,
    server_json.REGISTRY,
    mcpb.MCPB,
]


def one(dialect: Dialect, entry: object) -> tuple[T | None, list[str]]:
    decl = declare("s", entry, Where("f.json", 7), dialect, CTX)
    return decl.template, [p.code for p in decl.problems]


@pytest.mark.parametrize(
    ("dialect", "entry", "expected"),
    [
        # A bare `url`: Claude Code rejects it, VS Code and Gemini try HTTP then SSE, the rest say HTTP.
        (mcpjson.CLAUDE, {"url": "https://x"}, (None, ["remote-without-type"])),
        (mcpjson.VSCODE, {"url": "https://x"}, (T("http", url="https://x", sse_fallback=True), [])),
        (mcpjson.GEMINI, {"url": "https://x"}, (T("http", url="https://x", sse_fallback=True), [])),
        (mcpjson.CURSOR, {"url": "https://x"}, (T("http", url="https://x"), [])),
        (mcpjson.ZED, {"url": "https://x"}, (T("http", url="https://x"), [])),
        (mcpjson.KIRO, {"url": "https://x"}, (T("http", url="https://x"), [])),
        (mcpjson.JUNIE, {"url": "https://x"}, (T("http", url="https://x"), [])),
        (codex.CODEX, {"url": "https://x"}, (T("http", url="https://x"), [])),
        # URL aliases.
        (mcpjson.WINDSURF, {"serverUrl": "https://x"}, (T("http", url="https://x"), [])),
        (mcpjson.GEMINI, {"httpUrl": "https://x"}, (T("http", url="https://x"), [])),
        (mcpjson.GEMINI, {"url": "https://x", "type": "http"}, (T("http", url="https://x"), [])),
        # VS Code falls back to SSE for an explicit "http" too.
        (mcpjson.VSCODE, {"type": "http", "url": "https://x"}, (T("http", url="https://x", sse_fallback=True), [])),
        # Every transport spelling.
        (mcpjson.ROO, {"type": "streamable-http", "url": "u"}, (T("http", url="u"), [])),
        (mcpjson.ROO, {"type": "streamableHttp", "url": "u"}, (T("http", url="u"), [])),
        (mcpjson.ROO, {"type": "streamable_http", "url": "u"}, (T("http", url="u"), [])),
        (opencode.OPENCODE, {"type": "remote", "url": "u"}, (T("http", url="u"), [])),
        (opencode.OPENCODE, {"type": "local", "command": ["a", "b"]}, (T("stdio", "a", ("b",)), [])),
        (mcpjson.COPILOT, {"type": "local", "command": "a"}, (T("stdio", "a"), [])),
        (mcpjson.ROO, {"type": "sse", "url": "u"}, (T("sse", url="u"), [])),
        (mcpjson.CLAUDE, {"type": "streamable-http", "url": "u"}, (T("http", url="u"), [])),
        (mcpjson.CLAUDE, {"type": "remote", "url": "u"}, (T("http", url="u"), ["unsupported-type"])),
        (mcpjson.ROO, {"type": "ws", "url": "u"}, (None, ["unknown-transport"])),
        # `command` wins when there is no type; a type must have its field.
        (mcpjson.CLAUDE, {"command": "a", "url": "u"}, (T("stdio", "a"), [])),
        (mcpjson.CLAUDE, {"type": "stdio", "url": "u"}, (None, ["no-launch"])),
        (mcpjson.CLAUDE, {"type": "http", "command": "a"}, (None, ["no-launch"])),
        (mcpjson.CLAUDE, {}, (None, ["no-launch"])),
        (mcpjson.CLAUDE, ["npx", "x"], (None, ["invalid-entry"])),
        # Wrong types name the field.
        (mcpjson.CLAUDE, {"command": 3}, (None, ["invalid-field"])),
        (mcpjson.CLAUDE, {"command": "a", "cwd": ["x"]}, (None, ["invalid-field"])),
        (mcpjson.CLAUDE, {"command": "a", "disabled": "yes"}, (None, ["invalid-field"])),
        (mcpjson.CLAUDE, {"type": 1, "command": "a"}, (None, ["invalid-field"])),
        (mcpjson.CLAUDE, {"type": "http", "url": "u", "headers": {"A": 1}}, (None, ["invalid-field"])),
        (opencode.OPENCODE, {"type": "local", "command": []}, (None, ["invalid-field"])),
        # Unknown keys are kept silently; null means absent.
        (mcpjson.CLAUDE, {"command": "a", "args": None, "x-note": {"a": 1}, "timeout": 5}, (T("stdio", "a"), [])),
    ],
)
def test_transport_inference_and_validation(dialect: Dialect, entry: object, expected: tuple) -> None:
    assert one(dialect, entry) == expected


def test_disabled_and_enabled_flags() -> None:
    assert declare("s", {"command": "a", "disabled": True}, Where("f", 1), mcpjson.ROO, CTX).disabled
    assert declare("s", {"command": ["a"], "enabled": False}, Where("f", 1), opencode.OPENCODE, CTX).disabled
    assert not declare("s", {"command": "a", "enabled": True}, Where("f", 1), codex.CODEX, CTX).disabled


def test_problems_point_at_the_field_line() -> None:
    where = Where("f.json", 7, {"args": 9, "env": 11})
    decl = declare("s", {"command": "a", "args": [1], "env": {"K": None}}, where, mcpjson.CLAUDE, CTX)
    assert [(p.location.line, p.message) for p in decl.problems] == [
        (9, "server 's': `args[0]` must be a string"),
        (11, "server 's': `env.K` must be a string"),
    ]


def test_group_orders_declarations_by_file_then_line_whatever_the_input_order() -> None:
    decls = [
        declare("b", {"command": "x"}, Where(f, line), mcpjson.CLAUDE, CTX)
        for f, line in [("z.json", 2), ("a.json", 9), ("a.json", 3)]
    ]
    decls[2].name = "a"
    (server,) = group(decls)
    assert server.key == "a"
    assert [str(d.location) for d in server.declarations] == ["a.json:3", "a.json:9", "z.json:2"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)
KEYS = [
    "type",
    "command",
    "args",
    "env",
    "environment",
    "cwd",
    "url",
    "serverUrl",
    "httpUrl",
    "headers",
    "http_headers",
    "disabled",
    "enabled",
    "source",
    "settings",
]
fields = st.sampled_from(KEYS) | st.text(max_size=6)
placeholder_text = st.text(alphabet=st.sampled_from(list("${}:-env.input/ABx")), max_size=12)
entries = st.dictionaries(
    fields,
    json_values
    | placeholder_text
    | st.lists(placeholder_text, max_size=3)
    | st.dictionaries(st.text(max_size=4), placeholder_text, max_size=2),
    max_size=6,
)


@settings(max_examples=400)
@given(st.sampled_from(DIALECTS), entries | json_values)
def test_any_entry_gives_a_declaration_and_an_explanation_when_it_cannot_launch(
    dialect: Dialect, entry: object
) -> None:
    decl = declare("s", entry, Where("f.json", 1), dialect, CTX)
    assert decl.name == "s"
    if decl.template is None:
        assert decl.problems  # never silently unlaunchable
    if decl.resolved is None and decl.template is not None:
        assert {p.code for p in decl.errors} & {"unresolved-variable", "unresolved-input"}
