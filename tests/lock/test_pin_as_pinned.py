"""A check pins a definition that matches its verified pin without normalising it (scanner.lock.pin._as_pinned):
the result is the normalising path's, for every vector of lockfile-spec/vectors (its input pinned as its
canonical text reads, and the other way round) and for values equal in Python but not in JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lock_helpers import SPEC, declaration, snapshot, stdio_launch

import scanner.lock.pin as pin_module
from scanner.lock.lockfile import ServerPin
from scanner.lock.pin import pin_server

VECTOR_FILES = ("numbers.json", "strings.json", "structure.json", "real-tools.json", "rfc8785.json")


def _pairs() -> list[Any]:
    """(input, canonical) of each vector with a canonical form, both as json reads them."""
    return [
        pytest.param(json.loads(vector["input"]), json.loads(vector["canonical"]), id=vector["name"])
        for name in VECTOR_FILES
        for vector in json.loads((SPEC / "vectors" / name).read_text("utf-8"))["vectors"]
        if "digest" in vector
    ]

# Values equal as Python values but not as JSON, and values without a canonical form.
ODD: list[tuple[Any, Any]] = [
    (True, 1),
    (1, 1.0),
    (False, 0),
    ([True], [1]),
    ({"1": "x"}, {1: "x"}),
    ("a", "\ud800"),
    ([1, 2], (1, 2)),
    (float(2**53 + 2), 2**53 + 1),
    (1e16, 10**16),
    (-0.0, 0),
]


def tool(value: Any) -> dict[str, Any]:
    return {"name": "t", "description": "d", "x": value}


def pinned_of(value: Any) -> ServerPin:
    server, _ = pin_server([declaration()], stdio_launch(), snapshot(tools=[tool(value)]))
    return server


def both(live: Any, pinned: ServerPin) -> tuple[Any, Any]:
    slow = pin_server([declaration()], stdio_launch(), snapshot(tools=[tool(live)]))
    fast = pin_server([declaration()], stdio_launch(), snapshot(tools=[tool(live)]), pinned)
    return slow, fast


@pytest.mark.parametrize(("given", "canonical"), _pairs())
def test_each_vector_pins_as_the_normalising_path(given: Any, canonical: Any) -> None:
    for pinned_value, live in ((canonical, given), (given, canonical), (given, given)):
        (slow, slow_problems), (fast, fast_problems) = both(live, pinned_of(pinned_value))
        assert fast.tools == slow.tools and fast.digest == slow.digest and fast_problems == slow_problems


@pytest.mark.parametrize(("pinned_value", "live"), ODD, ids=[repr(pair) for pair in ODD])
def test_equal_in_python_but_not_in_json_pins_as_the_normalising_path(pinned_value: Any, live: Any) -> None:
    (slow, slow_problems), (fast, fast_problems) = both(live, pinned_of(pinned_value))
    assert fast.tools == slow.tools and fast.digest == slow.digest and fast_problems == slow_problems


def test_a_non_string_key_is_refused_though_it_spells_the_pinned_key() -> None:
    _, problems = pin_server([declaration()], stdio_launch(), snapshot(tools=[tool({1: "x"})]), pinned_of({"1": "x"}))
    assert any("not a string" in p for p in problems)


def test_an_unchanged_definition_is_not_normalised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    pinned = pinned_of({"b": [1, "two", None], "a": {"c": False}})

    def refuse(value: Any) -> Any:
        raise AssertionError("normalised again")

    monkeypatch.setattr(pin_module, "normalised_digest", refuse)
    server, problems = pin_server([declaration()], stdio_launch(), snapshot(tools=[tool(json.loads(
        '{"a": {"c": false}, "b": [1, "two", null]}'))]), pinned)
    assert problems == [] and server.tools == pinned.tools and server.digest == pinned.digest
