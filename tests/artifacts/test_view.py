"""Walking a path as a sandboxed process sees it (tests/artifacts/test_sandbox_records.py runs a real one):
symlinks resolve from the view's root and never above it, and only regular files are read, bounded."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scanner.artifacts.view import View, opened_view
from scanner.files.safe_read import RefusedFile


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[View]:
    """A view rooted at tmp_path/root, standing for a sandbox's root."""
    (tmp_path / "root" / "cache" / "real").mkdir(parents=True)
    (tmp_path / "root" / "cache" / "real" / "lock.json").write_text("{}")
    (tmp_path / "root" / "outside").write_text("secret")
    with opened_view(str(tmp_path / "root")) as view:
        yield view


def test_symlinks_resolve_from_the_views_root_and_never_above_it(tmp_path: Path, tree: View) -> None:
    cache = tmp_path / "root" / "cache"
    (cache / "absolute").symlink_to("/cache/real")  # the view's /cache, not the host's
    (cache / "climbing").symlink_to("../../../../../../../../cache/real")
    (cache / "host").symlink_to(tmp_path / "root" / "cache" / "real")  # the host's path: not in the view
    (cache / "escape").symlink_to("/outside")
    assert tree.resolve("/cache/absolute") == "/cache/real"
    assert tree.resolve("/cache/climbing") == "/cache/real"
    assert tree.resolve("/cache/host") is None
    assert tree.read("/cache/absolute/lock.json", "/cache", 1024) == b"{}"
    with pytest.raises(RefusedFile, match="outside the cache"):
        tree.read("/cache/escape", "/cache", 1024)
    assert tree.glob("/cache", "*/lock.json", "/cache") == ["/cache/absolute/lock.json", "/cache/climbing/lock.json",
                                                            "/cache/real/lock.json"]


def test_a_symlink_loop_or_a_fifo_is_not_read(tmp_path: Path, tree: View) -> None:
    cache = tmp_path / "root" / "cache"
    (cache / "loop").symlink_to("/cache/loop")
    os.mkfifo(cache / "fifo")
    with pytest.raises(OSError):
        tree.read("/cache/loop", "/cache", 1024)
    with pytest.raises(RefusedFile, match="not a regular file"):
        tree.read("/cache/fifo", "/cache", 1024)  # opened without blocking, refused by its type
    with pytest.raises(RefusedFile, match="larger than"):
        (cache / "big").write_bytes(b"x" * 2048)
        tree.read("/cache/big", "/cache", 1024)
