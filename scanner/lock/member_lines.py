"""Where things are in lockfile text: JSON pointers of members and the lines they start on."""

from __future__ import annotations

import bisect
import contextlib
import json
import re
from collections.abc import Iterator
from json.decoder import scanstring

from scanner.model.pointer import escape

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")


def iter_members(text: str) -> Iterator[tuple[str, int]]:
    """Yield (JSON pointer, 1-based line) for the root and every member and array element.

    The line is where the member's key starts (for array elements, the element itself).
    Members come in text order, parents before children; a duplicate key shows up as a
    repeated pointer. Raises ValueError on text that is not JSON.
    """
    return _Scanner(text).members()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def expect(self, pos: int, char: str) -> int:
        if self.text[pos : pos + 1] != char:
            raise ValueError(f"expected {char!r} at offset {pos}")
        return self.skip(pos + 1)

    def key(self, pos: int, parent: str) -> tuple[int, str, int]:
        """Read `"key":` at pos; return (line, pointer, position of the value)."""
        line = self.line(pos)
        if self.text[pos : pos + 1] != '"':
            raise ValueError(f"expected a key at offset {pos}")
        key, end = scanstring(self.text, pos + 1, True)
        return line, parent + "/" + escape(key), self.expect(self.skip(end), ":")

    def members(self) -> Iterator[tuple[str, int]]:
        text = self.text
        pos = self.skip(0)
        pointer, line = "", self.line(pos)
        # Open containers: [pointer, next array index or -1 for objects].
        stack: list[list] = []
        while True:
            yield pointer, line
            char = text[pos : pos + 1]
            if char in ("{", "["):
                pos = self.skip(pos + 1)
                if text[pos : pos + 1] != ("}" if char == "{" else "]"):
                    if char == "{":
                        stack.append([pointer, -1])
                        line, pointer, pos = self.key(pos, pointer)
                    else:
                        stack.append([pointer, 0])
                        line, pointer = self.line(pos), pointer + "/0"
                    continue
                pos += 1
            elif char == '"':
                pos = scanstring(text, pos + 1, True)[1]
            else:
                match = _SCALAR.match(text, pos)
                if not match:
                    raise ValueError(f"unexpected character at offset {pos}")
                pos = match.end()
            # The value is complete: step past commas and closing brackets to the next one.
            pos, next_member = self.advance(pos, stack)
            if next_member is None:
                return
            pointer, line, pos = next_member

    def advance(self, pos: int, stack: list[list]) -> tuple[int, tuple[str, int, int] | None]:
        while True:
            pos = self.skip(pos)
            if not stack:
                if pos != len(self.text):
                    raise ValueError(f"extra data at offset {pos}")
                return pos, None
            parent, index = stack[-1]
            char = self.text[pos : pos + 1]
            if char == ",":
                pos = self.skip(pos + 1)
                if index < 0:
                    line, pointer, pos = self.key(pos, parent)
                    return pos, (pointer, line, pos)
                stack[-1][1] = index + 1
                return pos, (f"{parent}/{index + 1}", self.line(pos), pos)
            if char != ("}" if index < 0 else "]"):
                raise ValueError(f"expected ',' or a closing bracket at offset {pos}")
            stack.pop()
            pos += 1


