"""A format-4 lock written before its tree packages went on one line (lockfile-spec/SPEC.md section 4) still
reads: it shows every word the current layout shows, one member per line, so a repository that upgrades mcp-lock
is not red until it re-renders. Any other layout is still refused."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scanner.lock.lockfile import LockfileError
from scanner.lock.reader import parse

VECTORS = Path(__file__).parents[2] / "lockfile-spec" / "vectors" / "lockfiles.json"


def format_4_text() -> str:
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]
    return next(v["text"] for v in vectors if v["name"] == "tree-format-4")


TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def previous_layout(text: str) -> str:
    """What the writer of the previous release made of the same lock: one member per line everywhere, two spaces
    per level, empty containers as `{}`/`[]`. Re-laid token by token, so every string keeps its escapes as written."""
    tokens = TOKEN.findall(text)
    out, level = [], 0
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token in "{[" and following in "}]":
            out.append(token)
        elif token in "{[":
            level += 1
            out.append(token + "\n" + "  " * level)
        elif token in "}]" and out and out[-1] in "{[":
            out.append(token)
        elif token in "}]":
            level -= 1
            out.append("\n" + "  " * level + token)
        elif token == ",":
            out.append(",\n" + "  " * level)
        elif token == ":":
            out.append(": ")
        else:
            out.append(token)
    return "".join(out) + "\n"


def test_the_previous_layout_of_a_format_4_lock_reads_as_the_same_lock() -> None:
    current = format_4_text()
    previous = previous_layout(current)
    assert previous != current and previous.count("\n") > current.count("\n")  # the packages were spread out
    assert parse(previous, canonical=True) == parse(current, canonical=True)
    assert previous_layout(previous) == previous  # the helper is a fixed point: it spreads, it does not rewrite


def test_a_layout_that_is_neither_is_still_refused() -> None:
    document = json.loads(format_4_text())
    minified = json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n"
    with pytest.raises(LockfileError, match="not in canonical form"):
        parse(minified, canonical=True)
    wider = previous_layout(format_4_text()).replace("\n  ", "\n    ")
    with pytest.raises(LockfileError, match="not in canonical form"):
        parse(wider, canonical=True)
    assert document["lockfileVersion"] == 4
