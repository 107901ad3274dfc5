"""The strings of a definition, and which of them are new: what every text check scans."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Set
from typing import Any

from scanner.lock.lockfile import Pin, ServerPin
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


def property_names_of(value: Any) -> list[str]:
    """The names `property_names(value)` yields, in the same order, without their pointers."""
    names: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            properties = item.get("properties")
            if isinstance(properties, dict):
                names.extend(name for name in properties if isinstance(name, str))
            # only containers hold names: leaving the rest off the stack keeps the order of those that do
            stack.extend(
                child for key, child in item.items() if isinstance(key, str) and isinstance(child, dict | list)
            )
        elif isinstance(item, list):
            stack.extend(child for child in item if isinstance(child, dict | list))
    return names


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
            known = set(pin_texts(old[name])) if name in old else _NOTHING
            yield kind, name, pin.definition, pin_texts(pin), known


def changed_tools(server: ServerPin, before: ServerPin | None) -> Iterator[tuple[str, Any, Any]]:
    """(name, definition, the pinned definition or None) of each tool new or changed since the pin."""
    old = before.tools if before is not None else {}
    for name, pin in server.tools.items():
        was = old.get(name)
        if was is None or was.digest != pin.digest:
            yield name, pin.definition, was.definition if was is not None else None


def changed_texts(
    server: ServerPin, before: ServerPin | None
) -> Iterator[tuple[str | None, str | None, Any, list[str], Set[str]]]:
    """`changed_definitions`, then the server's instructions when they are new since the pin, as (None, None, the
    instructions, [the instructions], nothing known): the model obeys them as it obeys a description, so the checks
    that read orders about tools read them too (their findings locate the server, `checks.tool_mention`)."""
    yield from changed_definitions(server, before)
    text = server.instructions
    if text and (before is None or before.instructions != text):
        yield None, None, text, [text], _NOTHING


# id(pin) -> (a weak reference to it, its definition, `texts_of` it), dropped with the pin.
_WALKED: dict[int, tuple[weakref.ref[Pin], Any, list[str]]] = {}


def pin_texts(pin: Pin) -> list[str]:
    """`texts_of(pin.definition)`, walked once per pin while it lives (the list is shared: do not change it).

    `lock` and `check` read the texts of every new definition for the text detectors, then again for each
    check across servers."""
    key = id(pin)
    entry = _WALKED.get(key)
    if entry is not None and entry[0]() is pin and entry[1] is pin.definition:
        return entry[2]
    texts = texts_of(pin.definition)
    _WALKED[key] = (weakref.ref(pin, lambda _, key=key: _WALKED.pop(key, None)), pin.definition, texts)
    return texts


def parameters_of(definition: Any) -> tuple[str, ...]:
    """The names of a definition's own inputs: a tool's top-level `inputSchema` properties, a prompt's arguments."""
    if not isinstance(definition, dict):
        return ()
    schema = definition.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    names = [str(name) for name in properties] if isinstance(properties, dict) else []
    arguments = definition.get("arguments")
    if isinstance(arguments, list):
        names += [str(a.get("name")) for a in arguments if isinstance(a, dict) and a.get("name")]
    return tuple(names)
