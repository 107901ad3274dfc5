"""The exact text of a lockfile: pretty-printed canonical JSON with hidden characters escaped.

A reviewer reads mcp-lock.json in a diff, so every character that a diff viewer would not
show (controls, format/bidi characters, odd whitespace, default-ignorables such as tag
characters and variation selectors, private use, noncharacters) is written as a `\\uXXXX`
escape. Everything else is written as UTF-8, so non-English descriptions stay readable.
The set is a frozen list of ranges, not a Unicode-category lookup, so that the text does
not depend on the Unicode version of whoever renders it (lockfile-spec/SPEC.md, "Text").
"""

from __future__ import annotations

import bisect
import math
import re
from json.encoder import encode_basestring_ascii as _encode_ascii
from typing import Any

import rfc8785

from scanner.lock.canonical import MAX_DEPTH, MAX_SAFE_INTEGER, normalise

# Inclusive code point ranges written as \u escapes (sorted, non-overlapping). Frozen for
# lockfileVersion 1: Cc, Cf, Zs except U+0020, Zl, Zp, Co, Cs, noncharacters and
# Default_Ignorable_Code_Point as of Unicode 15.1, plus U+2800 BRAILLE PATTERN BLANK.
ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls
    (0x007F, 0x009F),  # DEL, C1 controls
    (0x00A0, 0x00A0),  # no-break space
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x0600, 0x0605),  # Arabic number signs
    (0x061C, 0x061C),  # Arabic letter mark
    (0x06DD, 0x06DD),  # Arabic end of ayah
    (0x070F, 0x070F),  # Syriac abbreviation mark
    (0x0890, 0x0891),  # Arabic pound/piastre mark above
    (0x08E2, 0x08E2),  # Arabic disputed end of ayah
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x1680, 0x1680),  # Ogham space mark
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x2000, 0x200F),  # en quad .. hair space, ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x2028, 0x202F),  # line/paragraph separators, bidi embeddings/overrides, NNBSP
    (0x205F, 0x206F),  # medium math space, word joiner, invisible operators, bidi isolates
    (0x2800, 0x2800),  # braille pattern blank
    (0x3000, 0x3000),  # ideographic space
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xDFFF),  # surrogates (never reach here: canonicalisation rejects them)
    (0xE000, 0xF8FF),  # private use
    (0xFDD0, 0xFDEF),  # noncharacters
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero width no-break space / BOM
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),  # reserved specials, interlinear annotation
    (0xFFFE, 0xFFFF),  # noncharacters
    (0x110BD, 0x110BD),  # Kaithi number sign
    (0x110CD, 0x110CD),  # Kaithi number sign above
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    *((plane << 16 | 0xFFFE, plane << 16 | 0xFFFF) for plane in range(1, 14)),  # noncharacters
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement (all default-ignorable)
    (0xEFFFE, 0xEFFFF),  # noncharacters
    (0xF0000, 0x10FFFF),  # supplementary private use areas and their noncharacters
)

_STARTS = [start for start, _ in ESCAPED_RANGES]

# Escapes JSON itself has a short form for; everything else escaped is \uXXXX.
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _class_item(cp: int) -> str:
    return f"\\U{cp:08x}"


# The escape set as a regex class. Of these, only TAB, LF and CR (whitespace between tokens)
# may legitimately appear raw in a lockfile.
_RAW_HIDDEN = re.compile("[" + "".join(f"{_class_item(a)}-{_class_item(b)}" for a, b in ESCAPED_RANGES) + "]")
_JSON_WHITESPACE = frozenset("\t\n\r")
# Every character render_string does not write as itself.
_NEEDS_ESCAPE = re.compile('["\\\\]|' + _RAW_HIDDEN.pattern)


INDENT = "  "


def is_escaped(cp: int) -> bool:
    """Whether code point `cp` is written as an escape in the lockfile text."""
    i = bisect.bisect_right(_STARTS, cp) - 1
    return i >= 0 and cp <= ESCAPED_RANGES[i][1]


def render_string(s: str) -> str:
    """A JSON string literal: JCS escaping plus \\u escapes for every hidden character."""
    if s.isascii():
        # json's encoder escapes exactly what these rules escape in ASCII: '"', '\\', the short forms \\b \\t
        # \\n \\f \\r, every other C0 control and DEL as a lower-case \\u00xx (tests/lock/test_lock_render.py).
        return _encode_ascii(s)
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _char(m.group()), s) + '"'


def render_value(value: Any, max_depth: int = MAX_DEPTH) -> str:
    """The text of a JSON value per the lockfile rules, without the trailing newline.

    The rules apply from `value` as the file's root: a package of a format-4 tree record at
    `/servers/*/launch/tree/packages/*` is written on one line (`_emit_lock`).
    """
    rendered = render_normal(value, max_depth)
    if rendered is None:
        rendered = render_normal(normalise(value, max_depth), max_depth)
        assert rendered is not None  # a normalised value is normal
    return rendered[0]


