"""The lenient JSONC parser: values, key lines, leniency notes, clean errors on anything else."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.sources import jsonc
from scanner.sources.jsonc import JsoncError, parse, parse_bytes


def notes(text: str) -> list[tuple[str, int]]:
    return [(n.kind, n.line) for n in parse(text).notes]


def test_plain_json_values() -> None:
    text = '{"a": [1, -2.5, 3e2, true, false, null], "b": "x\\n\\u00e9\\ud83d\\ude00\\/"}'
    assert parse(text).value == {"a": [1, -2.5, 300.0, True, False, None], "b": "x\né😀/"}
    assert parse(text).notes == []


def test_lines_of_keys_and_items_by_json_pointer() -> None:
    text = '{\n  "mcpServers": {\n    "db": {\n      "args": [\n        "-y",\n        "x"]}},\n  "a/b~c": 1\n}'
    doc = parse(text)
    assert doc.lines["/mcpServers"] == 2
    assert doc.line("mcpServers", "db") == 3
    assert doc.line("mcpServers", "db", "args") == 4
    assert doc.line("mcpServers", "db", "args", 1) == 6
    assert doc.lines["/a~1b~0c"] == 7  # RFC 6901 escaping
    assert doc.line("missing", default=42) == 42


def test_comments_trailing_commas_and_bom_are_accepted_but_noted() -> None:
    text = '\ufeff{\n  // line comment\n  "a": [1, 2,],\n  /* block\n  comment */ "b": 1,\n}'
    doc = parse(text)
    assert doc.value == {"a": [1, 2], "b": 1}
    assert notes(text) == [("bom", 1), ("comment", 2), ("trailing-comma", 3), ("comment", 4), ("trailing-comma", 5)]


def test_comment_markers_inside_strings_are_text() -> None:
    doc = parse('{"url": "https://example.com/*x*/"}')
    assert doc.value == {"url": "https://example.com/*x*/"}
    assert doc.notes == []


def test_duplicate_keys_warn_and_the_last_wins() -> None:
    text = '{\n "s": {"old": {"deep": 1}},\n "s": {"new": 2}\n}'
    doc = parse(text)
    assert doc.value == {"s": {"new": 2}}
    assert notes(text) == [("duplicate-key", 3)]
    assert doc.lines == {"/s": 3, "/s/new": 3}  # the replaced value's lines are gone


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ','"),
        ('{"a": "unterminated', 1, 7, "unterminated string"),
        ('{"a": NaN}', 1, 7, "NaN and Infinity are not JSON"),
        ('{"a": Infinity}', 1, 7, "NaN and Infinity are not JSON"),
        ('{"a": -Infinity}', 1, 8, "Infinity is not JSON"),
        ("{'a': 1}", 1, 2, "double-quoted key"),
        ("{\"a\": 'x'}", 1, 7, "double quotes"),
        ('{"a": 012}', 1, 7, "leading zeros"),
        ('{"a": 1.}', 1, 9, "after the decimal point"),
        ('{"a": 1e}', 1, 9, "in the exponent"),
        ('{"a": 1} x', 1, 10, "after the JSON value"),
        ("   // only a comment\n", 2, 1, "empty document"),
        ("{/* never closed", 1, 2, "unterminated /* comment"),
        ('{"a": "tab\there"}', 1, 11, "control character"),
        ('{"a": "\\x"}', 1, 8, "invalid escape"),
        ('{"a": "\\u12G4"}', 1, 10, "four hex digits"),
        ('{"a" 1}', 1, 6, "expected ':'"),
        ("[1,,2]", 1, 4, "expected a JSON value"),
        ('{"a": 1,,}', 1, 9, "double-quoted key"),
        ("{,}", 1, 2, "double-quoted key"),
        ("[", 1, 2, "end of file"),
    ],
)
def test_syntax_errors_carry_line_and_column(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(JsoncError) as err:
        parse(text)
    assert (err.value.line, err.value.column) == (line, column)
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"line {line}, column {column}: ")


def test_nesting_deeper_than_the_limit_is_a_clean_error() -> None:
    depth = jsonc.MAX_DEPTH + 5
    with pytest.raises(JsoncError, match="nesting deeper"):
        parse("[" * depth + "]" * depth)
    assert parse("[" * 50 + "]" * 50).value is not None


def test_huge_integer_is_a_clean_error() -> None:
    with pytest.raises(JsoncError, match="number too long"):
        parse("1" * 5000)


def test_invalid_utf8_reports_where() -> None:
    with pytest.raises(JsoncError) as err:
        parse_bytes(b'{\n  "a": "caf\xe9"\n}')
    assert (err.value.line, err.value.column) == (2, 12)
    assert "not valid UTF-8 (byte 0xe9)" in str(err.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_values, st.sampled_from([None, 2]))
def test_agrees_with_the_json_module_on_valid_json(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert parse(text).value == json.loads(text)
    assert parse(text).notes == []


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("{}[],:\"\\/*\n tfnule01-.+Ea\ufeff'")) | st.characters()))
def test_never_raises_anything_but_its_own_error_on_text(text: str) -> None:
    try:
        parse(text)
    except JsoncError as err:
        assert err.line >= 1 and err.column >= 1


@given(st.binary())
def test_never_raises_anything_but_its_own_error_on_bytes(data: bytes) -> None:
    with contextlib.suppress(JsoncError):
        parse_bytes(data)
