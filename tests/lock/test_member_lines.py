"""MemberLines finds on demand the same line for every member as the full scan does."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.lock.member_lines import MemberLines, iter_members

KEYS = st.text(alphabet=st.sampled_from("ab/~ \"\\é\n"), max_size=4)
VALUES = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5)
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from([None, 0, 2, "\t"]))
def test_every_member_is_on_the_line_the_full_scan_gives(value: Any, indent: Any) -> None:
    text = json.dumps(value, indent=indent)
    expected: dict[str, int] = {}
    for pointer, line in iter_members(text):
        expected.setdefault(pointer, line)
    lines = MemberLines(text)
    assert {pointer: lines.line(pointer) for pointer in expected} == expected


def test_a_missing_member_is_placed_on_its_nearest_ancestor() -> None:
    text = json.dumps({"servers": {"a": {"tools": {"x": {"definition": {}}}}, "b": {}}}, indent=2)
    lines = MemberLines(text)
    assert lines.line("/servers/a/tools/x") == 5
    assert lines.line("/servers/a/tools/new_tool/definition") == 4  # the "tools" line
    assert lines.line("/nothing/here") == 1


def test_broken_text_keeps_what_it_could_read() -> None:
    text = '{\n  "servers": {\n    "a": {"x": 1},\n    "b": {"y": oops}\n  }\n}'
    lines = MemberLines(text)
    assert lines.line("/servers/a/x") == 3
    assert lines.line("/servers/b/y") in (2, 4)  # never an exception


def test_span_is_the_quoted_key_or_the_nearest_ancestors() -> None:
    text = '{\n  "servers": {\n    "a b": {"tools": {"t\\u00e9": 1}}\n  }\n}\n'
    lines = MemberLines(text)
    for pointer, key in (("/servers", '"servers"'), ("/servers/a b", '"a b"'), ("/servers/a b/tools/té", '"t\\u00e9"'),
                         ("/servers/a b/tools/missing", '"tools"'), ("/nothing", "{")):
        line, start, end = lines.span(pointer)
        assert text.splitlines()[line - 1][start - 1 : end - 1] == key, pointer


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n", max_size=200), st.lists(st.integers(0, 200), max_size=30))
def test_lines_of_offsets_in_any_order_are_counted_exactly(text: str, offsets: list[int]) -> None:
    lines = MemberLines(text)
    for offset in offsets:
        offset = min(offset, len(text))
        assert lines._line(offset) == text.count("\n", 0, offset) + 1


PACKAGE_VALUES = st.dictionaries(KEYS, VALUES, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(PACKAGE_VALUES, max_size=4), st.dictionaries(KEYS, VALUES, max_size=3))
def test_the_lock_layout_with_one_line_packages_places_every_member(packages: list[Any], other: Any) -> None:
    # The lock's own layout (scanner/lock/render.py): indented, except a format-4 tree's packages, one per line.
    from scanner.lock.render import render_value

    tree = {"format": 4, "manager": "npm", "packages": packages}
    document = {"servers": {"a": {"launch": {"tree": tree}, "tools": other}, "b": {"launch": {}}}}
    text = render_value(document) + "\n"
    expected: dict[str, int] = {}
    for pointer, line in iter_members(text):
        expected.setdefault(pointer, line)
    lines = MemberLines(text)
    assert {pointer: lines.line(pointer) for pointer in expected} == expected
    # Every member of a package is on its package's line, and the packages on consecutive lines.
    prefix = "/servers/a/launch/tree/packages/"
    first = expected.get(prefix + "0")
    for pointer, line in expected.items():
        if pointer.startswith(prefix):
            assert line == first + int(pointer[len(prefix):].split("/")[0]), pointer