def render_normal(value: Any, max_depth: int = MAX_DEPTH) -> tuple[str, bool] | None:
    """`(render_value(value), plain)` when `value` is already what `normalise` makes of it, else None.

    Normal means plain JSON types only (exact dict, list, str, int, float, bool, None), string keys (a str
    subclass is written by its value), integers within ±(2**53 - 1), finite floats, no lone surrogate, nesting
    within `max_depth`. `normalise` returns such a value unchanged (an equal copy of the same types), so
    rendering it directly gives the same text.
    `plain`: it holds no float and no key above U+FFFF (see `canonical.plain_digest`).
    """
    out: list[str] = []
    odd: list[str] = []  # "float", "astral key": what makes a value not plain
    try:
        # breaks[n]: a line break and the indentation of level n, for every level a normal value may reach.
        breaks = ["\n" + INDENT * n for n in range(max_depth + 1)]
        if type(value) is dict and type(value.get("servers")) is dict:
            _emit_lock(value, 0, breaks, out, odd, _LOCK_LAYOUT)
        else:
            _emit(value, 0, breaks, out, odd)
    except _NotNormal:
        return None
    return "".join(out), not odd


def render_previous_layout(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """The text mcp-lock wrote before format-4 packages went on one line (one member per line throughout), when
    `value` is normal; None otherwise. Read as canonical too, so a lock written by that mcp-lock still checks; the
    next `lock`/`update` writes the current layout. Both show every word the lock holds."""
    out: list[str] = []
    try:
        _emit(value, 0, ["\n" + INDENT * n for n in range(max_depth + 1)], out, [])
    except _NotNormal:
        return None
    return "".join(out)


class _NotNormal(Exception):
    pass


def utf16_order(key: str) -> bytes:
    """Sort key putting object members in RFC 8785 order (UTF-16 code units)."""
    return key.encode("utf-16-be")


def _char(c: str) -> str:
    if c in _SHORT:
        return _SHORT[c]
    cp = ord(c)
    if not is_escaped(cp):
        return c
    if cp > 0xFFFF:  # written as its UTF-16 surrogate pair, as JSON requires
        cp -= 0x10000
        return f"\\u{0xD800 | cp >> 10:04x}\\u{0xDC00 | cp & 0x3FF:04x}"
    return f"\\u{cp:04x}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(s: str) -> str:
    """render_string for a normal string; _NotNormal for one holding a lone surrogate."""
    if not s.isascii() and _SURROGATE.search(s):
        raise _NotNormal
    return render_string(s)


def _key(key: str) -> str:
    return _encode_ascii(key) if key.isascii() else _string(key)  # keys are nearly always ASCII


def _scalar(value: Any, odd: list[str]) -> str:
    """A normal number, true, false or null: exactly its RFC 8785 form."""
    kind = type(value)
    if kind is int:
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return str(value)  # a safe integer is its own shortest round-trip form: plain digits
        raise _NotNormal
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is float and math.isfinite(value):
        odd.append("float")
        return rfc8785.dumps(value).decode("ascii")
    raise _NotNormal


def _keys(value: dict[Any, Any], odd: list[str]) -> list[str]:
    """The keys of a normal object in RFC 8785 order."""
    try:
        keys = sorted(value)
        if all(map(str.isascii, keys)):
            # ASCII keys sort the same by code point as by UTF-16 code unit, without encoding each one.
            return keys
    except TypeError:  # a key that is not a string
        raise _NotNormal from None
    for key in keys:
        if not isinstance(key, str) or _SURROGATE.search(key):
            raise _NotNormal
        if not key.isascii() and max(key) > "\uffff":
            odd.append("astral key")
    return sorted(keys, key=utf16_order)


def _emit(value: Any, level: int, breaks: list[str], out: list[str], odd: list[str]) -> None:
    # Exact types only (anything else is not normal); strings and scalars inside a container are written
    # with their member, which is most of the nodes of a lock.
    kind = type(value)
    if kind is dict or kind is list:
        if level >= len(breaks) - 1:  # deeper than max_depth
            raise _NotNormal
        if not value:
            out.append("{}" if kind is dict else "[]")
            return
        inner = breaks[level + 1]
        if kind is dict:
            separator = "{" + inner
            for key in _keys(value, odd):
                item = value[key]
                item_kind = type(item)
                if item_kind is str:
                    if item.isascii():
                        out.append(separator + _key(key) + ": " + _encode_ascii(item))
                    else:
                        out.append(separator + _key(key) + ": " + _string(item))
                elif item_kind is dict or item_kind is list:
                    out.append(separator + _key(key) + ": ")
                    _emit(item, level + 1, breaks, out, odd)
                else:
                    out.append(separator + _key(key) + ": " + _scalar(item, odd))
                separator = "," + inner
            out.append(breaks[level] + "}")
        else:
            separator = "[" + inner
            for item in value:
                item_kind = type(item)
                if item_kind is str:
                    out.append(separator + _string(item))
                elif item_kind is dict or item_kind is list:
                    out.append(separator)
                    _emit(item, level + 1, breaks, out, odd)
                else:
                    out.append(separator + _scalar(item, odd))
                separator = "," + inner
            out.append(breaks[level] + "]")
    elif kind is str:
        out.append(_string(value))
    else:
        out.append(_scalar(value, odd))


# --- where the layout departs from one member per line (lockfile-spec/SPEC.md section 4) ---
#
# Each package of a format-4 tree record is written on one line, `{"integrity": "…", "name": "a", …}` (", " between
# members, ": " after a key, nested containers on the same line), so that a dependency bump is a few changed lines
# of a lockfile diff rather than a dozen lines of one pretty-printed object each. Only the layout differs: the
# members, their order and every escape are those of the rest of the file, and the canonical form (the digests) is
# not text at all. Found by path from the file's root, never by key name alone, so a definition that happens to
# hold a `packages` member is laid out as everything else.

_PACKAGES = "packages"  # the member of a tree whose elements are written one per line
_TREE = object()  # the layout map's mark of a tree record
# The path to a tree: /servers/<any name>/launch/tree. "*" matches any key; a tree is a leaf of this map.
_LOCK_LAYOUT: dict[str, Any] = {"servers": {"*": {"launch": {"tree": _TREE}}}}


def _emit_lock(value: dict[Any, Any], level: int, breaks: list[str], out: list[str], odd: list[str],
               layout: Any) -> None:
    """`_emit` of an object on the way to a tree record (few: the root, `servers`, each server, its launch)."""
    if level >= len(breaks) - 1:
        raise _NotNormal
    if not value:
        out.append("{}")
        return
    inner = breaks[level + 1]
    separator = "{" + inner
    for key in _keys(value, odd):
        item = value[key]
        below = layout.get(key, layout.get("*")) if type(layout) is dict else None
        out.append(separator + _key(key) + ": ")
        if below is _TREE and type(item) is dict and item.get("format") == 4 and type(item.get(_PACKAGES)) is list:
            _emit_tree(item, level + 1, breaks, out, odd)
        elif below is not None and type(item) is dict:
            _emit_lock(item, level + 1, breaks, out, odd, below)
        else:
            _emit(item, level + 1, breaks, out, odd)
        separator = "," + inner
    out.append(breaks[level] + "}")


def _emit_tree(tree: dict[Any, Any], level: int, breaks: list[str], out: list[str], odd: list[str]) -> None:
    """A format-4 tree record: its members as everywhere, its packages one per line."""
    if level + 1 >= len(breaks) - 1:  # the tree and its packages array are containers
        raise _NotNormal
    inner = breaks[level + 1]
    separator = "{" + inner
    for key in _keys(tree, odd):
        item = tree[key]
        out.append(separator + _key(key) + ": ")
        if key == _PACKAGES and item:
            element = breaks[level + 2]
            out.append("[" + element + ("," + element).join(_one_line(p, level + 2, breaks, odd) for p in item))
            out.append(breaks[level + 1] + "]")
        else:
            _emit(item, level + 1, breaks, out, odd)
        separator = "," + inner
    out.append(breaks[level] + "}")


def _one_line(value: Any, level: int, breaks: list[str], odd: list[str]) -> str:
    """The value on one line: `{"a": 1, "b": [true, "x"]}`; the same members, order, escapes and depth bound."""
    kind = type(value)
    if kind is dict or kind is list:
        if level >= len(breaks) - 1:  # deeper than max_depth
            raise _NotNormal
        if not value:
            return "{}" if kind is dict else "[]"
        if kind is dict:
            return "{" + ", ".join(
                _key(key) + ": " + _one_line(value[key], level + 1, breaks, odd) for key in _keys(value, odd)
            ) + "}"
        return "[" + ", ".join(_one_line(item, level + 1, breaks, odd) for item in value) + "]"
    if kind is str:
        return _encode_ascii(value) if value.isascii() else _string(value)
    return _scalar(value, odd)


# Printable ASCII and the JSON whitespace: never escaped, and most of any lockfile.
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def find_raw_hidden(text: str) -> int | None:
    """Offset of the first character of `text` that the rules escape but appears raw."""
    # Fast path: drop every plain ASCII byte (C speed) and search only what is left; UTF-8 never puts an
    # ASCII byte inside a multi-byte sequence, so the rest decodes to the same non-ASCII characters.
    rest = text.encode("utf-8", "surrogatepass").translate(None, _PLAIN_ASCII)
    if not rest or not _RAW_HIDDEN.search(rest.decode("utf-8", "surrogatepass")):
        return None
    for match in _RAW_HIDDEN.finditer(text):
        if match.group() not in _JSON_WHITESPACE:
            return match.start()
    return None
