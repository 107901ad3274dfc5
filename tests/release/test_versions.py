"""Version parsing, the bump a release makes (Cargo's rule below 1.0.0), manifests, and the bump column."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner.diff.change import CHANGE_CLASS, Change, required_bump
from scanner.release.versions import Version, bump_made, manifest_versions, parse_version


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("1.2.3", Version(1, 2, 3)),
        ("0.0.1", Version(0, 0, 1)),
        ("1.0.0-rc.1+build.5", Version(1, 0, 0)),
        ("v1.2.3", None),
        ("1.2", None),
        ("01.2.3", None),
        ("1.2.3-", None),
        ("1.2.3\n", None),
        ("", None),
        (None, None),
        (3, None),
        ("1." * 500 + "1", None),
    ],
)
def test_parse_version(text: object, parsed: Version | None) -> None:
    assert parse_version(text) == parsed


@pytest.mark.parametrize(
    ("old", "new", "bump"),
    [
        ("1.2.3", "2.0.0", "major"),
        ("1.2.3", "1.3.0", "minor"),
        ("1.2.3", "1.2.4", "patch"),
        ("1.2.3", "1.2.3", "none"),
        ("1.2.3", "1.2.2", "none"),
        ("1.2.3-rc.1", "1.2.3", "none"),  # pre-release and build metadata are not measured
        ("0.3.1", "0.4.0", "major"),  # 0.y.z: a bump of y counts as major
        ("0.3.1", "0.3.2", "minor"),  # and a bump of z as minor
        ("0.0.3", "0.0.4", "major"),  # 0.0.z: any bump is major
        ("0.0.3", "0.1.0", "major"),
        ("0.9.9", "1.0.0", "major"),
    ],
)
def test_bump_made(old: str, new: str, bump: str) -> None:
    a, b = parse_version(old), parse_version(new)
    assert a is not None and b is not None
    assert bump_made(a, b) == bump


def test_manifest_versions(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.2.3"}', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nversion = "1.2.4"\n[tool.poetry]\nversion = "1.2.5"\n', encoding="utf-8"
    )
    (tmp_path / "server.json").write_text('{"name": "io.github.x/y", "version": 7}', encoding="utf-8")
    found = {(m.file.name, m.field): m.value for m in manifest_versions(tmp_path)}
    assert found == {
        ("package.json", "version"): "1.2.3",
        ("pyproject.toml", "[project].version"): "1.2.4",
        ("pyproject.toml", "[tool.poetry].version"): "1.2.5",
        ("server.json", "version"): 7,
    }
    (tmp_path / "package.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\ndynamic = ["version"]\n', encoding="utf-8")
    assert [m.file.name for m in manifest_versions(tmp_path)] == ["server.json"]


@pytest.mark.parametrize(
    ("cls", "bump"),
    [
        ("property-added-required", "major"),
        ("enum-narrowed", "major"),  # graded low for drift, yet it breaks a caller
        ("type-narrowed", "major"),
        ("constraint-tightened", "major"),
        ("annotation-tightened", "major"),  # a client that auto-approved must decide again
        ("annotation-loosened", "minor"),
        ("output-schema-removed", "major"),
        ("renamed", "major"),
        ("definition-removed", "major"),
        ("schema-changed", "major"),  # unclassified: fail closed
        ("definition-added", "minor"),
        ("property-added-optional", "minor"),
        ("text-reworded", "minor"),
        ("text-sentence-added", "minor"),
        ("output-schema-added", "minor"),
        ("text-cosmetic", "patch"),
        ("schema-noise", "patch"),
    ],
)
def test_bump_column(cls: str, bump: str) -> None:
    assert CHANGE_CLASS[cls].bump == bump


def test_inside_an_output_schema_widening_breaks_and_narrowing_does_not() -> None:
    def bump(cls: str, field: str) -> str:
        return required_bump(Change(cls, "/x", "", CHANGE_CLASS[cls].severity, field))

    assert bump("enum-widened", "inputSchema") == "minor" and bump("enum-widened", "outputSchema") == "major"
    assert bump("enum-narrowed", "inputSchema") == "major" and bump("enum-narrowed", "outputSchema") == "minor"
    assert bump("property-removed", "outputSchema") == "major"
    assert bump("became-optional", "outputSchema") == "major"
