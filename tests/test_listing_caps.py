"""Caps on a listing: definitions per server and bytes per listing across pages, checked while reading."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fixture_repo import Repo

from scanner.transports.listing import MAX_DEFINITIONS, ListingBudget, ListingCapExceeded, ListingCaps

MIB = 1024 * 1024


def tool(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": f"Tool {name}.", "inputSchema": {"type": "object"}, **fields}


def test_one_line_of_a_million_tools_is_refused_while_reading(repo: Repo) -> None:
    # The attack as found was one 62 MB line of 3,000,000 tools (8 GB, 7.5 minutes); a million keep this fast.
    repo.add_raw("flood", {"pages": [["BULK"]], "bulk_tools": 1_000_000})
    result = repo.run("lock", "--timeout", "60")  # a refusal past the timeout would read "timed out"
    assert result.exit_code != 0, result.output[-500:]
    assert f"tools/list went past the cap of {MAX_DEFINITIONS:,} definitions per server" in result.output
    assert "max-definitions: N" in result.output and "Traceback" not in result.output
    assert not repo.lock_path.exists()  # the only server was refused: nothing is written


def test_the_definitions_cap_counts_every_page_and_is_raisable(repo: Repo) -> None:
    pages = [[tool(f"p{page}_{i}") for i in range(30)] for page in range(3)]
    repo.add_raw("paged", {"pages": pages})
    (repo.root / "mcp-lock.yaml").write_text("max-definitions: 50\n", encoding="utf-8")
    result = repo.run("lock", "--timeout", "30")
    assert result.exit_code != 0, result.output
    assert "tools/list went past the cap of 50 definitions per server; nothing was pinned" in result.output
    assert not repo.lock_path.exists()  # the only server was refused: nothing is written

    policy = "max-definitions: 50\nservers:\n  paged:\n    max-definitions: 90\n"
    (repo.root / "mcp-lock.yaml").write_text(policy, encoding="utf-8")
    result = repo.run("lock", "--timeout", "30")
    assert result.exit_code == 0, result.output
    assert len(repo.lock_json()["servers"]["paged"]["tools"]) == 90


def test_the_byte_cap_spans_the_pages_of_a_listing(repo: Repo) -> None:
    pages = [[tool(f"big{page}", description="PAD")] for page in range(3)]
    repo.add_raw("padded", {"pages": pages, "pad_mb": 1})
    (repo.root / "mcp-lock.yaml").write_text("max-listing-bytes: 2500000\n", encoding="utf-8")
    result = repo.run("lock", "--timeout", "30")
    assert result.exit_code != 0, result.output
    assert "tools/list sent more than 2,500,000 bytes across its pages, the cap per listing" in result.output
    assert "max-listing-bytes: N" in result.output

    (repo.root / "mcp-lock.yaml").write_text("max-listing-bytes: 4000000\n", encoding="utf-8")
    assert repo.run("lock", "--timeout", "30").exit_code == 0


def test_the_byte_cap_spans_the_pages_of_an_http_listing(repo: Repo, http_server: Callable[..., int]) -> None:
    """8 pages of 12 MiB from the SDK's own server (JSON bodies): each page is under the 64 MiB of one
    response, the listing is not (before, 24 such pages were pinned: 288 MiB, and mcp-lock at 1.3 GiB RSS)."""
    repo.write_spec("big", {"name": "big", "jsonResponse": True, "generatedPages": {"count": 8, "bytes": 12 * MIB}})
    repo.add_entry("big", {"type": "http", "url": f"http://127.0.0.1:{http_server(repo.spec_path('big'))}/mcp"})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 1, result.output
    assert "big: could not be booted: tools/list sent more than 64 MiB across its pages, the cap per listing" in (
        result.output
    )
    assert "Traceback" not in result.output and not repo.lock_path.exists()

    (repo.root / "mcp-lock.yaml").write_text("max-listing-bytes: 209715200\n", encoding="utf-8")  # 200 MiB
    repo.write_spec("big", {"name": "big", "jsonResponse": True, "generatedPages": {"count": 3, "bytes": 12 * MIB}})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 0, result.output
    assert sorted(repo.lock_json()["servers"]["big"]["tools"]) == ["page0", "page1", "page2"]


def test_the_byte_cap_spans_the_pages_of_an_sse_listing(repo: Repo, http_server: Callable[..., int]) -> None:
    """The SDK's SSE client refuses one event over 1 MiB itself; pages under that add up on one stream."""
    repo.write_spec("big", {"name": "big", "generatedPages": {"count": 8, "bytes": 900 * 1024}})
    port = http_server(repo.spec_path("big"), "--sse")
    repo.add_entry("big", {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"})
    (repo.root / "mcp-lock.yaml").write_text("max-listing-bytes: 4194304\n", encoding="utf-8")  # 4 MiB
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code == 1, result.output
    assert "big: could not be booted: tools/list sent more than 4 MiB across its pages, the cap per listing" in (
        result.output
    )
    (repo.root / "mcp-lock.yaml").write_text("max-listing-bytes: 16777216\n", encoding="utf-8")
    assert repo.run("lock", "--timeout", "60").exit_code == 0
    assert len(repo.lock_json()["servers"]["big"]["tools"]) == 8


@pytest.mark.parametrize("value", ["0", "-3", "1.5", "yes", "[1]"])
def test_a_cap_must_be_a_positive_whole_number(repo: Repo, value: str) -> None:
    (repo.root / "mcp-lock.yaml").write_text(f"max-definitions: {value}\n", encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2
    assert "mcp-lock.yaml: max-definitions must be a positive whole number" in result.output


def line(entries: list[Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": entries, "nextCursor": "a,b,c"}}).encode()


def test_entries_are_counted_by_structure_not_by_the_commas_in_their_text() -> None:
    budget = ListingBudget(ListingCaps(definitions=3))
    crowded = [tool("a", description=", , , [{,}] \\\" ,"), tool("b", inputSchema={"enum": [1, 2, 3, 4, 5]})]
    budget.take_line(line(crowded), len(line(crowded)))  # many commas and brackets, two entries: fits
    with pytest.raises(ListingCapExceeded, match="cap of 3 definitions"):
        budget.take_line(line([1, 2, 3, 4]), 0)  # numbers are entries too (refused unparsed)


def test_parsed_pages_are_counted_across_kinds() -> None:
    budget = ListingBudget(ListingCaps(definitions=5))
    budget.start("tools/list")
    budget.take_page(3)
    budget.start("prompts/list")
    with pytest.raises(ListingCapExceeded, match="prompts/list went past the cap of 5"):
        budget.take_page(3)


def test_a_flood_inside_one_definition_is_refused_unparsed_by_its_values() -> None:
    # One entry, so the entries scan cannot refuse it; its commas bound what json.loads would build.
    flood = b",".join([b"[]"] * 50_000)
    message = b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"enum":[' + flood + b"]}}]}}"
    budget = ListingBudget(ListingCaps(definitions=100))
    with pytest.raises(ListingCapExceeded, match=r"more than 40,000 JSON values .* cap of 100 definitions"):
        budget.take_line(message, len(message))
    ListingBudget(ListingCaps(definitions=1000)).take_line(message, len(message))  # fits a larger cap
