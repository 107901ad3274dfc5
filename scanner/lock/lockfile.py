"""mcp-lock.json: the pinned definitions of every server, and the only code that reads or writes it.

The format is specified in lockfile-spec/SPEC.md; the schema ships next to this module.
Reading never trusts the file: every digest is recomputed, and a mismatch is an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from scanner.lock.canonical import (
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    CanonicalisationError,
    digest,
    normalise,
    normalise_plain,
    normalised_digest,
    plain_digest,
)
from scanner.lock.locate import iter_members
from scanner.lock.render import find_raw_hidden, render_normal, render_string, render_value
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS, KINDS
from scanner.model.pointer import join, unescape
from scanner.snapshot import Snapshot

if TYPE_CHECKING:
    from scanner.sources.model import Declaration

LOCKFILE_VERSION = 1
SCHEMA_RESOURCE = "mcp-lock.schema.json"

# Containers around a definition in the document: root, servers, server, kind, pin.
_DEFINITION_NESTING = 5


_REPIN = "hand-edited or corrupted; re-pin with mcp-lock update"


class LockfileError(Exception):
    """A lockfile that cannot be trusted: one line naming the file (and line when known)."""

    def __init__(self, source: str, reason: str, line: int | None = None, column: int | None = None):
        where = source + "".join(f":{n}" for n in (line, column) if n is not None)
        super().__init__(f"{where}: {reason}")
        self.source, self.reason, self.line, self.column = source, reason, line, column


@dataclasses.dataclass
class Pin:
    """One definition exactly as the server listed it, and its digest."""

    definition: dict[str, Any]
    digest: str


@dataclasses.dataclass
class ServerPin:
    """Everything pinned for one server."""

    declarations: list[dict[str, str]]  # {"file", "client", "name"}, sorted; no line numbers
    launch: dict[str, Any]  # LaunchTemplate.spec(): names of env vars/headers, never values
    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    instructions: str | None
    tools: dict[str, Pin] = dataclasses.field(default_factory=dict)
    prompts: dict[str, Pin] = dataclasses.field(default_factory=dict)
    resources: dict[str, Pin] = dataclasses.field(default_factory=dict)
    resource_templates: dict[str, Pin] = dataclasses.field(default_factory=dict)
    digest: str = ""  # surface digest; see surface_digest()

    def pins(self, kind: str) -> dict[str, Pin]:
        """The pins of a kind named as on the wire: tools, prompts, resources, resourceTemplates."""
        return getattr(self, KIND_BY_KEY[kind].attribute)

    def surface_digest(self) -> str:
        """The surface digest these instructions and definitions call for."""
        return surface_digest(self.instructions, {kind: self.pins(kind) for kind in KIND_KEYS})


@dataclasses.dataclass
class Lockfile:
    version: int = LOCKFILE_VERSION
    servers: dict[str, ServerPin] = dataclasses.field(default_factory=dict)


def surface_digest(instructions: str | None, pins: Mapping[str, Mapping[str, Pin]]) -> str:
    """Digest of what the model sees: instructions plus each definition's digest, per kind."""
    return digest(
        {
            "instructions": instructions,
            **{kind: {key: pin.digest for key, pin in pins.get(kind, {}).items()} for kind in KIND_KEYS},
        }
    )


# --- pinning -------------------------------------------------------------------------------


def pin_server(
    declarations: Iterable[Declaration | Mapping[str, str]],
    launch_spec: Mapping[str, Any],
    snapshot: Snapshot,
) -> tuple[ServerPin, list[str]]:
    """Pin what a booted server said. Returns the pin and problems to report as findings.

    `declarations` are Declarations or {"file", "client", "name"} mappings (line numbers are
    not recorded: they churn). `launch_spec` is `LaunchTemplate.spec()`.

    A definition that is not an object, lacks a string key field, repeats an earlier key
    (the first is kept) or cannot be canonicalised is left out, and a problem says so.
    Raises CanonicalisationError when the handshake itself (server info, capabilities,
    instructions) cannot be canonicalised: there is nothing sound to pin then.
    """
    problems: list[str] = []
    pins = {kind: _pin_kind(kind, snapshot.definitions.get(kind, []), problems) for kind in KIND_KEYS}
    server = ServerPin(
        declarations=_declaration_records(declarations),
        launch=normalise(dict(launch_spec)),
        protocol_version=normalise(snapshot.protocol_version),
        server_info=normalise(snapshot.server_info),
        capabilities=normalise(snapshot.capabilities),
        instructions=normalise(snapshot.instructions),
        **{KIND_BY_KEY[kind].attribute: kind_pins for kind, kind_pins in pins.items()},
    )
    server.digest = server.surface_digest()
    return server, problems


