"""The exact lockfile text: escaping rule, layout, determinism, and the spec's example."""

from __future__ import annotations

import itertools
import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lock_helpers import GET_TIME, SPEC, declaration, snapshot, stdio_launch

from scanner.lock.canonical import digest
from scanner.lock.document import render, to_document
from scanner.lock.lockfile import Lockfile
from scanner.lock.pin import pin_server
from scanner.lock.reader import parse
from scanner.lock.render import ESCAPED_RANGES, find_raw_hidden, is_escaped, render_string, render_value

EXAMPLE = SPEC / "example" / "mcp-lock.json"

# Default_Ignorable_Code_Point, Unicode 15.1 DerivedCoreProperties.txt, typed in independently.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
]


def test_escape_ranges_are_sorted_and_disjoint() -> None:
    for (a, b), (c, _) in itertools.pairwise(ESCAPED_RANGES):
        assert a <= b < c
    assert ESCAPED_RANGES[0][0] == 0 and ESCAPED_RANGES[-1][1] == 0x10FFFF


def test_escape_set_covers_the_hidden_categories() -> None:
    hidden = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs"}
    for cp in range(0x110000):
        category = unicodedata.category(chr(cp))
        if category in hidden or (category == "Zs" and cp != 0x20):
            assert is_escaped(cp), f"U+{cp:04X} ({category}) must be escaped"
        if (cp & 0xFFFE) == 0xFFFE or 0xFDD0 <= cp <= 0xFDEF:
            assert is_escaped(cp), f"noncharacter U+{cp:04X} must be escaped"
    for start, end in DEFAULT_IGNORABLE:
        assert all(is_escaped(cp) for cp in range(start, end + 1)), f"U+{start:04X}"


@pytest.mark.parametrize("char", [" ", "a", "~", "/", "é", "–", "你", "😀", "\u0301", "а", "\ufffd"])
def test_visible_characters_stay_readable(char: str) -> None:
    assert not is_escaped(ord(char))
    assert render_string(char) == f'"{char}"'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('say "hi"\\', r'"say \"hi\"\\"'),
        ("\b\t\n\f\r", r'"\b\t\n\f\r"'),
        ("\x00\x1f\x7f\x85", r'"\u0000\u001f\u007f\u0085"'),
        ("a\u202eb", r'"a\u202eb"'),
        ("zero\u200bwidth\ufeff", r'"zero\u200bwidth\ufeff"'),
        ("\u00a0\u2028\u3000", r'"\u00a0\u2028\u3000"'),
        ("tag:\U000e0041\U000e007f", r'"tag:\udb40\udc41\udb40\udc7f"'),
        ("vs:\ufe0f\U000e0100", r'"vs:\ufe0f\udb40\udd00"'),
        ("pua:\ue000\U000f0000\U0010fffd", r'"pua:\ue000\udb80\udc00\udbff\udffd"'),
        ("\u2800\u3164", r'"\u2800\u3164"'),
    ],
)
def test_render_string(text: str, expected: str) -> None:
    assert render_string(text) == expected
    assert json.loads(expected) == text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
def test_rendered_strings_show_nothing_hidden_and_read_back(text: str) -> None:
    rendered = render_string(text)
    assert find_raw_hidden(rendered) is None
    assert json.loads(rendered) == text


def test_layout() -> None:
    value = {"b": [1, {"d": [], "c": {}}], "a": "x", "\ue000": 1, "😀": 2}
    expected = (
        '{\n  "a": "x",\n  "b": [\n    1,\n    {\n      "c": {},\n      "d": []\n    }\n  ],\n'
        '  "😀": 2,\n  "\\ue000": 1\n}'
    )
    assert render_value(value) == expected


def test_numbers_render_in_canonical_form() -> None:
    assert render_value([1.0, -0.0, 1e21, 2**64 - 1, 5e-324, 0.000001]) == (
        "[\n  1,\n  0,\n  1e+21,\n  18446744073709552000,\n  5e-324,\n  0.000001\n]"
    )


def _lock(tools: list[dict], order: list[str]) -> Lockfile:
    servers = {}
    for name in order:
        pin, _ = pin_server([declaration(name)], stdio_launch(), snapshot(tools=tools))
        servers[name] = pin
    return Lockfile(servers=servers)


