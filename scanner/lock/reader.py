"""Reading mcp-lock.json: never trusts the file. Every digest is recomputed, and a mismatch is an error."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any, NoReturn

from scanner.files.kept import Kept
from scanner.files.safe_read import LOCK_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.lock.canonical import CanonicalisationError, digest, normalise_plain, plain_digest, tree_digest
from scanner.lock.document import fail_at, from_document, shown
from scanner.lock.lockfile import DOCUMENT_DEPTH, LOCKFILE_VERSION, Lockfile, LockfileError, Pin
from scanner.lock.member_lines import iter_members
from scanner.lock.render import find_raw_hidden, render_normal, render_previous_layout, render_string, render_value
from scanner.lock.schema_check import validate_schema, validate_schema_kept
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS
from scanner.model.pointer import join, unescape

_REPIN = "hand-edited or corrupted; re-pin with mcp-lock update"


def read(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None, display: str | None = None,
    canonical: bool = True, known: Kept | None = None,
) -> Lockfile:
    """Read and verify a lockfile; raise LockfileError for anything it would be unsafe to trust.

    Only a regular file inside `root` (default: the lockfile's folder) is read, up to LOCK_LIMIT bytes
    (scanner.files.safe_read); `display` names it in errors. `canonical`: refuse text that is not exactly the
    canonical rendering of what it holds, so the diff a reviewer reads is the content.
    """
    source = display or os.fspath(path)
    folder = Path(root) if root is not None else Path(os.path.abspath(path)).parent
    try:
        data = read_regular(Path(path), folder, source, LOCK_LIMIT)
    except MissingFile:
        raise LockfileError(source, "not found") from None
    except RefusedFile as error:
        raise LockfileError(source, f"cannot be read: {error.reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LockfileError(source, f"not UTF-8 (byte offset {e.start})") from None
    return parse(text, source, canonical=canonical, known=known)


def parse(text: str, source: str = "mcp-lock.json", *, canonical: bool = False, known: Kept | None = None) -> Lockfile:
    """Verify and load lockfile text (e.g. from another git revision); `source` names it in errors.

    `canonical`: refuse text that is not the canonical rendering of its content (see `read`). `known`: the
    texts this user's earlier runs proved canonical (`_parse_canonical`); every digest is verified either way.
    """
    if canonical:
        lock = _parse_canonical(text, source, known)
        if lock is not None:
            return lock
    refuse_raw_hidden(text, source)
    document = _load_json(text, source)
    if not isinstance(document, dict):
        raise LockfileError(source, "not a lockfile: the top level is not a JSON object")
    check_version(document, source)
    try:
        document, plain = normalise_plain(document, max_depth=DOCUMENT_DEPTH)
    except CanonicalisationError as e:
        fail_at(text, source, e.pointer, f"{e} at {shown(e.pointer)}")
    validate_schema(document, text, source)
    lock = verified(from_document(document), text, source, plain)
    if canonical:
        refuse_non_canonical(document, text, source)
    return lock


# --- canonical bytes (hostile repository files) ---

RERENDER_COMMAND = "mcp-lock update --rerender"


@functools.cache
def rendering_key() -> bytes:
    """A digest of the code that decides whether a text is canonical: the key of `known` canonical texts."""
    h = hashlib.sha256(f"mcp-lock canonical texts v1\0{sys.version}\0".encode())
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        data = path.read_bytes()
        h.update(f"{path.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.digest()


def text_entry(text_digest: bytes, plain: bool) -> bytes:
    """The entry of a canonical text (its SHA-256) in `known`, with whether its document is plain."""
    return hashlib.sha256(text_digest + (b"plain" if plain else b"odd")).digest()


def _parse_canonical(text: str, source: str, known: Kept | None = None) -> Lockfile | None:
    """What `parse` returns, when `text` is exactly the canonical rendering of what plain `json.loads` reads
    from it; None otherwise, and `parse`'s strict path finds the error.

    Sound for the reason the writer's read-back is: the strict loader differs from `json.loads` only by
    refusing duplicate keys, NaN, Infinity and out-of-range numbers, and the canonical rendering of what
    `json.loads` makes of such text is never that text (one member per key, finite safe numbers only). The
    rendering replaces the strict loader's Python hooks and the normalising walk, so the check costs little.
    """
    refuse_raw_hidden(text, source)
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    check_version(document, source)
    # A text this user's mcp-lock (this very rendering code) proved canonical before is the rendering of what
    # json.loads reads from it; rendering 20 MB again is most of reading a large lock. Digests are still checked.
    text_digest = hashlib.sha256(text.encode("utf-8")).digest() if known is not None else b""
    plain = _known_plain(text_digest, known)
    if plain is None:
        rendered = render_normal(document, max_depth=DOCUMENT_DEPTH)
        if rendered is None or rendered[0] + "\n" != text:
            return None
        plain = rendered[1]
    # render_normal accepted the document: normalising it would give an equal value, so that walk is skipped.
    validate_schema_kept(document, text, source, known, text_digest)
    lock = verified(from_document(document), text, source, plain)
    if known is not None:
        known.add(text_entry(text_digest, plain))
    return lock


def _known_plain(text_digest: bytes, known: Kept | None) -> bool | None:
    """Whether `known` holds the text as canonical with a plain document (True) or not plain (False); None:
    unknown."""
    if known is None or known.empty:
        return None
    for plain in (True, False):
        if text_entry(text_digest, plain) in known:
            return plain
    return None


def refuse_non_canonical(document: dict[str, Any], text: str, source: str) -> None:
    """LockfileError unless `text` is the canonical rendering of `document` (its verified content).

    Escapes such as \\u0053 for `S`, another key order or a minified file read as the same lock, but the
    reviewer of the diff would not see the words the lock holds.
    """
    rendered = render_normal(document, max_depth=DOCUMENT_DEPTH)
    expected = (rendered[0] if rendered is not None else render_value(document, DOCUMENT_DEPTH)) + "\n"
    if expected == text:
        return
    if document.get("lockfileVersion") == 4 and text == f"{render_previous_layout(document, DOCUMENT_DEPTH)}\n":
        return  # written before format-4 packages went on one line: the same words, one member per line
    line = _first_differing_line(expected, text)
    raise LockfileError(
        source,
        f"not in canonical form (line {line} differs from the canonical rendering of its content); if you"
        f" trust its content, re-render it with `{RERENDER_COMMAND}`",
        line,
    )


def _first_differing_line(expected: str, text: str) -> int:
    expected_lines, lines = expected.split("\n"), text.split("\n")
    for number, (wanted, found) in enumerate(zip(expected_lines, lines, strict=False), 1):
        if wanted != found:
            return number
    return min(len(expected_lines), len(lines)) + 1


# --- end canonical bytes ---


class _Duplicate(Exception):
    pass


class _BadNumber(Exception):
    pass


def _load_json(text: str, source: str) -> Any:
    try:
        return json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except json.JSONDecodeError as e:
        raise LockfileError(source, f"invalid JSON: {e.msg}", e.lineno, e.colno) from None
    except _Duplicate:
        _report_duplicate(text, source)
    except _BadNumber as e:
        raise LockfileError(source, f"invalid JSON: {e}") from None
    except RecursionError:
        raise LockfileError(source, "invalid JSON: nested too deeply") from None


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _reject_constant(name: str) -> NoReturn:
    raise _BadNumber(f"{name} is not a JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _BadNumber(f"{literal} is too large for a double")
    return value


def _bounded_int(literal: str) -> int:
    # 310 digits or more is past the largest double anyway; refusing early also keeps clear
    # of Python's limit on converting long digit strings.
    if len(literal.lstrip("-")) > 309:
        raise _BadNumber(f"an integer of {len(literal.lstrip('-'))} digits is too large for a double")
    return int(literal)


def _report_duplicate(text: str, source: str) -> NoReturn:
    seen: set[str] = set()
    with contextlib.suppress(ValueError):  # the scanner is stricter than json (NaN): no line then
        for pointer, line in iter_members(text):
            if pointer in seen:
                parent, _, token = pointer.rpartition("/")
                key = unescape(token)
                where = shown(parent) if parent else "the top level"
                raise LockfileError(source, f"duplicate key {render_string(key)} in {where}", line)
            seen.add(pointer)
    raise LockfileError(source, "duplicate key in an object")


def refuse_raw_hidden(text: str, source: str) -> None:
    """Raise LockfileError at the first hidden character written raw rather than as a \\u escape."""
    offset = find_raw_hidden(text)
    if offset is None:
        return
    if offset == 0 and text[0] == "\ufeff":
        raise LockfileError(source, "starts with a byte order mark; save it as UTF-8 without one")
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    raise LockfileError(
        source,
        f"raw {_describe(text[offset])} in the file; hidden characters must be written as"
        " \\u escapes (re-render with mcp-lock update)",
        line,
        column,
    )


def _describe(char: str) -> str:
    import unicodedata

    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def check_version(document: dict[str, Any], source: str) -> None:
    """Refuse a lock written in a newer format than this reader knows."""
    version = document.get("lockfileVersion")
    if isinstance(version, int) and not isinstance(version, bool) and version > LOCKFILE_VERSION:
        shown_version = str(version) if version < 10**9 else "unknown"
        raise LockfileError(source, f"written by a newer mcp-lock (format {shown_version}); upgrade mcp-lock")


def verified(lock: Lockfile, text: str, source: str, plain: bool = False) -> Lockfile:
    """`lock`, once every digest in it is recomputed and matches. `plain`: the whole document was normalised
    and holds no float and no key above U+FFFF, so each definition's digest is `plain_digest`'s (the schema
    puts every definition where the document's depth limit is its own)."""
    for name, server in lock.servers.items():
        _verify_declarations(name, server.declarations, text, source)
        for kind in KIND_KEYS:
            for key, pin in server.pins(kind).items():
                _verify_pin(name, kind, key, pin, text, source, plain)
        for prompt, body in server.prompt_bodies.items():
            _verify_body(name, prompt, body, server.prompts, text, source, plain)
        tree = server.tree
        if tree is not None and tree_digest(tree["manager"], tree["packages"], tree.get("format")) != tree["digest"]:
            fail_at(
                text,
                source,
                join(["servers", name, "launch", "tree", "digest"]),
                f"server {render_string(name)}: tree digest does not match its packages: {_REPIN}",
            )
        if server.surface_digest() != server.digest:
            fail_at(
                text,
                source,
                join(["servers", name, "digest"]),
                f"server {render_string(name)}: surface digest does not match its instructions"
                f" and definitions: {_REPIN}",
            )
    return lock


def _verify_declarations(server: str, declarations: list[dict[str, str]], text: str, source: str) -> None:
    """Declarations sorted by (file, client, name), by code point, each once: the order every writer writes."""
    keys = [(d["file"], d["client"], d["name"]) for d in declarations]
    if any(a >= b for a, b in pairwise(keys)):
        fail_at(
            text,
            source,
            join(["servers", server, "declarations"]),
            f"server {render_string(server)}: declarations are not sorted by (file, client, name) or repeat one:"
            f" {_REPIN}",
        )


def _verify_pin(server: str, kind: str, key: str, pin: Pin, text: str, source: str, plain: bool) -> None:
    pointer = join(["servers", server, kind, key])
    what = f"{KIND_BY_KEY[kind].noun} {render_string(key)} of server {render_string(server)}"
    key_field = KIND_BY_KEY[kind].name_field
    if pin.definition.get(key_field) != key:
        fail_at(text, source, pointer, f'{what}: the definition\'s "{key_field}" is not the key: {_REPIN}')
    _verify_digest(pin, "the definition", what, pointer, text, source, plain)


def _verify_body(
    server: str, prompt: str, body: Pin, prompts: dict[str, Pin], text: str, source: str, plain: bool
) -> None:
    """A pinned `prompts/get` result belongs to a pinned prompt and matches its digest."""
    pointer = join(["servers", server, "promptBodies", prompt])
    what = f"the body of prompt {render_string(prompt)} of server {render_string(server)}"
    if prompt not in prompts:
        fail_at(text, source, pointer, f"{what}: no such prompt is pinned: {_REPIN}")
    _verify_digest(body, "the result", what, pointer, text, source, plain)


def _verify_digest(pin: Pin, noun: str, what: str, pointer: str, text: str, source: str, plain: bool) -> None:
    """`pin`'s recorded digest is the digest of what it records (`noun` names that in the message)."""
    try:
        actual = plain_digest(pin.definition) if plain else digest(pin.definition)
    except CanonicalisationError as e:
        fail_at(text, source, pointer, f"{what}: {e}: {_REPIN}")
    if actual != pin.digest:
        fail_at(text, source, pointer, f"{what}: recorded digest does not match {noun}: {_REPIN}")
