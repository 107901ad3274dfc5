"""Properties of the parsers of hostile answers over arbitrary input: the bounded JSON parse, OSV's querybatch
shape check and advisory finding, an npm packument and a simple-API page either give a result or their own error,
never another exception."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.artifacts.advisories import advisory_finding
from scanner.artifacts.inventory import Package, ServerPackage
from scanner.artifacts.osv_api import AdvisoryError, batch_results
from scanner.artifacts.packument import release_of
from scanner.artifacts.simple_index import release_of as index_release_of
from scanner.files.bounded_json import AnswerError, Bounds, parse

BOUNDS = Bounds(bytes=64 * 1024, depth=8, values=2_000)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
# Values shaped like OSV's, with any part of the wrong type.
IDS = st.sampled_from(["MAL-2026-1", "GHSA-aaaa-bbbb-cccc", "PYSEC-2026-1", "", "../x", "a" * 200]) | JSON
VULN = st.fixed_dictionaries({"id": IDS}, optional={"modified": JSON}) | JSON
RESULT = st.fixed_dictionaries({}, optional={"vulns": st.lists(VULN, max_size=3) | JSON,
                                             "next_page_token": st.text(max_size=10) | JSON}) | JSON
ADVISORY = st.fixed_dictionaries(
    {"id": IDS},
    optional={
        "summary": JSON, "details": JSON, "aliases": st.lists(IDS, max_size=3) | JSON,
        "database_specific": st.fixed_dictionaries({}, optional={"severity": st.sampled_from(["HIGH", "x"]) | JSON}),
        "affected": st.lists(st.fixed_dictionaries({}, optional={
            "package": st.fixed_dictionaries({"ecosystem": st.just("npm") | JSON, "name": st.just("pkg") | JSON}),
            "ranges": st.lists(
                st.fixed_dictionaries({}, optional={"events": st.lists(JSON) | JSON}), max_size=2
            ) | JSON,
        }), max_size=2) | JSON,
    },
)
ENTRY = ServerPackage(Package("npm", "pkg", "1.0.0"), "/servers/x/launch/artifact")


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@settings(max_examples=300)
@given(st.binary(max_size=200) | st.text(alphabet='[]{},:"\\ 0a', max_size=200).map(str.encode))
def test_parse_of_any_bytes_gives_a_value_or_an_answer_error(raw: bytes) -> None:
    try:
        parsed = parse(raw, BOUNDS)
    except AnswerError as error:
        assert str(error)  # a reason, in one line
        return
    assert json.dumps(parsed) == json.dumps(json.loads(raw))  # what it accepts, it reads as json does (NaN too)


@settings(max_examples=300)
@given(JSON)
def test_parse_agrees_with_json_within_the_bounds_and_refuses_past_the_depth(value: Any) -> None:
    raw = json.dumps(value).encode()
    if depth(value) <= BOUNDS.depth:
        assert parse(raw, BOUNDS) == json.loads(raw)
    wrapped = b"[" * BOUNDS.depth + raw + b"]" * BOUNDS.depth
    if depth(value) >= 1:
        try:
            parse(wrapped, BOUNDS)
        except AnswerError as error:
            assert "deeper" in str(error) or "values" in str(error)
        else:
            raise AssertionError("a value nested past the bound was parsed")


@settings(max_examples=300)
@given(st.fixed_dictionaries({"results": st.lists(RESULT, max_size=4)}) | JSON, st.integers(0, 4))
def test_a_batch_answer_of_any_shape_gives_ids_or_an_advisory_error(answer: Any, count: int) -> None:
    try:
        results = batch_results(answer, count)
    except AdvisoryError:
        return
    assert len(results) == count
    for ids, token in results:
        assert all(isinstance(i, str) and i and "/" not in i for i in ids)
        assert token is None or isinstance(token, str)


@settings(max_examples=300)
@given(ADVISORY, st.none() | st.just("details not fetched: x"))
def test_an_advisory_of_any_shape_gives_a_finding(advisory: dict[str, Any], unfetched: str | None) -> None:
    finding = advisory_finding("x", ENTRY, advisory, unfetched)
    assert finding.subject == str(advisory.get("id"))
    assert all(isinstance(line, str) and len(line) < 2_000 for line in finding.details)
    aliases = advisory.get("aliases") if isinstance(advisory.get("aliases"), list) else []
    if str(advisory["id"]).startswith("MAL-") or any(isinstance(a, str) and a.startswith("MAL-") for a in aliases):
        assert finding.effective_severity == "critical"


VERSION_DOC = st.fixed_dictionaries({}, optional={
    "hasInstallScript": JSON, "scripts": st.dictionaries(st.sampled_from(["install", "postinstall", "test"]), JSON)
    | JSON, "mcpName": JSON,
}) | JSON
PACKUMENT = st.fixed_dictionaries({}, optional={
    "versions": st.dictionaries(st.sampled_from(["1.0.0", "1.0.1"]), VERSION_DOC) | JSON,
    "time": st.dictionaries(st.sampled_from(["1.0.0", "1.0.1"]), st.sampled_from(["2026-11-30T12:00:00.000Z"]) | JSON)
    | JSON,
})
FILES = st.lists(st.fixed_dictionaries({}, optional={
    "filename": st.sampled_from(["x-1.0-py3-none-any.whl", "x-1.0.tar.gz", "y-1.0.zip", "x-1.0.whl"]) | JSON,
    "upload-time": st.sampled_from(["2026-11-30T12:00:00Z", "later"]) | JSON,
}) | JSON, max_size=4)


@settings(max_examples=300)
@given(PACKUMENT)
def test_a_packument_of_any_shape_gives_a_release_or_none(document: dict[str, Any]) -> None:
    found = release_of(document, "1.0.1")
    if found is not None:
        assert isinstance(found.install_script, bool)
        assert found.mcp_name is None or isinstance(found.mcp_name, str)
        assert found.published is None or found.published.tzinfo is not None


@settings(max_examples=300)
@given(FILES)
def test_a_simple_api_page_of_any_shape_gives_a_release_or_none(files: list[Any]) -> None:
    found = index_release_of(files, "x", "1.0")
    named = {f.get("filename") for f in files if isinstance(f, dict) and isinstance(f.get("filename"), str)}
    assert (found is None) == (not {"x-1.0-py3-none-any.whl", "x-1.0.tar.gz"} & named)
    if found is not None:
        assert found.install_script == ("x-1.0-py3-none-any.whl" not in named)