def _pin_kind(kind: str, definitions: Iterable[Any], problems: list[str]) -> dict[str, Pin]:
    key_field = KIND_BY_KEY[kind].name_field
    pins: dict[str, Pin] = {}
    first_index: dict[str, int] = {}
    for index, definition in enumerate(definitions):
        where = f"{kind}[{index}]"
        key = definition.get(key_field) if isinstance(definition, Mapping) else None
        if not isinstance(definition, Mapping):
            problems.append(f"{where} is not a JSON object; not pinned")
        elif not isinstance(key, str):
            problems.append(f'{where} has no string "{key_field}"; not pinned')
        elif key in first_index:
            problems.append(
                f"{where} repeats {key_field} {render_string(key)} of {kind}[{first_index[key]}];"
                " only the first is pinned"
            )
        else:
            first_index[key] = index
            try:
                value, value_digest = normalised_digest(definition)
            except CanonicalisationError as e:
                problems.append(f"{where} ({render_string(key)}) cannot be pinned: {e} at {e.pointer or '/'}")
                continue
            pins[key] = Pin(value, value_digest)
    return pins


def rebuild(server: ServerPin, **changes: Any) -> ServerPin:
    """A copy of `server` with fields replaced (e.g. `tools=`) and its surface digest recomputed."""
    changes.pop("digest", None)
    rebuilt = dataclasses.replace(server, **changes)
    rebuilt.digest = rebuilt.surface_digest()
    return rebuilt


def _declaration_records(declarations: Iterable[Declaration | Mapping[str, str]]) -> list[dict[str, str]]:
    # Sorted and deduplicated: discovery order is not stable across file systems.
    unique = {_declaration_record(d) for d in declarations}
    return [{"file": f, "client": c, "name": n} for f, c, n in sorted(unique)]


def _declaration_record(d: Declaration | Mapping[str, str]) -> tuple[str, str, str]:
    if isinstance(d, Mapping):
        return d["file"], d["client"], d["name"]
    return d.location.file, d.client, d.name


# --- text ----------------------------------------------------------------------------------


def render(lock: Lockfile) -> str:
    """The exact text of the lockfile (SPEC.md, "Text"): same lock, same bytes."""
    return render_value(to_document(lock), max_depth=MAX_DEPTH + _DEFINITION_NESTING) + "\n"


def to_document(lock: Lockfile) -> dict[str, Any]:
    """The lock as a JSON document (camelCase field names, as in the file)."""
    return {
        "lockfileVersion": lock.version,
        "servers": {name: _server_document(server) for name, server in lock.servers.items()},
    }


def _server_document(server: ServerPin) -> dict[str, Any]:
    return {
        "declarations": server.declarations,
        "launch": server.launch,
        "protocolVersion": server.protocol_version,
        "serverInfo": server.server_info,
        "capabilities": server.capabilities,
        "instructions": server.instructions,
        **{
            kind: {key: {"definition": pin.definition, "digest": pin.digest} for key, pin in server.pins(kind).items()}
            for kind in KIND_KEYS
        },
        "digest": server.digest,
    }


def line_index(text: str) -> dict[str, int]:
    """Map the JSON pointer of every member (and array element) to the line it starts on.

    E.g. "/servers/time/tools/get_current_time" -> the line of `"get_current_time": {`.
    The root is "". Never raises: for text that is not JSON, it holds the members before
    the first error (reporters anchor on what they can).
    """
    index: dict[str, int] = {}
    with contextlib.suppress(ValueError):
        for pointer, line in iter_members(text):
            index.setdefault(pointer, line)
    return index


# --- reading -------------------------------------------------------------------------------


