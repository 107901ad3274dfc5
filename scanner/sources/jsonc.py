"""A lenient JSON/JSONC parser that remembers where every key starts.

Config files are read leniently (comments, trailing commas, a BOM) because VS Code, Zed, opencode
and Gemini accept them, but each leniency is reported as a `SyntaxNote` so the caller can warn when
the file belongs to a strict-JSON client (Claude Code, Amazon Q, Copilot CLI) that would reject it.

Line numbers are kept in a side table keyed by JSON pointer (RFC 6901): `lines["/mcpServers/db"]`
is the 1-based line where the key `"db"` starts, `lines["/list/0"]` where the first item starts.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Literal

from scanner.model.pointer import join

NoteKind = Literal["comment", "trailing-comma", "bom", "duplicate-key"]

# Deep enough for any real config, shallow enough that the recursion can never overflow.
MAX_DEPTH = 200
_WHITESPACE = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS: dict[str, object] = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    """The text is not JSON(C); `line` and `column` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.reason = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class SyntaxNote:
    """Something a strict JSON parser would reject (or, for duplicate keys, silently drop)."""

    kind: NoteKind
    line: int
    detail: str


@dataclass
class Document:
    """A parsed file: its value, where each member key / array item starts, and leniencies used."""

    value: object
    lines: dict[str, int] = field(default_factory=dict)
    notes: list[SyntaxNote] = field(default_factory=list)

    def line(self, *path: str | int, default: int = 1) -> int:
        """Line of the member at `path` (keys or indexes), or `default` when unknown."""
        return self.lines.get(join(path), default)



