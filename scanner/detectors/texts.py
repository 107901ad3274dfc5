"""The strings of a definition, and which of them are new: what every text check scans."""

from __future__ import annotations

from collections.abc import Iterator, Set
from typing import Any

from scanner.lock.lockfile import ServerPin
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import escape


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a definition (descriptions, titles, enum values, defaults…) with its JSON pointer.

    Depth-first in document order, iteratively: nested generators cost a frame per level per string,
    and `lock` walks every string of every pinned definition.
    """
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            stack.extend(
                (f"{where}/{escape(key)}", child) for key, child in reversed(list(item.items()))
            )
        elif isinstance(item, list):
            stack.extend((f"{where}/{index}", item[index]) for index in range(len(item) - 1, -1, -1))


def texts_of(value: Any) -> list[str]:
    """The strings `strings(value)` yields, in the same order, without their pointers (built only for a hit)."""
    out: list[str] = []
    if isinstance(value, str):
        out.append(value)
        return out
    try:
        _collect(value, out)
    except RecursionError:  # deeper than any pinned definition can be: the iterative walk
        return [text for _, text in strings(value)]
    return out


def _collect(value: Any, out: list[str]) -> None:
    for child in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        kind = type(child)  # exact types first (a pinned definition has no others), then as `strings`
        if kind is str:
            out.append(child)
        elif kind is dict or kind is list or isinstance(child, dict | list):
            _collect(child, out)
        elif isinstance(child, str):
            out.append(child)


def paths_of(value: Any) -> list[str]:
    """The pointer of each string of `texts_of(value)`, by index."""
    return [path for path, _ in strings(value)]


def property_names(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(pointer, name) of each key of every `properties` object in a schema: names the model reads too."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            properties = item.get("properties")
            if isinstance(properties, dict):
                base = f"{where}/properties"
                yield from ((f"{base}/{escape(name)}", name) for name in properties if isinstance(name, str))
            stack.extend((f"{where}/{escape(key)}", child) for key, child in item.items() if isinstance(key, str))
        elif isinstance(item, list):
            stack.extend((f"{where}/{index}", child) for index, child in enumerate(item))


_NOTHING: frozenset[str] = frozenset()


def changed_definitions(
    server: ServerPin, before: ServerPin | None
) -> Iterator[tuple[str, str, Any, list[str], Set[str]]]:
    """(kind, name, definition, its texts, texts the pinned definition already had) of each changed definition."""
    for kind in KIND_KEYS:
        old = before.pins(kind) if before is not None else {}
        for name, pin in server.pins(kind).items():
            if name in old and old[name].digest == pin.digest:
                continue  # the same canonical definition: no new text
            known = set(texts_of(old[name].definition)) if name in old else _NOTHING
            yield kind, name, pin.definition, texts_of(pin.definition), known
