"""Servers that are large or odd but honest: everything they list is pinned, and the lock round-trips."""

from __future__ import annotations

import time
from typing import Any

from fixture_repo import Repo


def tool(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": f"Tool {name}.", "inputSchema": {"type": "object"}, **fields}


def lock_and_check(repo: Repo, limit: float) -> dict[str, Any]:
    started = time.monotonic()
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 0, result.output
    check = repo.run("check", "--timeout", "60")
    assert check.exit_code == 0, check.output  # the lock round-trips: a live check finds no drift
    assert time.monotonic() - started < limit
    return repo.lock_json()


def test_ten_thousand_tools_in_pages(repo: Repo) -> None:
    pages = [[tool(f"t{page:03d}_{i:02d}") for i in range(100)] for page in range(100)]
    repo.add_raw("many", {"pages": pages})
    pinned = lock_and_check(repo, limit=120)["servers"]["many"]["tools"]
    assert len(pinned) == 10_000
    assert pinned["t099_99"]["definition"] == tool("t099_99")
    assert pinned["t000_00"]["definition"] == tool("t000_00")


def test_one_megabyte_description_is_pinned_whole(repo: Repo) -> None:
    big = "All work and no play makes Jack a dull boy. " * (1_048_576 // 44 + 1)
    assert len(big) >= 1_048_576
    repo.add_raw("big", {"pages": [[tool("huge", description=big), tool("small")]]})
    pinned = lock_and_check(repo, limit=90)["servers"]["big"]["tools"]
    assert pinned["huge"]["definition"]["description"] == big
    assert sorted(pinned) == ["huge", "small"]


def test_invalid_json_schema_is_pinned_as_sent(repo: Repo) -> None:
    odd = {"name": "bad_schema", "description": "Schema type is a number.", "inputSchema": {"type": 42}}
    repo.add_raw("odd", {"pages": [[odd, tool("fine")]]})
    repo.add_stdio("notes")
    started = time.monotonic()
    result = repo.run("lock", "--timeout", "30")
    assert result.exit_code == 0, result.output
    lock = repo.lock_json()
    assert lock["servers"]["odd"]["tools"]["bad_schema"]["definition"] == odd
    assert sorted(lock["servers"]) == ["notes", "odd"]
    check = repo.run("check", "--timeout", "30")
    assert check.exit_code == 0, check.output
    assert time.monotonic() - started < 60
