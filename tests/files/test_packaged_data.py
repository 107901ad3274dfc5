"""scanner/files/packaged_data.py: each packaged YAML table is read from its compiled JSON only while that records
the YAML of today, and the committed compiled files are today's (issue 39 item 2: no PyYAML before a first spawn)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scanner.detectors import engine
from scanner.diff import meaning
from scanner.files import packaged_data
from scanner.model import rules

# Each packaged table, the parse its owner compiles it with, and the command that rewrites its compiled file.
TABLES = [
    (rules.SOURCE, rules.table_value, "scanner.model.rules"),
    (engine.CATALOGUE, packaged_data.safe_load, "scanner.detectors.engine"),
    (meaning.VOCABULARY, packaged_data.safe_load, "scanner.diff.meaning"),
]
YAML = b"a: 1\nlist: [x, y]\ntext: >-\n  folded\n  words\n"


@pytest.mark.parametrize(("source", "parse", "command"), TABLES, ids=[t[2] for t in TABLES])
def test_each_compiled_file_is_its_yaml_of_today(source: Path, parse: packaged_data.Parse, command: str) -> None:
    compiled = packaged_data.compiled_path(source)
    assert compiled.read_text(encoding="utf-8") == packaged_data.compiled_text(source.read_bytes(), parse), (
        f"{compiled.name} is stale: run `python -m {command}`"
    )
    assert packaged_data.value(source, parse) == parse(source.read_text(encoding="utf-8"))


def test_the_compiled_value_is_taken_only_for_the_yaml_whose_digest_it_records() -> None:
    calls: list[str] = []

    def parse(text: str) -> object:
        calls.append(text)
        return packaged_data.safe_load(text)

    compiled = packaged_data.compiled_text(YAML, packaged_data.safe_load)
    assert packaged_data.value_of(YAML, compiled, parse) == {"a": 1, "list": ["x", "y"], "text": "folded words"}
    assert calls == []  # read from the JSON
    edited = YAML.replace(b"a: 1", b"a: 2")
    forged = compiled.replace('"a": 1', '"a": 3')
    for stale in (compiled, "{not json", "[]", json.dumps({packaged_data.DIGEST_KEY: 5}), None):
        assert packaged_data.value_of(edited, stale, parse)["a"] == 2
    assert len(calls) == 5  # every stale, broken or missing compiled file: the YAML parsed
    # What the digest binds is the YAML; a compiled value edited by hand is still checked by its reader (rules).
    assert packaged_data.value_of(YAML, forged, parse)["a"] == 3


def test_a_value_json_would_change_is_not_compiled() -> None:
    with pytest.raises(ValueError, match="does not survive JSON"):
        packaged_data.compiled_text(b"1: one\n", packaged_data.safe_load)


def test_a_missing_compiled_file_reads_the_yaml(tmp_path: Path) -> None:
    source = tmp_path / "table.yaml"
    source.write_bytes(YAML)
    assert packaged_data.value(source, packaged_data.safe_load)["list"] == ["x", "y"]
    written = packaged_data.rewrite(source, packaged_data.safe_load)
    assert written == tmp_path / "table.compiled.json"
    source.write_bytes(YAML.replace(b"[x, y]", b"[z]"))  # edited after compiling: the YAML wins
    assert packaged_data.value(source, packaged_data.safe_load)["list"] == ["z"]

