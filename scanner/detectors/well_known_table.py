"""D022's table of widely installed tool names (`well_known_tools.json`, 5,557 keys), kept across runs.

Building it normalises each of its 6,170 names, about 14 ms of CPU on every pin whose new text may hold a
directive, spent after the last server listed, when nothing else runs beside it (issue 39 item 2,
bench/README.md). The built table is a pure function of the packaged list, of the code that builds it and of
the Python that runs it (its `str.lower`, its marshal format); it is kept under a key binding all three, in the
user's cache folder beside the detectors' verdicts, in a file read only as they are (scanner/files/kept.py:
private, no link followed, authenticated by this user's secret): a missing, corrupted, tampered, foreign or
linked file is ignored and the table built again, so a bad file costs time only.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scanner.files.kept import read_value, save_value

NAME = "well-known-keys"
_folder: Path | None = None  # where the verdicts are kept this run (None: build every time)


def keep_in(folder: Path | None) -> None:
    """Keep the table in `folder`: the verdicts' folder (already refused when inside the repository)."""
    global _folder
    _folder = folder


def table_key(data: bytes, builder: bytes) -> bytes:
    """SHA-256 over what the table depends on: the packaged list's bytes, its builder's code and the Python."""
    h = hashlib.sha256(b"mcp-lock well-known keys v1\0")
    h.update(f"{sys.version}\0{marshal.version}\0".encode())
    for part in (builder, data):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.digest()


def kept_table(data: bytes, builder: bytes, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The table kept for `data` (the list's bytes) and `builder` (its code), else `build()`'s, then kept."""
    key = table_key(data, builder)
    raw = read_value(_folder, None, NAME, key)
    if raw is not None:
        with contextlib.suppress(ValueError, EOFError, TypeError):
            table = marshal.loads(raw)  # authenticated above: bytes this user's mcp-lock wrote
            if type(table) is dict:
                return table
    table = build()
    save_value(_folder, None, NAME, key, marshal.dumps(table))
    return table