def test_render_is_deterministic() -> None:
    shuffled = {key: GET_TIME[key] for key in reversed(list(GET_TIME))}
    first = render(_lock([GET_TIME], ["b", "a"]))
    assert render(_lock([shuffled], ["a", "b"])) == first
    assert render(_lock([GET_TIME], ["b", "a"])) == first
    assert first.endswith("}\n") and not first.endswith("\n\n")
    assert "\r" not in first and "\t" not in first


def reference_render(document: dict) -> str:
    """An independent renderer for documents with ASCII keys and integer numbers only."""
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    out = []
    for char in text:
        cp = ord(char)
        if cp < 0x20 or not is_escaped(cp):  # json.dumps already escaped C0 controls
            out.append(char)
        elif cp > 0xFFFF:
            out.append(json.dumps(char, ensure_ascii=True)[1:-1])  # a surrogate pair, lowercase
        else:
            out.append(f"\\u{cp:04x}")
    return "".join(out) + "\n"


def test_example_is_rendered_exactly_per_the_rules() -> None:
    text = EXAMPLE.read_bytes().decode("utf-8")
    lock = parse(text, str(EXAMPLE))
    assert render(lock) == text
    assert reference_render(to_document(lock)) == text
    assert "\\udb40\\udc69" in text and "\\u200b" in text  # the hidden payload is visible
    assert "Café hours: 9–17." in text  # readable text is not escaped


def test_example_validates_against_the_published_schema() -> None:
    import jsonschema

    schema = json.loads((SPEC / "mcp-lock.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(json.loads(EXAMPLE.read_text("utf-8")))


def test_example_tool_digest_matches_the_real_tool_vector() -> None:
    vectors = json.loads((SPEC / "vectors" / "real-tools.json").read_text("utf-8"))["vectors"]
    expected = {v["name"].rsplit("-", 1)[1]: v["digest"] for v in vectors}
    lock = parse(EXAMPLE.read_text("utf-8"))
    for name, pin in lock.servers["time"].tools.items():
        assert pin.digest == expected[name] == digest(pin.definition)


def test_spec_escape_set_is_the_implemented_one() -> None:
    spec = (SPEC / "SPEC.md").read_text("utf-8")
    block = spec.split("<!-- escape-set: begin -->")[1].split("<!-- escape-set: end -->")[0]
    ranges = []
    for line in block.strip().strip("`").strip().splitlines():
        first, _, last = line.split()[0].partition("..")
        ranges.append((int(first, 16), int(last or first, 16)))
    assert tuple(ranges) == ESCAPED_RANGES


def test_spec_short_example_is_a_rendered_lock(time_lock: Lockfile) -> None:
    spec = (SPEC / "SPEC.md").read_text("utf-8")
    example = spec.split("```json\n", 1)[1].split("```", 1)[0]
    assert example == render(time_lock)


# --- the renderer before it skipped the normalise pass, as a reference ------------------------------------

import rfc8785  # noqa: E402

from scanner.lock import render as render_module  # noqa: E402
from scanner.lock.canonical import MAX_DEPTH, CanonicalisationError, normalise, normalise_plain  # noqa: E402


def _old_string(s: str) -> str:
    if s.isascii() and s.isprintable():
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return '"' + render_module._NEEDS_ESCAPE.sub(lambda m: render_module._char(m.group()), s) + '"'


def _old_emit(value: object, level: int, out: list[str]) -> None:
    indent = render_module.INDENT
    if isinstance(value, dict) and value:
        out.append("{")
        ascii_keys = all(key.isascii() for key in value)
        keys = sorted(value) if ascii_keys else sorted(value, key=render_module.utf16_order)
        for i, key in enumerate(keys):
            out.append(("," if i else "") + "\n" + indent * (level + 1) + _old_string(key) + ": ")
            _old_emit(value[key], level + 1, out)
        out.append("\n" + indent * level + "}")
    elif isinstance(value, list) and value:
        out.append("[")
        for i, item in enumerate(value):
            out.append(("," if i else "") + "\n" + indent * (level + 1))
            _old_emit(item, level + 1, out)
        out.append("\n" + indent * level + "]")
    elif isinstance(value, str):
        out.append(_old_string(value))
    else:
        out.append(rfc8785.dumps(value).decode("ascii"))


def old_render_value(value: object, max_depth: int = MAX_DEPTH) -> str:
    out: list[str] = []
    _old_emit(normalise(value, max_depth), 0, out)
    return "".join(out)


def _outcome(function, *args):
    try:
        return "ok", function(*args)
    except CanonicalisationError as e:
        return "error", str(e), e.pointer


class Key(str):
    pass


HIDDEN = st.sampled_from(
    ["\u200b", "\u202e", "\x7f", "\x00", "\n", "\U000e0041", "\ud800", "😀", "é", '"', "\\", "\ue000", "\uff01"]
)
STRINGS = st.text(max_size=6) | st.lists(HIDDEN | st.text(max_size=2), max_size=4).map("".join)
SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats() | STRINGS
    | st.sampled_from([2**53 - 1, -(2**53 - 1), 2**53, 10**400, -0.0, 1e21, 5e-324])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner)
        | st.dictionaries(STRINGS, inner, max_size=4)
    ),
    max_leaves=25,
).map(lambda value: _subclass_keys(value))


