"""Canonical JSON and digests: the one place where bytes that get hashed are produced.

Canonical form is RFC 8785 (JCS), produced by the `rfc8785` package, over the value as a
JSON reader holding IEEE-754 doubles sees it (`normalise`). The rules that RFC 8785 leaves
to the caller are fixed here (see lockfile-spec/SPEC.md, "Canonical form"):

* integers outside ±(2**53 - 1) become the nearest double (ties to even), as JavaScript's
  `JSON.parse` would read them; one whose nearest double is infinite is rejected;
* NaN and ±Infinity are rejected (JSON cannot carry them);
* strings (keys included) must be sequences of Unicode scalar values: a lone surrogate is
  rejected;
* nesting deeper than `MAX_DEPTH` arrays/objects is rejected.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import rfc8785

from scanner.model.pointer import escape

# Containers (arrays/objects) that may enclose a value, the outermost counting as 1. Deep
# enough for any real JSON Schema, shallow enough to stay far from Python's recursion limit.
MAX_DEPTH = 256

# The largest integer magnitude a double represents exactly, and so every reader agrees on.
MAX_SAFE_INTEGER = 2**53 - 1

DIGEST_PREFIX = "sha256:"


class CanonicalisationError(ValueError):
    """A value has no canonical JSON form (a clean, one-line reason).

    `pointer` is the JSON pointer (RFC 6901) of the offending part within the value given.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.pointer = ""

    def _inside(self, key: str | int) -> CanonicalisationError:
        self.pointer = "/" + escape(key) + self.pointer
        return self


def normalise(value: Any, max_depth: int = MAX_DEPTH) -> Any:
    """`value` as a JSON reader holding doubles sees it, checked to be canonicalisable.

    Returns plain dicts/lists/str/int/float/bool/None: big integers become floats, tuples
    become lists. Raises `CanonicalisationError` for anything without a canonical form.
    `max_depth` exists for documents that embed values allowed `MAX_DEPTH` of their own.
    """
    return _normalise(value, 0, max_depth)


def normalise_plain(value: Any, max_depth: int = MAX_DEPTH) -> tuple[Any, bool]:
    """`(normalise(value, max_depth), plain)`: plain when it holds no float and no key above U+FFFF."""
    plain = [True]
    return _normalise(value, 0, max_depth, plain), plain[0]


def plain_digest(value: Any) -> str:
    """`digest(value)` for a value that is already normalised and plain (see `normalise_plain`).

    The caller vouches for that (e.g. every part of a document `normalise_plain` returned); the canonical
    bytes are then those of `json.dumps` (see `_canonical`), without walking the value in Python.
    """
    return DIGEST_PREFIX + hashlib.sha256(_PLAIN_JSON.encode(value).encode("utf-8")).hexdigest()


def canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of `value` (after `normalise`)."""
    return _canonical(value)[1]


def digest(value: Any) -> str:
    """`sha256:` + lowercase hex SHA-256 of the canonical bytes of `value`."""
    return DIGEST_PREFIX + hashlib.sha256(canonical_bytes(value)).hexdigest()


def normalised_digest(value: Any) -> tuple[Any, str]:
    """`(normalise(value), digest(value))` in one pass over `value`."""
    normalised, data = _canonical(value)
    return normalised, DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def _canonical(value: Any) -> tuple[Any, bytes]:
    # `json.dumps` (C) writes exactly the RFC 8785 form of a normalised value that holds no float
    # (number formats differ) and no key with a character above U+FFFF (it sorts keys by code point,
    # RFC 8785 by UTF-16 code unit): same separators, same escapes (", \, \b \f \n \r \t, other
    # controls as lowercase \u00xx), everything else as UTF-8. Otherwise the `rfc8785` package does it.
    plain = [True]
    normalised = _normalise(value, 0, MAX_DEPTH, plain)
    if plain[0]:
        return normalised, _PLAIN_JSON.encode(normalised).encode("utf-8")
    try:
        return normalised, rfc8785.dumps(normalised)
    except rfc8785.CanonicalizationError as e:  # pragma: no cover - _normalise rejects first
        raise CanonicalisationError(str(e)) from e


# Sorted compact JSON, UTF-8 as is. No cycle check: a normalised value is a tree (normalise copies, and refuses
# anything nested deeper than it allows).
_PLAIN_JSON = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False, check_circular=False
)
# That text, for a value that may not be normalised (scanner.lock.pin._as_pinned compares it with a pinned one).
PLAIN_TEXT = _PLAIN_JSON.encode


def _normalise(value: Any, depth: int, max_depth: int, plain: list[bool] | None = None) -> Any:
    # Exact types first (what a JSON reader produces), by frequency; subclasses take the slow path below.
    kind = type(value)
    if kind is str:
        return value if value.isascii() else _scalar_string(value)
    if kind is dict or kind is list:
        if depth >= max_depth:
            raise CanonicalisationError(f"nested deeper than {max_depth} arrays/objects")
        if kind is dict:
            return _normalise_object(value, depth, max_depth, plain)
        return _normalise_array(value, depth, max_depth, plain)
    if kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return value
    if kind is bool or value is None:
        return value
    if plain is not None and isinstance(value, int | float) and not isinstance(value, bool):
        plain[0] = False
    # bool before int: bool is an int subclass.
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _number_from_int(int(value))
    if isinstance(value, float):
        return _finite(float(value))
    if isinstance(value, str):
        return _scalar_string(str.__str__(value))
    if isinstance(value, Mapping | list | tuple):
        if depth >= max_depth:
            raise CanonicalisationError(f"nested deeper than {max_depth} arrays/objects")
        if isinstance(value, Mapping):
            return _normalise_object(value, depth, max_depth, plain)
        return _normalise_array(value, depth, max_depth, plain)
    raise CanonicalisationError(f"{type(value).__name__} is not a JSON value")


def _normalise_object(
    value: Mapping[Any, Any], depth: int, max_depth: int, plain: list[bool] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        if type(k) is str and k.isascii():
            key = k
        else:
            key = _key(k)
            if plain is not None and max(key, default="") > "\uffff":
                plain[0] = False
        # The commonest members (ASCII strings, safe integers, booleans, null) without a call: as `_normalise`.
        kind = type(v)
        if (kind is str and v.isascii()) or kind is bool or v is None or (
            kind is int and -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER
        ):
            out[key] = v
            continue
        try:
            out[key] = _normalise(v, depth + 1, max_depth, plain)
        except CanonicalisationError as e:
            raise e._inside(key) from None
    return out


def _normalise_array(
    value: list[Any] | tuple[Any, ...], depth: int, max_depth: int, plain: list[bool] | None = None
) -> list[Any]:
    out: list[Any] = []
    for i, v in enumerate(value):
        if type(v) is str and v.isascii():  # as `_normalise`, without the call
            out.append(v)
            continue
        try:
            out.append(_normalise(v, depth + 1, max_depth, plain))
        except CanonicalisationError as e:
            raise e._inside(i) from None
    return out


def _number_from_int(n: int) -> int | float:
    if -MAX_SAFE_INTEGER <= n <= MAX_SAFE_INTEGER:
        return n
    try:
        # float(int) rounds to nearest, ties to even: what JSON.parse does with the digits.
        return float(n)
    except OverflowError:
        raise CanonicalisationError("integer too large for a double (would be Infinity)") from None


def _finite(f: float) -> float:
    if math.isnan(f) or math.isinf(f):
        raise CanonicalisationError(f"{f} is not a JSON number")
    return f


def _scalar_string(s: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise CanonicalisationError(
            f"string contains a lone surrogate U+{ord(s[e.start]):04X} (not valid Unicode)"
        ) from None
    return s


def _key(k: Any) -> str:
    if not isinstance(k, str):
        raise CanonicalisationError(f"object key {k!r} is not a string")
    return _scalar_string(str.__str__(k))


def tree_digest(manager: str, packages: list[dict[str, Any]], format: int | None = None) -> str:
    """The digest of a launch's dependency tree (lockfile-spec/SPEC.md 1.2.2): over the manager, the record's
    format (from format 4) and every package record, in the order recorded."""
    return digest({"manager": manager, "packages": packages, **({"format": format} if format is not None else {})})
