"""Canonical JSON and digests: the spec's vectors, the edge cases, and robustness."""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lock_helpers import SPEC

from scanner.lock.canonical import (
    MAX_DEPTH,
    CanonicalisationError,
    canonical_bytes,
    digest,
    normalise,
)

# The canonical-form vectors; text-layout.json and lockfiles.json are run by test_spec_vectors.
VECTOR_FILES = sorted(
    p for p in (SPEC / "vectors").glob("*.json") if p.name not in {"text-layout.json", "lockfiles.json"}
)
VECTORS = [
    pytest.param(vector, id=f"{path.stem}:{vector['name']}")
    for path in VECTOR_FILES
    for vector in json.loads(path.read_text("utf-8"))["vectors"]
]

ERROR_WORDS = {
    "lone-surrogate": "lone surrogate",
    "not-finite": "not a JSON number|would be Infinity",
    "too-deep": "nested deeper",
}


def test_vector_files_present() -> None:
    names = {p.name for p in VECTOR_FILES}
    assert names == {
        "duplicate-keys.json", "numbers.json", "real-tools.json", "rfc8785.json", "strings.json", "structure.json"
    }
    assert len(VECTORS) >= 60


@pytest.mark.parametrize("vector", VECTORS)
def test_vector(vector: dict[str, str]) -> None:
    if vector.get("error") == "duplicate-key":  # refused by the JSON reader: test_spec_vectors
        assert len(json.loads(vector["input"], object_pairs_hook=lambda pairs: pairs)) > 0
        return
    # A JSON reader: Python's json, with Infinity from 1e400 left for the canonicaliser to refuse.
    value = json.loads(vector["input"])
    if "error" in vector:
        with pytest.raises(CanonicalisationError, match=ERROR_WORDS[vector["error"]]):
            canonical_bytes(value)
        return
    expected = vector["canonical"].encode("utf-8")
    assert canonical_bytes(value) == expected
    # The recorded digest is plain SHA-256 of the expected bytes, independent of our code.
    assert vector["digest"] == "sha256:" + hashlib.sha256(expected).hexdigest()
    assert digest(value) == vector["digest"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "ieee754" in v.values[0]])
def test_appendix_b_inputs_are_the_rfc_doubles(vector: dict[str, str]) -> None:
    bits = struct.unpack(">d", bytes.fromhex(vector["ieee754"]))[0]
    parsed = float(json.loads(vector["input"]))
    assert struct.pack(">d", parsed) == struct.pack(">d", bits)


def test_ascii_vectors_agree_with_sorted_json_dumps() -> None:
    # For ASCII keys and no floats, JCS coincides with sorted compact json.dumps: a second
    # implementation to check the real-tool vectors against.
    for vector in json.loads((SPEC / "vectors" / "real-tools.json").read_text("utf-8"))["vectors"]:
        value = json.loads(vector["input"])
        reference = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert reference == vector["canonical"]


def test_hand_checked_examples() -> None:
    assert canonical_bytes({"b": [1.0, -0.0], "a": "é"}) == b'{"a":"\xc3\xa9","b":[1,0]}'
    assert canonical_bytes(2**53 + 1) == b"9007199254740992"
    assert canonical_bytes(2**64 - 1) == b"18446744073709552000"
    assert canonical_bytes(1e21) == b"1e+21"
    assert canonical_bytes({}) == b"{}"
    assert digest({}) == "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"


def test_normalise_reads_big_integers_as_doubles() -> None:
    value = normalise({"max": 2**64 - 1, "ok": 2**53 - 1, "t": (1, 2)})
    assert value == {"max": 18446744073709551616.0, "ok": 9007199254740991, "t": [1, 2]}
    assert isinstance(value["max"], float)
    assert isinstance(value["ok"], int)


@pytest.mark.parametrize(
    ("value", "reason", "pointer"),
    [
        (float("nan"), "not a JSON number", ""),
        ({"a": [float("inf")]}, "not a JSON number", "/a/0"),
        ([10**400], "too large for a double", "/0"),
        ({"d/e~f": "x\ud800"}, "lone surrogate U+D800", "/d~1e~0f"),
        ({"\udfff": 1}, "lone surrogate U+DFFF", ""),
        ({1: "a"}, "object key 1 is not a string", ""),
        ({"s": {1, 2}}, "set is not a JSON value", "/s"),
        (b"bytes", "bytes is not a JSON value", ""),
    ],
)
def test_rejections_are_clean(value: object, reason: str, pointer: str) -> None:
    with pytest.raises(CanonicalisationError, match=re.escape(reason)) as caught:
        canonical_bytes(value)
    assert caught.value.pointer == pointer


