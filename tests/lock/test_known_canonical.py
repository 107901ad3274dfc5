"""Lock texts proved canonical before (reader._parse_canonical with `known`, kept by scanner/files/kept.py): a
known text skips the re-rendering and nothing else; an unknown or damaged entry changes no verdict."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from scanner.files.kept import Kept
from scanner.lock import reader
from scanner.lock.lockfile import Lockfile, LockfileError
from scanner.lock.writer import render


def _known(folder: Path) -> Kept:
    return Kept(folder, None, "canonical", reader.rendering_key())


def test_a_known_text_reads_as_the_same_lock_without_rendering(
    time_lock: Lockfile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = render(time_lock)
    first = _known(tmp_path)
    assert reader.parse(text, canonical=True, known=first) == time_lock
    first.save()
    calls: list[object] = []
    real = reader.render_normal
    monkeypatch.setattr(reader, "render_normal", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert reader.parse(text, canonical=True, known=_known(tmp_path)) == time_lock
    assert calls == []  # proved before: not rendered again
    assert reader.parse(text, canonical=True, known=_known(tmp_path / "other")) == time_lock
    assert len(calls) == 1  # unknown: rendered


def test_a_known_text_still_has_every_digest_checked(time_lock: Lockfile, tmp_path: Path) -> None:
    """Even an entry forged for a text with a wrong digest vouches only for its layout."""
    pinned = next(iter(time_lock.servers.values())).tools
    pin = next(iter(pinned.values()))
    forged = render(time_lock).replace(pin.digest, "sha256:" + "0" * 64)
    known = _known(tmp_path)
    for plain in (True, False):
        known.add(reader.text_entry(hashlib.sha256(forged.encode()).digest(), plain))
    known.save()
    with pytest.raises(LockfileError, match="recorded digest does not match"):
        reader.parse(forged, canonical=True, known=_known(tmp_path))


def test_other_texts_are_judged_as_ever(time_lock: Lockfile, tmp_path: Path) -> None:
    text = render(time_lock)
    known = _known(tmp_path)
    reader.parse(text, canonical=True, known=known)
    known.save()
    minified = text.replace("\n", "").replace("  ", "")
    with pytest.raises(LockfileError, match="not in canonical form"):
        reader.parse(minified, canonical=True, known=_known(tmp_path))


def test_a_damaged_file_is_judged_again(time_lock: Lockfile, tmp_path: Path) -> None:
    text = render(time_lock)
    known = _known(tmp_path)
    reader.parse(text, canonical=True, known=known)
    known.save()
    (path,) = tmp_path.glob("canonical-*.bin")
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert _known(tmp_path).empty
    assert reader.parse(text, canonical=True, known=_known(tmp_path)) == time_lock
