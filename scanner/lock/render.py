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
import re
from typing import Any

import rfc8785

from scanner.lock.canonical import MAX_DEPTH, normalise

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
    if s.isascii() and s.isprintable():  # nothing hidden (ASCII escapes only C0 and DEL): the common case
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _char(m.group()), s) + '"'


def render_value(value: Any, max_depth: int = MAX_DEPTH) -> str:
    """The text of a JSON value per the lockfile rules, without the trailing newline."""
    out: list[str] = []
    _emit(normalise(value, max_depth), 0, out)
    return "".join(out)


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


def _emit(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, dict) and value:
        inner = INDENT * (level + 1)
        out.append("{")
        # ASCII keys sort the same by code point as by UTF-16 code unit, without encoding each one.
        keys = sorted(value) if all(key.isascii() for key in value) else sorted(value, key=utf16_order)
        for i, key in enumerate(keys):
            out.append(("," if i else "") + "\n" + inner + render_string(key) + ": ")
            _emit(value[key], level + 1, out)
        out.append("\n" + INDENT * level + "}")
    elif isinstance(value, list) and value:
        inner = INDENT * (level + 1)
        out.append("[")
        for i, item in enumerate(value):
            out.append(("," if i else "") + "\n" + inner)
            _emit(item, level + 1, out)
        out.append("\n" + INDENT * level + "]")
    elif isinstance(value, str):
        out.append(render_string(value))
    else:
        # Numbers, literals, {} and []: exactly their RFC 8785 form.
        out.append(rfc8785.dumps(value).decode("ascii"))


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
