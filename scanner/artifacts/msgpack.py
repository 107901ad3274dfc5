"""Read the first MessagePack value of a byte string: the header uv writes in front of its cache entries.

Only what that header uses (maps, arrays, strings, binary, integers, nil, booleans, floats); bounded by the
input's size and a depth limit, so a corrupt cache file is an error, not a hang.
"""

from __future__ import annotations

import struct
from typing import Any

MAX_DEPTH = 32


class MsgpackError(ValueError):
    """Not a MessagePack value this reader understands."""


def first_value(data: bytes) -> Any:
    """The first value encoded in `data` (trailing bytes are ignored)."""
    value, _ = _read(data, 0, 0)
    return value


def _take(data: bytes, at: int, size: int) -> tuple[bytes, int]:
    if size < 0 or at + size > len(data):
        raise MsgpackError("truncated")
    return data[at : at + size], at + size


def _number(data: bytes, at: int, fmt: str) -> tuple[Any, int]:
    raw, at = _take(data, at, struct.calcsize(fmt))
    return struct.unpack(fmt, raw)[0], at


SIZED = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}
ARRAYS = {0xDC: ">H", 0xDD: ">I"}
MAPS = {0xDE: ">H", 0xDF: ">I"}
NUMBERS = {
    0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
    0xCA: ">f", 0xCB: ">d",
}
CONSTANTS = {0xC0: None, 0xC2: False, 0xC3: True}


def _read(data: bytes, at: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise MsgpackError("too deep")
    head, at = _take(data, at, 1)
    byte = head[0]
    if byte <= 0x7F:
        return byte, at
    if byte >= 0xE0:
        return byte - 0x100, at
    if 0xA0 <= byte <= 0xBF:
        return _text(data, at, byte & 0x1F)
    if 0x90 <= byte <= 0x9F:
        return _array(data, at, byte & 0x0F, depth)
    if 0x80 <= byte <= 0x8F:
        return _map(data, at, byte & 0x0F, depth)
    if byte in CONSTANTS:
        return CONSTANTS[byte], at
    if byte in NUMBERS:
        return _number(data, at, NUMBERS[byte])
    if byte in SIZED:
        size, at = _number(data, at, SIZED[byte])
        return _text(data, at, size) if byte >= 0xD9 else _take(data, at, size)
    if byte in ARRAYS:
        size, at = _number(data, at, ARRAYS[byte])
        return _array(data, at, size, depth)
    if byte in MAPS:
        size, at = _number(data, at, MAPS[byte])
        return _map(data, at, size, depth)
    raise MsgpackError(f"unsupported type byte 0x{byte:02x}")


def _text(data: bytes, at: int, size: int) -> tuple[str, int]:
    raw, at = _take(data, at, size)
    return raw.decode("utf-8", "replace"), at


def _array(data: bytes, at: int, size: int, depth: int) -> tuple[list[Any], int]:
    if size > len(data) - at:
        raise MsgpackError("truncated")
    items = []
    for _ in range(size):
        item, at = _read(data, at, depth + 1)
        items.append(item)
    return items, at


def _map(data: bytes, at: int, size: int, depth: int) -> tuple[dict[Any, Any], int]:
    if size > len(data) - at:
        raise MsgpackError("truncated")
    members: dict[Any, Any] = {}
    for _ in range(size):
        key, at = _read(data, at, depth + 1)
        value, at = _read(data, at, depth + 1)
        members[key if isinstance(key, (str, int)) else repr(key)] = value
    return members, at
