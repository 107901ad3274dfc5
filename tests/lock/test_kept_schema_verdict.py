"""A lock text this user's mcp-lock validated against the lockfile schema is not validated again
(scanner/lock/schema_check.validate_schema_kept, kept in the sealed `known` set of scanner/files/kept.py); a text
that does not validate fails every time, and no entry the repository can write vouches for one."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner.files.kept import Kept
from scanner.lock import reader, schema_check, writer
from scanner.lock.document import to_document
from scanner.lock.lockfile import DOCUMENT_DEPTH, Lockfile, LockfileError
from scanner.lock.render import render_value
from scanner.lock.writer import render


def _known(folder: Path) -> Kept:
    return Kept(folder, None, "canonical", reader.rendering_key())


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = schema_check.validate_schema
    monkeypatch.setattr(schema_check, "validate_schema", lambda d, t, s: calls.append(s) or real(d, t, s))
    return calls


def test_a_text_validated_before_is_not_validated_again(
    time_lock: Lockfile, tmp_path: Path, validations: list[str]
) -> None:
    text = render(time_lock)
    first = _known(tmp_path)
    assert reader.parse(text, canonical=True, known=first) == time_lock
    first.save()
    assert len(validations) == 1
    assert reader.parse(text, canonical=True, known=_known(tmp_path)) == time_lock
    assert len(validations) == 1  # kept: not validated again
    assert reader.parse(text, canonical=True, known=_known(tmp_path / "elsewhere")) == time_lock
    assert len(validations) == 2  # another user's cache (none): validated


def test_what_the_writer_validated_is_not_validated_on_the_next_read(
    time_lock: Lockfile, tmp_path: Path, validations: list[str]
) -> None:
    lock_path, cache = tmp_path / "repo" / "mcp-lock.json", tmp_path / "cache"
    lock_path.parent.mkdir()
    known = _known(cache)
    writer.write(lock_path, time_lock, known=known)
    known.save()
    assert len(validations) == 1  # the writer's read-back
    assert reader.read(lock_path, known=_known(cache)) == time_lock
    assert len(validations) == 1


def _invalid_canonical_text(lock: Lockfile) -> str:
    """A text in canonical form that the schema refuses: a launch member no version defines."""
    document = to_document(lock)
    next(iter(document["servers"].values()))["launch"]["unknownMember"] = 1
    return render_value(document, DOCUMENT_DEPTH) + "\n"


def test_a_text_that_does_not_validate_fails_every_time(time_lock: Lockfile, tmp_path: Path) -> None:
    text = _invalid_canonical_text(time_lock)
    for _ in range(2):
        known = _known(tmp_path)
        with pytest.raises(LockfileError, match="does not match the lockfile schema"):
            reader.parse(text, canonical=True, known=known)
        known.save()


def test_an_entry_sealed_with_another_secret_vouches_for_nothing(time_lock: Lockfile, tmp_path: Path) -> None:
    """What a repository (or anyone without this user's verdict-key) can write is a file sealed with another
    secret: it is ignored, and the schema is checked."""
    import hashlib

    text = _invalid_canonical_text(time_lock)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    entry = schema_check.schema_entry(digest)
    assert entry is not None
    forger = _known(tmp_path / "forger")
    forger.add(entry)
    forger.add(reader.text_entry(digest, True))
    forger.save()
    victim = tmp_path / "victim"
    _known(victim).add(b"\0" * 32)  # nothing kept yet: make the victim's own secret
    victim_known = _known(victim)
    victim_known.add(b"\1" * 32)
    victim_known.save()
    (forged,) = (tmp_path / "forger").glob("canonical-*.bin")
    (own,) = victim.glob("canonical-*.bin")
    own.write_bytes(forged.read_bytes())
    known = _known(victim)
    assert entry not in known
    with pytest.raises(LockfileError, match="does not match the lockfile schema"):
        reader.parse(text, canonical=True, known=known)


def test_another_schema_or_validator_release_validates_again(
    time_lock: Lockfile, tmp_path: Path, validations: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = render(time_lock)
    known = _known(tmp_path)
    reader.parse(text, canonical=True, known=known)
    known.save()
    assert len(validations) == 1
    monkeypatch.setattr(schema_check, "_verdict_binding", lambda: b"another schema or jsonschema release")
    assert reader.parse(text, canonical=True, known=_known(tmp_path)) == time_lock
    assert len(validations) == 2
