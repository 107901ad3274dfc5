"""JSON answers from a network service (OSV, a package registry) parsed within bounds: their size, nesting depth
and number of values are checked on the bytes before any object is built, so a hostile answer (a 200,000-deep
array, a flood of tiny values) is refused in one pass instead of exhausting the stack or the memory.

The check reads only the structural characters outside strings; `json.loads` then parses a document known to be
shallow and small, and the caller gets the parsed value or an `AnswerError` saying which bound it broke.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# A complete string, its escapes included; possessive, so a long string costs one pass and never backtracks.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
# Every byte but the brackets, which the depth check keeps (as `[` and `]` alone).
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SQUARE = bytes.maketrans(b"{}", b"[]")


class AnswerError(ValueError):
    """An answer that breaks a bound or is not JSON; the message says which, in one line."""


@dataclass(frozen=True)
class Bounds:
    bytes: int  # the answer's size
    depth: int  # arrays/objects that may enclose a value, the outermost counting as 1
    values: int  # containers opened plus commas: at least the number of values, less than twice it


def parse(raw: bytes, bounds: Bounds) -> Any:
    """`raw` parsed as JSON, once it is known to keep within `bounds`; AnswerError otherwise.

    Every step before `json.loads` runs at the speed of bytes methods, never a Python loop per value: strings are
    blanked, structural characters counted, and the depth found by removing innermost bracket pairs one level
    per pass, at most `bounds.depth` passes.
    """
    if len(raw) > bounds.bytes:
        raise AnswerError(f"larger than {_size(bounds.bytes)}")
    structure = _STRING.sub(b'""', raw)
    values = structure.count(b",") + structure.count(b"[") + structure.count(b"{")
    if values > bounds.values:
        raise AnswerError(f"more than {bounds.values:,} values")
    brackets = structure.translate(_SQUARE, _NOT_BRACKETS)
    for _ in range(bounds.depth):
        if not brackets:
            break
        brackets = brackets.replace(b"[]", b"")
    if b"[]" in brackets:
        raise AnswerError(f"nested deeper than {bounds.depth} levels")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError cannot happen below the depth bound: belt and braces
        raise AnswerError("not JSON") from None


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"
