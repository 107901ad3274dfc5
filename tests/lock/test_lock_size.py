"""The writer never writes a lock its own reader would refuse for its size, and names the server that made it so."""

from __future__ import annotations

from pathlib import Path

import pytest
from lock_helpers import GET_TIME, declaration, snapshot, stdio_launch

from scanner.files import safe_read
from scanner.lock import writer
from scanner.lock.lockfile import Lockfile, LockfileError
from scanner.lock.pin import pin_server
from scanner.lock.reader import read


def lock_of(sizes: dict[str, int]) -> Lockfile:
    """A lock of one server per entry, each with one tool whose description is that many bytes."""
    servers = {}
    for name, size in sizes.items():
        tool = {**GET_TIME, "description": "d" * size}
        servers[name], problems = pin_server([declaration(name)], stdio_launch(), snapshot(tools=[tool]))
        assert problems == []
    return Lockfile(servers=servers)


def test_a_lock_over_the_readers_limit_is_not_written_and_names_its_largest_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 40_000
    monkeypatch.setattr(writer, "LOCK_LIMIT", limit)
    monkeypatch.setattr(safe_read, "LOCK_LIMIT", limit)
    path = tmp_path / "mcp-lock.json"
    writer.write(path, lock_of({"small": 100, "medium": 20_000}))
    read(path)  # what was written reads back under the same limit
    with pytest.raises(LockfileError) as refused:
        writer.write(path, lock_of({"small": 100, "huge": 50_000}))
    message = str(refused.value)
    assert "not written: it would be 0.1 MiB, over the 40,000 bytes mcp-lock reads back;" in message
    assert "most of it is huge (" in message
    assert message.index("huge") < message.index("small")
    assert "max-listing-bytes" in message
    assert "medium" in path.read_text()  # the earlier lock stays as it was