def read(path: str | os.PathLike[str]) -> Lockfile:
    """Read and verify a lockfile; raise LockfileError for anything it would be unsafe to trust."""
    source = os.fspath(path)
    try:
        data = Path(source).read_bytes()
    except FileNotFoundError:
        raise LockfileError(source, "not found") from None
    except OSError as e:
        raise LockfileError(source, f"cannot be read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LockfileError(source, f"not UTF-8 (byte offset {e.start})") from None
    return parse(text, source)


def parse(text: str, source: str = "mcp-lock.json") -> Lockfile:
    """Verify and load lockfile text (e.g. from another git revision); `source` names it in errors."""
    _refuse_raw_hidden(text, source)
    document = _load_json(text, source)
    if not isinstance(document, dict):
        raise LockfileError(source, "not a lockfile: the top level is not a JSON object")
    _check_version(document, source)
    try:
        document, plain = normalise_plain(document, max_depth=MAX_DEPTH + _DEFINITION_NESTING)
    except CanonicalisationError as e:
        _fail_at(text, source, e.pointer, f"{e} at {_shown(e.pointer)}")
    _validate_schema(document, text, source)
    return _verified(_from_document(document), text, source, plain)


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
                where = _shown(parent) if parent else "the top level"
                raise LockfileError(source, f"duplicate key {render_string(key)} in {where}", line)
            seen.add(pointer)
    raise LockfileError(source, "duplicate key in an object")


def _refuse_raw_hidden(text: str, source: str) -> None:
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


def _check_version(document: dict[str, Any], source: str) -> None:
    version = document.get("lockfileVersion")
    if isinstance(version, int) and not isinstance(version, bool) and version > LOCKFILE_VERSION:
        shown = str(version) if version < 10**9 else "unknown"
        raise LockfileError(source, f"written by a newer mcp-lock (format {shown}); upgrade mcp-lock")


@functools.cache
def _validator() -> Any:
    # Lazy: only reading/writing a lock pays for these.
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("scanner.lock").joinpath(SCHEMA_RESOURCE).read_text("utf-8"))
    return jsonschema.Draft202012Validator(schema)


# What $defs/pin of the schema requires, checked by hand below; anything else takes the schema's own path.
_PIN_SCHEMA = {
    "type": "object",
    "required": ["definition", "digest"],
    "additionalProperties": False,
    "properties": {"definition": {"type": "object"}, "digest": {"$ref": "#/$defs/digest"}},
}


@functools.cache
def _digest_pattern() -> Any:
    """The schema's digest pattern when its pins are exactly `_PIN_SCHEMA`, else None."""
    import re

    schema = _validator().schema
    defs = schema.get("$defs", {})

    def bare(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: bare(v) for k, v in value.items() if k != "description"}
        return value

    pins = {"type": "object", "additionalProperties": {"$ref": "#/$defs/pin"}}
    digest_schema = bare(defs.get("digest"))
    if bare(defs.get("pin")) != _PIN_SCHEMA or bare(defs.get("pins")) != pins or not isinstance(digest_schema, dict):
        return None
    if set(digest_schema) != {"type", "pattern"} or digest_schema["type"] != "string":
        return None
    return re.compile(digest_schema["pattern"])


def _without_pins(document: dict[str, Any]) -> dict[str, Any]:
    """The document with every pins map emptied, when every pin in it is valid; else the document.

    Validating ten thousand pins through `jsonschema` costs about a second, for a rule this short; what
    is left (servers, launches, declarations) goes through the schema as before, so errors are the same.
    """
    pattern = _digest_pattern()
    servers = document.get("servers")
    if pattern is None or not isinstance(servers, dict):
        return document
    skeleton = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            return document
        emptied = dict(entry)
        for kind in KIND_KEYS:
            pins = entry.get(kind)
            if not isinstance(pins, dict):
                continue
            for pin in pins.values():
                if not (
                    type(pin) is dict
                    and pin.keys() == {"definition", "digest"}
                    and type(pin["definition"]) is dict
                    and type(pin["digest"]) is str
                    and pattern.search(pin["digest"])
                ):
                    return document
            emptied[kind] = {}
        skeleton[name] = emptied
    return {**document, "servers": skeleton}


def _validate_schema(document: dict[str, Any], text: str, source: str) -> None:
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(_without_pins(document)))
    if error is None:
        return
    pointer = join(error.absolute_path)
    message = error.message if len(error.message) <= 200 else error.message[:199] + "…"
    where = _shown(pointer) or "/"
    _fail_at(text, source, pointer, f"does not match the lockfile schema at {where}: {message}")