def _subclass_keys(value: object) -> object:
    """Some keys (those of even length) as a str subclass: normalise makes them str."""
    if isinstance(value, dict):
        return {(Key(k) if len(k) % 2 == 0 else k): _subclass_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_subclass_keys(v) for v in value)
    return value


@settings(max_examples=1500, deadline=None)
@given(VALUES, st.integers(1, 6))
def test_render_is_the_renderer_it_replaced(value: object, max_depth: int) -> None:
    assert _outcome(render_value, value) == _outcome(old_render_value, value)
    assert _outcome(render_value, value, max_depth) == _outcome(old_render_value, value, max_depth)


@settings(max_examples=800, deadline=None)
@given(VALUES)
def test_render_normal_only_for_what_normalise_leaves_alone(value: object) -> None:
    rendered = render_module.render_normal(value)
    try:
        normal, plain = normalise_plain(value)
    except CanonicalisationError:
        assert rendered is None
        return
    if rendered is not None:
        assert rendered == (old_render_value(value), plain)
        assert _same_types(normal, value)  # normalise changes nothing: the value reads back as itself
    else:
        assert not _same_types(normal, value)
    assert render_module.render_normal(normal) == (old_render_value(value), plain)


def _same_types(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        # Keys may be str subclasses: written by value, read back as equal str keys.
        return list(a) == list(b) and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return a == b or a != a


def test_numbers_and_literals_render_as_rfc8785() -> None:
    values = [*range(-1100, 1100), 2**53 - 1, -(2**53 - 1), 10**15, -(10**15), 123456789012345, True, False, None]
    values += [0.5, -0.0, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 100.0, 0.1 + 0.2]
    for value in values:
        assert render_value(value) == rfc8785.dumps(value).decode("ascii") == old_render_value(value)
        assert render_value([value]) == old_render_value([value])
        assert render_value({"k": value}) == old_render_value({"k": value})


def test_every_ascii_character_renders_as_before() -> None:
    for cp in range(0x80):
        for text in (chr(cp), f"a{chr(cp)}b", chr(cp) * 3):
            assert render_string(text) == _old_string(text)


def test_a_large_lock_renders_as_before() -> None:
    import sys

    sys.path.insert(0, str(SPEC.parent / "bench"))
    try:
        import scale_server
    finally:
        sys.path.remove(str(SPEC.parent / "bench"))
    servers = {}
    for index in range(6):
        tools = [scale_server.tool(index, number) for number in range(50)]
        tools[3]["description"] += " Ünïcödé — \u200b tag\U000e0041 😀 \x7f"
        tools[4]["inputSchema"]["properties"]["é😀"] = {"type": "number", "default": 0.25, "maximum": 1e300}
        pin, problems = pin_server([declaration(f"s{index}")], stdio_launch(), snapshot(tools=tools))
        assert problems == []
        servers[f"s{index}"] = pin
    lock = Lockfile(servers=servers)
    assert render(lock) == old_render_value(to_document(lock), MAX_DEPTH + 5) + "\n"