def nested(depth: int) -> object:
    value: object = "leaf"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def test_depth_limit() -> None:
    assert canonical_bytes(nested(MAX_DEPTH)).count(b"[") == MAX_DEPTH // 2
    with pytest.raises(CanonicalisationError, match="nested deeper than 256"):
        canonical_bytes(nested(MAX_DEPTH + 1))
    # Far deeper than Python's recursion limit: still a clean error, not RecursionError.
    with pytest.raises(CanonicalisationError):
        canonical_bytes(nested(100_000))


def test_self_referential_value_is_refused() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(CanonicalisationError, match="nested deeper"):
        canonical_bytes(loop)


def test_str_and_int_subclasses_use_their_values() -> None:
    import enum

    class Name(enum.StrEnum):
        TIME = "time"

    class Level(enum.IntEnum):
        TWO = 2

    assert canonical_bytes({Name.TIME: Level.TWO}) == b'{"time":2}'


json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
json_like = st.recursive(
    json_scalars | st.binary(max_size=3) | st.sets(st.integers(), max_size=2),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children)
        | st.dictionaries(st.text(max_size=4) | st.integers(), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(json_like)
def test_canonicaliser_raises_only_its_own_error(value: object) -> None:
    try:
        result = canonical_bytes(value)
    except CanonicalisationError:
        return
    # Whatever it accepts is valid UTF-8 JSON that reads back to the same canonical bytes.
    assert canonical_bytes(json.loads(result)) == result


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), st.integers(-(2**53) + 1, 2**53 - 1) | st.text(), max_size=6))
def test_key_order_is_utf16(value: dict[str, object]) -> None:
    try:
        text = canonical_bytes(value).decode("utf-8")
    except CanonicalisationError:
        return
    keys = list(json.loads(text, object_pairs_hook=lambda pairs: [k for k, _ in pairs]))
    assert keys == sorted(value, key=lambda k: k.encode("utf-16-be"))


def test_module_has_no_heavy_imports() -> None:
    import subprocess
    import sys

    modules = "scanner.lock.lockfile, scanner.lock.pin, scanner.lock.document, scanner.lock.reader, scanner.lock.writer"
    code = f"import sys, {modules}; print('jsonschema' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- normalise's inline fast paths, plain digests --------------------------------------------------------------

from scanner.lock.canonical import normalise_plain, normalised_digest, plain_digest  # noqa: E402


def reference_normalise(value: object, depth: int = 0) -> object:
    """What normalise returns, written plainly (errors aside): the value as a JSON reader holding doubles sees it."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value) if abs(value) <= 2**53 - 1 else float(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, dict):
        return {str.__str__(k): reference_normalise(v, depth + 1) for k, v in value.items()}
    return [reference_normalise(v, depth + 1) for v in value]


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


@settings(max_examples=500, deadline=None)
@given(json_like)
def test_normalise_is_the_plain_reading(value: object) -> None:
    try:
        normal, plain = normalise_plain(value)
    except CanonicalisationError:
        with pytest.raises(CanonicalisationError):
            normalise(value)
        return
    expected = reference_normalise(value)
    assert normal == expected and _types(normal) == _types(expected)
    assert list(json.dumps(normal)) == list(json.dumps(expected))  # same key order too
    assert normalised_digest(value) == (normal, digest(value))
    assert plain == (not any(isinstance(v, float) for v in _leaves(normal)) and not _astral_key(normal))
    if plain:
        assert plain_digest(normal) == digest(value)


def _leaves(value: object):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _astral_key(value: object) -> bool:
    if isinstance(value, dict):
        return any(max(k, default="") > "\uffff" or _astral_key(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_astral_key(v) for v in value)
    return False


def test_plain_digest_matches_the_vectors_without_floats() -> None:
    for vector in VECTORS:
        vector = vector.values[0]
        if "error" in vector:
            continue
        value, plain = normalise_plain(json.loads(vector["input"]))
        if plain:
            assert plain_digest(value) == vector["digest"]