def _from_document(document: dict[str, Any]) -> Lockfile:
    servers = {}
    for name, entry in document["servers"].items():
        servers[name] = ServerPin(
            declarations=entry["declarations"],
            launch=entry["launch"],
            protocol_version=entry["protocolVersion"],
            server_info=entry["serverInfo"],
            capabilities=entry["capabilities"],
            instructions=entry["instructions"],
            digest=entry["digest"],
            **{
                kind.attribute: {key: Pin(pin["definition"], pin["digest"]) for key, pin in entry[kind.key].items()}
                for kind in KINDS
            },
        )
    return Lockfile(document["lockfileVersion"], servers)


def _verified(lock: Lockfile, text: str, source: str, plain: bool = False) -> Lockfile:
    """`lock`, once every digest in it is recomputed and matches. `plain`: the whole document was normalised
    and holds no float and no key above U+FFFF, so each definition's digest is `plain_digest`'s (the schema
    puts every definition where the document's depth limit is its own)."""
    for name, server in lock.servers.items():
        for kind in KIND_KEYS:
            for key, pin in server.pins(kind).items():
                _verify_pin(name, kind, key, pin, text, source, plain)
        if server.surface_digest() != server.digest:
            _fail_at(
                text,
                source,
                join(["servers", name, "digest"]),
                f"server {render_string(name)}: surface digest does not match its instructions"
                f" and definitions: {_REPIN}",
            )
    return lock


def _verify_pin(server: str, kind: str, key: str, pin: Pin, text: str, source: str, plain: bool) -> None:
    pointer = join(["servers", server, kind, key])
    what = f"{KIND_BY_KEY[kind].noun} {render_string(key)} of server {render_string(server)}"
    key_field = KIND_BY_KEY[kind].name_field
    if pin.definition.get(key_field) != key:
        _fail_at(text, source, pointer, f'{what}: the definition\'s "{key_field}" is not the key: {_REPIN}')
    try:
        actual = plain_digest(pin.definition) if plain else digest(pin.definition)
    except CanonicalisationError as e:
        _fail_at(text, source, pointer, f"{what}: {e}: {_REPIN}")
    if actual != pin.digest:
        _fail_at(text, source, pointer, f"{what}: recorded digest does not match the definition: {_REPIN}")


def _fail_at(text: str, source: str, pointer: str, reason: str) -> NoReturn:
    raise LockfileError(source, reason, _line_of(text, pointer))


def _line_of(text: str, pointer: str) -> int | None:
    # Only on the error path, so scanning the text again costs nothing that matters.
    lines = line_index(text)
    while pointer not in lines and pointer:
        pointer = pointer.rpartition("/")[0]
    return lines.get(pointer)


def _shown(text: str) -> str:
    """`text` with hidden characters escaped, for a one-line message."""
    return render_string(text)[1:-1]


# --- writing -------------------------------------------------------------------------------


def write(path: str | os.PathLike[str], lock: Lockfile) -> None:
    """Write the lock atomically: readers see the old file or the new one, never a mix.

    Refuses (LockfileError, nothing written) a lock that its own reader would refuse, or whose text would
    not read back as the lock. Keeps an existing file's permission bits; a new file gets the usual umask-based
    mode.
    """
    source = os.fspath(path)
    document = to_document(lock)
    rendered = render_normal(document, max_depth=MAX_DEPTH + _DEFINITION_NESTING)
    try:
        if rendered is None:  # not already normal (e.g. a hand-built lock): the full reader
            text = render(lock)
            parse(text, source)
        else:
            text = rendered[0] + "\n"
            _reads_back(text, document, rendered[1], source)
    except LockfileError as e:
        raise LockfileError(source, f"not written: {e.reason}") from None
    # Through a symlink to its target, so a linked lock stays linked.
    target = os.path.realpath(source)
    directory, name = os.path.split(target)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    _replace_atomically(directory, name, text.encode("utf-8"), mode)


def _reads_back(text: str, document: dict[str, Any], plain: bool, source: str) -> None:
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
    _refuse_raw_hidden(text, source)
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
    _check_version(loaded, source)
    _validate_schema(loaded, text, source)
    _verified(_from_document(loaded), text, source, plain and not floats)


def _read_int(literal: str) -> int | float:
    number = int(literal)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else float(number)


def _replace_atomically(directory: str, name: str, data: bytes, mode: int | None) -> None:
    temp = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o666)  # umask applies, as for any new file
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, os.path.join(directory, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    # Makes the rename durable on POSIX; directories cannot be opened this way on Windows.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
