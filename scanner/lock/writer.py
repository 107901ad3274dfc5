"""Writing mcp-lock.json: atomically, and only text proven to read back as the lock, within the size the reader
accepts."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from scanner.files.kept import Kept
from scanner.files.safe_read import LOCK_LIMIT, MiB, RefusedFile, refuse_unsafe_target
from scanner.files.safe_write import replace_atomically
from scanner.lock.canonical import MAX_SAFE_INTEGER
from scanner.lock.document import from_document, render, to_document
from scanner.lock.lockfile import DOCUMENT_DEPTH, Lockfile, LockfileError
from scanner.lock.reader import check_version, parse, refuse_raw_hidden, text_entry, verified
from scanner.lock.render import render_normal
from scanner.lock.schema_check import validate_schema_kept


def write(
    path: str | os.PathLike[str], lock: Lockfile, *, root: str | os.PathLike[str] | None = None,
    display: str | None = None, known: Kept | None = None,
) -> None:
    """Write the lock atomically: readers see the old file or the new one, never a mix.

    Refuses (LockfileError, nothing written) a lock that its own reader would refuse, or whose text would
    not read back as the lock, and a path that is a symlink, not a regular file, or in a folder outside `root`
    (default: its own folder). Keeps an existing file's permission bits; a new file gets the usual umask-based
    mode. `known` (canonical texts kept across runs, reader.read) learns the text: it is the rendering of what
    it reads back as, which is what the reader would otherwise prove by rendering it again.
    """
    source = display or os.fspath(path)
    target = os.path.abspath(path)
    try:
        refuse_unsafe_target(Path(target), Path(root) if root is not None else Path(target).parent, source)
    except RefusedFile as error:
        raise LockfileError(source, f"not written: {error.reason}") from None
    document = to_document(lock)
    rendered = render_normal(document, max_depth=DOCUMENT_DEPTH)
    try:
        if rendered is None:  # not already normal (e.g. a hand-built lock): the full reader
            text = render(lock)
            parse(text, source)
        else:
            text = rendered[0] + "\n"
            text_digest = hashlib.sha256(text.encode("utf-8")).digest() if known is not None else b""
            _reads_back(text, document, rendered[1], source, known, text_digest)
            if known is not None:
                known.add(text_entry(text_digest, rendered[1]))
    except LockfileError as e:
        raise LockfileError(source, f"not written: {e.reason}") from None
    data = text.encode("utf-8")
    if len(data) > LOCK_LIMIT:
        raise LockfileError(source, _too_large(len(data), document))
    directory, name = os.path.split(target)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    replace_atomically(directory, name, data, mode)


def _limit() -> str:
    return f"{LOCK_LIMIT // MiB} MiB" if LOCK_LIMIT % MiB == 0 else f"{LOCK_LIMIT:,} bytes"


def _too_large(size: int, document: dict[str, Any]) -> str:
    """Why a lock over the reader's LOCK_LIMIT is not written, naming the servers that hold most of it."""
    sizes = {name: len(json.dumps(server, ensure_ascii=False)) for name, server in document["servers"].items()}
    largest = sorted(sizes, key=lambda name: -sizes[name])[:3]
    shown = ", ".join(f"{name} ({sizes[name] / MiB:.1f} MiB)" for name in largest)
    return (
        f"not written: it would be {size / MiB:.1f} MiB, over the {_limit()} mcp-lock reads back; "
        f"most of it is {shown}: lower `max-listing-bytes` or `max-definitions` for that server in mcp-lock.yaml "
        "(it is then refused at boot, with a finding), or `skip:` it"
    )


def _reads_back(text: str, document: dict[str, Any], plain: bool, source: str, known: Kept | None = None,
                text_digest: bytes = b"") -> None:
    """What `parse(text, source)` checks, for the text `render_normal` made of `document`; raises as it would.

    The same steps as `parse`, some proven instead of repeated:
    * raw hidden characters, the version, the schema, each definition's key field: the same checks;
    * loading: plain `json.loads` (C) must give a value equal to `document`, or the reader is run for its
      error (and if it has none, this refuses the text anyway: it does not read back as the lock). The
      reader's stricter loading refuses only duplicate keys, NaN, Infinity and out-of-range numbers: render
      writes each key of an object once, so a duplicate would leave an object with fewer members than the
      document's; the others cannot equal the finite, in-range numbers of a normal document;
    * normalising: integers are read as normalising reads them (beyond ±(2**53 - 1): the nearest double, so
      that 2**60 pinned as a double reads back equal); `document` is normal (render_normal accepted it), so
      the equal loaded value is too, and normalising it changes nothing that reaches a digest (1 and 1.0 have
      one canonical form);
    * digests: recomputed from the loaded definitions, as the reader does (`plain_digest` when the document
      is plain and no float literal was read); the surface digests too.
    """
    refuse_raw_hidden(text, source)
    floats: list[str] = []
    try:
        loaded = json.loads(
            text, parse_float=lambda literal: floats.append(literal) or float(literal), parse_int=_read_int
        )
    except (ValueError, OverflowError, RecursionError):
        loaded = None
    if loaded != document:
        parse(text, source)
        raise LockfileError(source, "the rendered text does not read back as the lock")
    check_version(loaded, source)
    # `loaded` is what json.loads(text) gives (a normal document holds no integer past ±(2**53 - 1)).
    validate_schema_kept(loaded, text, source, known, text_digest)
    verified(from_document(loaded), text, source, plain and not floats)


def _read_int(literal: str) -> int | float:
    number = int(literal)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else float(number)
