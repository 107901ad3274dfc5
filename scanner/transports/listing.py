"""Caps on what a server may list: definitions per server, and bytes per listing across its pages.

A listing is checked while it is read, before `json.loads` builds objects from a line. Each line a stdio
server prints during a listing counts against the byte cap. Its commas and brackets (a C-speed count, those
in strings included) bound how many JSON values it can hold: past VALUES_PER_DEFINITION for each definition
the cap allows, it is refused. A line with more commas than definitions left is scanned (strings skipped,
stopping once decided or after SCAN_TOKENS tokens) for its entries, so a page of millions of small tools is
refused after reading its first ten thousand. Over HTTP and SSE every byte of a response body read during a
listing counts against the same byte cap (`take_bytes`, from the HTTP witness). Every parsed page is counted
again exactly, for every transport.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scanner.transports.protocol import ProbeError

MiB = 1024 * 1024
MAX_DEFINITIONS = 10_000  # per server, all kinds together (bench/scale.py pins 10,000 tools)
MAX_LISTING_BYTES = 64 * MiB  # per listing (one kind, all its pages)
DEFINITIONS_KEY = "max-definitions"  # the mcp-lock.yaml keys that raise them
BYTES_KEY = "max-listing-bytes"

# What a listing line may hold, per definition the cap allows: commas and brackets (values and containers).
VALUES_PER_DEFINITION = 400
# The entries scan gives up after this many tokens (then the page is parsed, bounded by the values cap).
SCAN_TOKENS = 200_000
# A JSON string (escapes included), a bracket or a comma: enough to count entries without parsing.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*+"|[\[\]{},]', re.S)
# A listing's entries are the elements of an array inside the result inside the message: depth 4.
_ENTRY_DEPTH = 3


@dataclass(frozen=True)
class ListingCaps:
    definitions: int = MAX_DEFINITIONS
    bytes: int = MAX_LISTING_BYTES


DEFAULT_CAPS = ListingCaps()


class ListingCapExceeded(ProbeError):
    """A server listed more than a cap allows; the message names the cap and how to raise it."""


class ListingBudget:
    """What is left of the caps while one server is probed: definitions for the server, bytes per listing."""

    def __init__(self, caps: ListingCaps) -> None:
        self.caps = caps
        self.method = "a listing"
        self.definitions = 0
        self.bytes_read = 0

    def start(self, method: str) -> None:
        """A new listing (`tools/list`, …): its pages share one byte cap."""
        self.method = method
        self.bytes_read = 0

    def take_line(self, line: bytes, length: int) -> None:
        """Count a line of `length` bytes read during the listing; ListingCapExceeded, before the line is
        parsed, when it cannot fit."""
        self.bytes_read += length
        if self.bytes_read > self.caps.bytes:
            raise self._too_many_bytes()
        commas = line.count(b",")
        values = commas + line.count(b"[") + line.count(b"{")
        if values > self.caps.definitions * VALUES_PER_DEFINITION:
            raise self._too_many_values()
        left = self.caps.definitions - self.definitions
        if commas >= left and _entries_over(line, left):
            raise self._too_many_definitions()

    def take_bytes(self, length: int) -> None:
        """Count `length` bytes of a response body read during the listing (HTTP, SSE); ListingCapExceeded
        once the listing's pages together pass the byte cap."""
        self.bytes_read += length
        if self.bytes_read > self.caps.bytes:
            raise self._too_many_bytes()

    def take_page(self, entries: int) -> None:
        """Count a parsed page's entries."""
        self.definitions += entries
        if self.definitions > self.caps.definitions:
            raise self._too_many_definitions()

    def _too_many_definitions(self) -> ListingCapExceeded:
        return ListingCapExceeded(
            f"{self.method} went past the cap of {self.caps.definitions:,} definitions per server; nothing was "
            f"pinned (a server this large can raise it: `{DEFINITIONS_KEY}: N` in mcp-lock.yaml, for all servers "
            "or under servers.NAME)"
        )

    def _too_many_values(self) -> ListingCapExceeded:
        return ListingCapExceeded(
            f"{self.method} sent a page of more than {self.caps.definitions * VALUES_PER_DEFINITION:,} JSON values "
            f"(commas and brackets), more than the cap of {self.caps.definitions:,} definitions per server allows "
            f"({VALUES_PER_DEFINITION} each); nothing was pinned (a server this large can raise it: "
            f"`{DEFINITIONS_KEY}: N` in mcp-lock.yaml, for all servers or under servers.NAME)"
        )

    def _too_many_bytes(self) -> ListingCapExceeded:
        return ListingCapExceeded(
            f"{self.method} sent more than {_size(self.caps.bytes)} across its pages, the cap per listing; "
            f"nothing was pinned (a server this large can raise it: `{BYTES_KEY}: N` bytes in mcp-lock.yaml, "
            "for all servers or under servers.NAME)"
        )


def _entries_over(line: bytes, left: int) -> bool:
    """Whether the message on `line` has more than `left` entries in a listing array; stops once it has.

    Entries are counted by the commas between them, so numbers and `null`s count like objects do.
    """
    depth = 0
    in_array = [False] * (_ENTRY_DEPTH + 1)  # whether the container at each depth up to the entries' is an array
    commas = 0
    for scanned, match in enumerate(_TOKEN.finditer(line)):
        if scanned > SCAN_TOKENS:
            return False  # undecided: the parsed page is counted exactly
        char = match[0][0]
        if char in (0x7B, 0x5B):  # { [
            depth += 1
            if depth <= _ENTRY_DEPTH:
                in_array[depth] = char == 0x5B
        elif char in (0x7D, 0x5D):  # } ]
            depth -= 1
        elif char == 0x2C and depth == _ENTRY_DEPTH and in_array[depth]:  # a comma between entries
            commas += 1
            if commas >= left:
                return True
    return False


def _size(count: int) -> str:
    return f"{count // MiB} MiB" if count % MiB == 0 else f"{count:,} bytes"