class MemberLines:
    """The line of a member of JSON text, found on demand.

    Only the containers on the way to a pointer are scanned, each once; siblings are skipped by
    json's C decoder. A reporter placing a few findings in a 20 MB lock reads a fraction of it,
    where `iter_members` would walk every character in Python.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._decoder = json.JSONDecoder()
        # container pointer -> token -> (where its key or element starts, where its value starts)
        self._children: dict[str, dict[str, tuple[int, int]]] = {}
        # Lines of the offsets asked for so far: a new one is counted from the nearest of them (C-speed
        # `str.count`), where a list of every newline of a 20 MB lock cost a quarter of a second to build.
        self._known: list[int] = [0]
        self._lines: dict[int, int] = {0: 1}

    def line(self, pointer: str) -> int:
        """The line of `pointer`, or of its nearest ancestor present in the text (1 for none)."""
        return self._line(self._start(pointer))

    def span(self, pointer: str) -> tuple[int, int, int]:
        """(line, first column, column after the last) of the key of `pointer` or its nearest present ancestor.

        Columns are 1-based code points; the span covers the quoted key (an array element's or the root's
        first character), so a result marks exactly the member it is about.
        """
        start = self._start(pointer)
        end = start + 1
        if self.text[start : start + 1] == '"':
            with contextlib.suppress(ValueError):
                end = scanstring(self.text, start + 1, True)[1]
        line = self._line(start)
        line_start = self.text.rfind("\n", 0, start) + 1
        # A key never spans lines (JSON strings hold no raw newline), so both columns are on `line`.
        return line, start - line_start + 1, end - line_start + 1

    def _start(self, pointer: str) -> int:
        start = _WS.match(self.text, 0).end()  # type: ignore[union-attr]
        found, value, current = start, start, ""
        for token in pointer.split("/")[1:]:
            children = self._scan(current, value)
            if token not in children:
                break
            found, value = children[token]
            current += "/" + token
        return found

    def _scan(self, container: str, pos: int) -> dict[str, tuple[int, int]]:
        if container not in self._children:
            children: dict[str, tuple[int, int]] = {}
            with contextlib.suppress(ValueError, IndexError):  # keep what was read before an error
                self._read(pos, children)
            self._children[container] = children
        return self._children[container]

    def _read(self, pos: int, children: dict[str, tuple[int, int]]) -> None:
        text, skip = self.text, self._skip
        opening = text[pos]
        if opening not in "{[":
            return
        closing = "}" if opening == "{" else "]"
        pos, index = skip(pos + 1), 0
        while text[pos] != closing:
            member = pos
            if opening == "{":
                key, end = scanstring(text, pos + 1, True)
                token, pos = escape(key), skip(end)
                if text[pos] != ":":
                    raise ValueError(f"expected ':' at offset {pos}")
                pos = skip(pos + 1)
            else:
                token, index = str(index), index + 1
            children.setdefault(token, (member, pos))
            pos = skip(self._end_of_value(member, pos))
            if text[pos] == ",":
                pos = skip(pos + 1)
            elif text[pos] != closing:
                raise ValueError(f"expected ',' or {closing!r} at offset {pos}")

    def _skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]

    def _end_of_value(self, member: int, pos: int) -> int:
        """Where the value at `pos` (of the member whose key or element starts at `member`) ends.

        A lock is read only in its canonical, indented rendering (scanner/lock/render.py): a container opened on
        a line indented by N spaces closes at the next line that is N spaces and its closing bracket, and no
        string holds a raw newline, so that line is found by C-speed `str.find` instead of decoding every
        sibling (most of a 20 MB lock). Text in another layout is decoded as before; either way only the line
        a finding is shown on depends on it.
        """
        text = self.text
        opening = text[pos : pos + 1]
        if opening in ("{", "[") and text[pos + 1 : pos + 2] != ("}" if opening == "{" else "]"):
            line_start = text.rfind("\n", 0, member) + 1
            indent = text[line_start:member]
            if indent and indent.strip(" ") == "" and text.startswith("\n", pos + 1):
                closing = "\n" + indent + ("}" if opening == "{" else "]")
                end = text.find(closing, pos)
                if end >= 0:
                    return end + len(closing)
        return self._decoder.raw_decode(text, pos)[1]

    def _line(self, pos: int) -> int:
        """1 + the newlines before offset `pos`."""
        known, lines = self._known, self._lines
        if pos in lines:
            return lines[pos]
        index = bisect.bisect_left(known, pos)  # known[index - 1] < pos < known[index], if any
        below = known[index - 1]
        if index < len(known) and known[index] - pos < pos - below:
            above = known[index]
            line = lines[above] - self.text.count("\n", pos, above)
        else:
            line = lines[below] + self.text.count("\n", below, pos)
        known.insert(index, pos)
        lines[pos] = line
        return line
