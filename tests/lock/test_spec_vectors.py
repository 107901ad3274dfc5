"""Every lockfile, text-layout and duplicate-key vector of lockfile-spec/vectors through mcp-lock's reader and
renderer, and the spec's schema copy against the packaged one."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from lock_helpers import ROOT, SPEC

from scanner.lock import reader
from scanner.lock.lockfile import LockfileError
from scanner.lock.render import render_value
from scanner.run.redact import MASK, Redactor, encodings

VECTORS = SPEC / "vectors"


def _vectors(name: str) -> list[Any]:
    return [
        pytest.param(vector, id=vector["name"])
        for vector in json.loads((VECTORS / name).read_text("utf-8"))["vectors"]
    ]


# What the reader's message says for each refusal reason the vectors name.
REASON_WORDS = {
    "duplicate-key": "duplicate key",
    "declarations": "declarations are not sorted",
    "digest": "digest does not match",
    "newer-version": "written by a newer mcp-lock",
    "schema": "does not match the lockfile schema",
    "raw-hidden": r"raw U\+202E",
    "byte-order-mark": "byte order mark",
    "no-canonical-form": "lone surrogate",
    "too-deep": "nested deeper",
    "invalid-json": "invalid JSON",
    "non-canonical-text": "canonical form",
}
def _lockfile_vectors() -> list[Any]:
    return _vectors("lockfiles.json")


def test_every_refusal_reason_is_known_and_both_outcomes_are_covered() -> None:
    vectors = json.loads((VECTORS / "lockfiles.json").read_text("utf-8"))["vectors"]
    assert {v["refuse"] for v in vectors if "refuse" in v} == set(REASON_WORDS)
    assert sum("accept" in v for v in vectors) >= 2
    assert all(("accept" in v) != ("refuse" in v) for v in vectors)


@pytest.mark.parametrize("vector", _lockfile_vectors())
def test_lockfile_vector_through_the_reader(vector: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "mcp-lock.json"
    path.write_bytes(vector["text"].encode("utf-8"))
    if "accept" in vector:
        lock = reader.read(path)
        assert lock.servers
        return
    with pytest.raises(LockfileError, match=REASON_WORDS[vector["refuse"]]):
        reader.read(path)


@pytest.mark.parametrize("vector", _vectors("text-layout.json"))
def test_text_layout_vector(vector: dict[str, str]) -> None:
    assert render_value(json.loads(vector["input"])) + "\n" == vector["text"]


@pytest.mark.parametrize("vector", _vectors("duplicate-keys.json"))
def test_duplicate_key_vector_through_the_reader(vector: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "mcp-lock.json"
    path.write_text(vector["input"], encoding="utf-8")
    if "error" in vector:
        with pytest.raises(LockfileError, match="duplicate key"):
            reader.read(path)
    else:  # distinct keys: the reader gets past JSON and refuses it only as not a lockfile
        with pytest.raises(LockfileError, match=r"schema|not a lockfile"):
            reader.read(path)


def test_the_spec_schema_is_a_plain_copy_of_the_packaged_one() -> None:
    spec_copy = SPEC / "mcp-lock.schema.json"
    assert not spec_copy.is_symlink()
    assert spec_copy.read_bytes() == (ROOT / "scanner" / "lock" / "mcp-lock.schema.json").read_bytes()


def _spec_forms(secret: str) -> set[str]:
    """The masked forms of `secret` as SPEC.md section 1.5 lists them, computed here from the text."""
    raw = secret.encode("utf-8")
    forms = {secret, secret[::-1], raw.hex(), raw.hex().upper()}
    forms |= {quote(secret, safe=""), quote(secret, safe="/"), quote_plus(secret)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms |= {encode(raw).decode(), encode(raw).decode().rstrip("=")}
        for k in range(3):
            text = encode(b"\0" * k + raw).decode().rstrip("=")
            forms.add(text[math.ceil(8 * k / 6) : math.floor(8 * (k + len(raw)) / 6)])
    return {form for form in forms if len(form) >= 8}


@pytest.mark.parametrize("secret", ["ghp_T0ken/with space+é", "abcdefgh", "x" * 40])
def test_masked_forms_are_the_ones_the_spec_lists(secret: str) -> None:
    assert {f for f in encodings(secret) if len(f) >= 8} == _spec_forms(secret)
    masked = Redactor([secret]).value({secret: [f"say {base64.b64encode(b'user:' + secret.encode()).decode()}"]})
    assert secret not in json.dumps(masked, ensure_ascii=False)
    assert MASK == "***"
