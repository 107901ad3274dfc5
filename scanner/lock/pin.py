"""Pinning: what a booted server said (a Snapshot) becomes a ServerPin, each definition with its digest."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from scanner.lock.canonical import DIGEST_PREFIX, PLAIN_TEXT, CanonicalisationError, normalise, normalised_digest
from scanner.lock.lockfile import Pin, ServerPin
from scanner.lock.render import render_string
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS
from scanner.snapshot import Snapshot
from scanner.sources.declarations import Declaration


def pin_server(
    declarations: Iterable[Declaration | Mapping[str, str]],
    launch_spec: Mapping[str, Any],
    snapshot: Snapshot,
    pinned: ServerPin | None = None,
) -> tuple[ServerPin, list[str]]:
    """Pin what a booted server said. Returns the pin and problems to report as findings.

    `declarations` are Declarations or {"file", "client", "name"} mappings (line numbers are
    not recorded: they churn). `launch_spec` is `LaunchTemplate.spec()`.

    A definition that is not an object, lacks a string key field, repeats an earlier key
    (the first is kept) or cannot be canonicalised is left out, and a problem says so.
    Raises CanonicalisationError when the handshake itself (server info, capabilities,
    instructions) cannot be canonicalised: there is nothing sound to pin then.

    `pinned`: the verified pin of this server (a check): a definition that matches its pin is recognised
    without normalising it (`_as_pinned`), with the same result.
    """
    problems: list[str] = []
    pins = {
        kind: _pin_kind(kind, snapshot.definitions.get(kind, []), problems, pinned.pins(kind) if pinned else {})
        for kind in KIND_KEYS
    }
    server = ServerPin(
        declarations=_declaration_records(declarations),
        launch=normalise(dict(launch_spec)),
        protocol_version=normalise(snapshot.protocol_version),
        server_info=normalise(snapshot.server_info),
        capabilities=normalise(snapshot.capabilities),
        instructions=normalise(snapshot.instructions),
        artifact=normalise(snapshot.artifact) if snapshot.artifact is not None else None,
        tree=normalise(snapshot.tree) if snapshot.tree is not None else None,
        **{KIND_BY_KEY[kind].attribute: kind_pins for kind, kind_pins in pins.items()},
        prompt_bodies=_pin_bodies(snapshot.prompt_bodies, pins["prompts"], problems),
    )
    server.digest = server.surface_digest()
    return server, problems


def _pin_kind(
    kind: str, definitions: Iterable[Any], problems: list[str], known: Mapping[str, Pin]
) -> dict[str, Pin]:
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
            same = _as_pinned(definition, known.get(key))
            if same is not None:
                pins[key] = same
                continue
            try:
                value, value_digest = normalised_digest(definition)
            except CanonicalisationError as e:
                problems.append(f"{where} ({render_string(key)}) cannot be pinned: {e} at {e.pointer or '/'}")
                continue
            pins[key] = Pin(value, value_digest)
    return pins


def _as_pinned(definition: Any, pin: Pin | None) -> Pin | None:
    """`pin` when `definition` has the same canonical bytes as the definition it records, else None.

    `pin` comes from a verified lock: its definition is normalised and its digest that of its canonical bytes.
    Sound without normalising `definition` (most of pinning a large check), because both tests must pass:
    - equal as Python values: same keys (a non-string key never equals a string), same shape, equal strings;
      numbers may still differ in kind (True == 1 == 1.0), which
    - the digest of its compact sorted `json.dumps` text catches: that text spells true, 1 and 1.0 apart, and
      equal digests mean it is exactly the pinned canonical text, and that text read as JSON holding doubles
      is `definition` normalised (a number's text reads back as the same double; an integer past 2**53 spelled
      as the canonical text spells it rounds to the double pinned; a lone surrogate cannot be UTF-8-encoded;
      depth is the pinned depth).
    Anything `json.dumps` or the comparison refuses (NaN, a Mapping that is no dict, a cycle) takes the
    normalising path, which reports it.
    """
    if pin is None:
        return None
    try:
        if definition != pin.definition:
            return None
        data = PLAIN_TEXT(definition).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return None
    return pin if DIGEST_PREFIX + hashlib.sha256(data).hexdigest() == pin.digest else None


def _pin_bodies(bodies: Mapping[str, Any], prompts: Mapping[str, Pin], problems: list[str]) -> dict[str, Pin]:
    """The `prompts/get` result of each pinned prompt, as received; one without a canonical form is reported."""
    pinned: dict[str, Pin] = {}
    for name, body in bodies.items():
        if name not in prompts or not isinstance(body, Mapping):
            continue
        try:
            value, value_digest = normalised_digest(body)
        except CanonicalisationError as e:
            problems.append(f"prompts/get of {render_string(name)} cannot be pinned: {e} at {e.pointer or '/'}")
            continue
        pinned[name] = Pin(value, value_digest)
    return pinned


def _declaration_records(declarations: Iterable[Declaration | Mapping[str, str]]) -> list[dict[str, str]]:
    # Sorted and deduplicated: discovery order is not stable across file systems.
    unique = {_declaration_record(d) for d in declarations}
    return [{"file": f, "client": c, "name": n} for f, c, n in sorted(unique)]


def _declaration_record(d: Declaration | Mapping[str, str]) -> tuple[str, str, str]:
    if isinstance(d, Mapping):
        return d["file"], d["client"], d["name"]
    return d.location.file, d.client, d.name