def decode(data: bytes) -> str:
    """Decode UTF-8, turning a bad byte into a JsoncError at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        column = len(good) - (good.rfind("\n") + 1) + 1
        raise JsoncError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", line, column) from None


def parse(text: str) -> Document:
    """Parse JSONC text. Raises JsoncError, and nothing else, on any input."""
    return _Parser(text).document()


def parse_bytes(data: bytes) -> Document:
    return parse(decode(data))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.doc = Document(value=None)
        self._line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    # -- positions and errors ------------------------------------------------------------------

    def line_at(self, pos: int) -> int:
        return bisect.bisect_right(self._line_starts, pos)

    def error(self, message: str, pos: int | None = None) -> JsoncError:
        pos = self.pos if pos is None else pos
        line = self.line_at(pos)
        return JsoncError(message, line, pos - self._line_starts[line - 1] + 1)

    def note(self, kind: NoteKind, pos: int, detail: str) -> None:
        self.doc.notes.append(SyntaxNote(kind, self.line_at(pos), detail))

    def found(self) -> str:
        if self.pos >= len(self.text):
            return "end of file"
        return repr(self.text[self.pos])

    # -- whitespace and comments ---------------------------------------------------------------

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WHITESPACE:
                self.pos += 1
            elif text.startswith("//", self.pos):
                self.note("comment", self.pos, "// comment")
                while self.pos < n and text[self.pos] not in "\r\n":
                    self.pos += 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated /* comment")
                self.note("comment", self.pos, "/* */ comment")
                self.pos = end + 2
            else:
                return

    # -- grammar -------------------------------------------------------------------------------

    def document(self) -> Document:
        if self.text.startswith("\ufeff"):
            self.note("bom", 0, "UTF-8 byte order mark")
            self.pos = 1
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("empty document: expected a JSON value")
        self.doc.value = self.value((), 0)
        self.skip()
        if self.pos < len(self.text):
            raise self.error(f"unexpected {self.found()} after the JSON value")
        return self.doc

    def value(self, path: tuple[str | int, ...], depth: int) -> object:
        if depth > MAX_DEPTH:
            raise self.error(f"nesting deeper than {MAX_DEPTH} levels")
        ch = self.text[self.pos] if self.pos < len(self.text) else ""
        if ch == "{":
            return self.object(path, depth)
        if ch == "[":
            return self.array(path, depth)
        if ch == '"':
            return self.string()
        if ch == "-" or ch.isdigit():
            return self.number()
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return literal
        if ch.isalpha() or ch == "'":
            hint = " (NaN and Infinity are not JSON)" if ch in "NI" else ""
            hint = " (JSON strings use double quotes)" if ch == "'" else hint
            raise self.error(f"unexpected {self.found()}: expected a JSON value{hint}")
        raise self.error(f"unexpected {self.found()}: expected a JSON value")

    def object(self, path: tuple[str | int, ...], depth: int) -> dict[str, object]:
        result: dict[str, object] = {}
        self.pos += 1
        self.skip()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return result
        while True:
            if not self.text.startswith('"', self.pos):
                raise self.error(f"expected a double-quoted key, found {self.found()}")
            key_pos = self.pos
            key = self.string()
            self.skip()
            self.expect(":", "after object key")
            self.skip()
            child = (*path, key)
            if key in result:
                self.note("duplicate-key", key_pos, f"duplicate key {key!r} (the last one wins)")
                self.forget(join(child))
            self.doc.lines[join(child)] = self.line_at(key_pos)
            result[key] = self.value(child, depth + 1)
            if self.separator("}", "object member"):
                return result

    def array(self, path: tuple[str | int, ...], depth: int) -> list[object]:
        result: list[object] = []
        self.pos += 1
        self.skip()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return result
        while True:
            child = (*path, len(result))
            self.doc.lines[join(child)] = self.line_at(self.pos)
            result.append(self.value(child, depth + 1))
            if self.separator("]", "array item"):
                return result

    def separator(self, close: str, what: str) -> bool:
        """Consume `,` or the closing bracket; True when the container ended."""
        self.skip()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            return True
        comma = self.pos
        self.expect(",", f"after {what}")
        self.skip()
        if self.text.startswith(close, self.pos):
            self.note("trailing-comma", comma, "trailing comma")
            self.pos += 1
            return True
        return False

    def expect(self, token: str, where: str) -> None:
        if not self.text.startswith(token, self.pos):
            raise self.error(f"expected {token!r} {where}, found {self.found()}")
        self.pos += len(token)

    def forget(self, prefix: str) -> None:
        """Drop line entries of a value that a duplicate key replaces."""
        for stale in [p for p in self.doc.lines if p == prefix or p.startswith(prefix + "/")]:
            del self.doc.lines[stale]

    def string(self) -> str:
        text, start = self.text, self.pos
        self.pos += 1
        parts: list[str] = []
        while True:
            end = self.pos
            while end < len(text) and text[end] not in '"\\' and text[end] >= " ":
                end += 1
            parts.append(text[self.pos : end])
            self.pos = end
            if end >= len(text):
                raise self.error("unterminated string", start)
            ch = text[end]
            if ch == '"':
                self.pos += 1
                return "".join(parts)
            if ch != "\\":
                raise self.error("control character in string (escape it)")
            parts.append(self.escape())

    def escape(self) -> str:
        code = self.text[self.pos + 1 : self.pos + 2]
        if code in _ESCAPES:
            self.pos += 2
            return _ESCAPES[code]
        if code != "u":
            raise self.error(f"invalid escape \\{code}" if code else "unterminated string")
        unit = self.hex4(self.pos + 2)
        self.pos += 6
        if 0xD800 <= unit < 0xDC00 and self.text.startswith("\\u", self.pos):
            low = self.hex4(self.pos + 2)
            if 0xDC00 <= low < 0xE000:
                self.pos += 6
                return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        return chr(unit)

    def hex4(self, at: int) -> int:
        digits = self.text[at : at + 4]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise self.error("invalid \\u escape: expected four hex digits", at)
        return int(digits, 16)

    def number(self) -> int | float:
        text, start = self.text, self.pos
        pos = start + 1 if text[start] == "-" else start
        int_start = pos
        while pos < len(text) and text[pos] in "0123456789":
            pos += 1
        if pos == int_start:
            hint = " (Infinity is not JSON)" if text.startswith("Infinity", pos) else ""
            raise self.error(f"expected a digit{hint}", pos)
        if text[int_start] == "0" and pos - int_start > 1:
            raise self.error("leading zeros are not allowed in numbers", int_start)
        is_float = False
        if text.startswith(".", pos):
            pos = self.digits(pos + 1, "after the decimal point")
            is_float = True
        if pos < len(text) and text[pos] in "eE":
            pos += 1
            if pos < len(text) and text[pos] in "+-":
                pos += 1
            pos = self.digits(pos, "in the exponent")
            is_float = True
        self.pos = pos
        literal = text[start:pos]
        if is_float:
            return float(literal)
        try:
            return int(literal)
        except ValueError:  # more digits than Python will convert
            raise self.error("number too long", start) from None

    def digits(self, pos: int, where: str) -> int:
        start = pos
        while pos < len(self.text) and self.text[pos] in "0123456789":
            pos += 1
        if pos == start:
            raise self.error(f"expected a digit {where}", pos)
        return pos
