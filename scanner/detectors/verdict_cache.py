"""Detector verdicts kept across runs (scanner/files/kept.py): the pinned definitions in which the detectors
found nothing, so that `check`, which rescans every pin on every run (what is pinned stays judged), does not
scan an unchanged definition again under unchanged detectors.

The key binds the detectors: the bytes of their code, catalogue and word lists, the caller that decides what
they are run on, and the Python and Unicode versions their regexes run on. An entry binds a verdict's part and
kind (scanner/diff/verdicts.py) and the definition's canonical digest, which the caller has recomputed from the
definition itself (the lock reader verifies every digest; a live pin's is computed). Only "nothing found" is
kept: a definition with any hit is scanned on every run.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import unicodedata
from pathlib import Path

from scanner.files.kept import Kept

# What the verdicts depend on: the detectors' own files, and the caller that decides what they are run on.
_PACKAGE = Path(__file__).resolve().parent
_CALLERS = tuple(_PACKAGE.parent / "diff" / name for name in ("suspicious.py", "verdicts.py", "text_hits.py"))


@functools.cache
def detector_key() -> bytes:
    """SHA-256 over everything a verdict depends on; none of it read from the repository."""
    h = hashlib.sha256(b"mcp-lock detector verdicts v1\0")
    h.update(f"{sys.version}\0{unicodedata.unidata_version}\0".encode())
    files = sorted(p for p in _PACKAGE.iterdir() if p.suffix in (".py", ".yaml", ".json"))
    for path in (*files, *_CALLERS):
        data = path.read_bytes()
        h.update(f"{path.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.digest()


def entry_key(kind: str, digest: str) -> bytes:
    """The entry of a definition of `kind` whose canonical digest is `digest`, under these detectors."""
    return hashlib.sha256(detector_key() + f"\0{kind}\0{digest}".encode()).digest()


class Verdicts:
    """The clean verdicts of these detectors, read from `folder` (None: keep none); never inside `repo`."""

    def __init__(self, folder: Path | None, repo: Path | None = None) -> None:
        self.kept = Kept(folder, repo, "clean", detector_key())
        # Each answer once per run: the screens, the text detectors' trim and `learn` ask of every pin in turn. A
        # stale "no" (an entry saved since) costs a scan; what is read as clean is only ever what the file holds.
        self._answers: dict[tuple[str, str], bool] = {}

    @property
    def folder(self) -> Path | None:
        return self.kept.folder

    @property
    def empty(self) -> bool:
        return self.kept.empty

    def is_clean(self, kind: str, digest: str) -> bool:
        answer = self._answers.get((kind, digest))
        if answer is None:
            answer = self._answers[kind, digest] = entry_key(kind, digest) in self.kept
        return answer

    def add(self, kind: str, digest: str) -> None:
        self.kept.add(entry_key(kind, digest))  # read as clean by the next run (`Kept.add`), as before

    def save(self) -> None:
        self.kept.save()
