"""JSON from hostile hands (a registry's record, a package manager's lock, a container engine's answer), parsed
with a size and a depth bound: anything past them, or not JSON at all, is a `JsonRefused` saying why, never a
RecursionError or MemoryError traceback.

Python's parser recurses per nesting level (a RecursionError near 1,000), and what is done later with a
parsed value may recurse too; so the parsed value's depth is checked as well, without recursion.
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_DEPTH = 64  # nesting levels: far past any record or lock a package manager writes


class JsonRefused(ValueError):
    """The text is not JSON within the bounds; the message says which."""


def loads(data: str | bytes, *, limit: int, depth: int = DEFAULT_DEPTH) -> Any:
    """The JSON value in `data` (at most `limit` bytes, nested at most `depth` levels); JsonRefused otherwise."""
    if len(data) > limit:
        raise JsonRefused(f"larger than {limit:,} bytes")
    try:
        value = json.loads(data)
    except RecursionError:
        raise JsonRefused(f"nested deeper than {depth} levels") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise JsonRefused(f"not JSON: {(str(error).splitlines() or [''])[0][:200]}") from None
    if too_deep(value, depth):
        raise JsonRefused(f"nested deeper than {depth} levels")
    return value


def too_deep(value: Any, depth: int) -> bool:
    """Whether `value` nests containers more than `depth` levels (a scalar is level 0); no recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level + 1 > depth:
            return True
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return False
