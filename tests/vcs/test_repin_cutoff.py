"""scanner.vcs.repin_cutoff: as of when a re-pin is reproduced, asked of a loopback npm registry and a loopback
PEP 691/700 index. The cutoff is the millisecond after the newest release the record newly pins, dated by the
registry (never by the record); a record whose newest release is older than one it replaces, or with a release
the registry cannot date, gets none."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry
from loopback_pypi import Index, serve

from scanner.install.packages import tree_record
from scanner.vcs.repin_cutoff import NotReproducible, repin_cutoff


def _npm(*packages: tuple[str, str]) -> dict:
    return tree_record("npm", [{"path": f"node_modules/{name}", "name": name, "version": version,
                                "integrity": "sha512-x"} for name, version in packages])


def _at(registry: Registry, name: str, version: str, when: str) -> None:
    registry.publish(name, version, name)
    registry.published[name][version] = when


def _cut(base: dict, tree: dict, source: str) -> str:
    return repin_cutoff(base, tree, source, time.monotonic() + 30).before


@pytest.fixture
def dated(npm_registry: Registry) -> Registry:
    _at(npm_registry, "top", "1.0.0", "2026-01-01T00:00:00.000Z")
    _at(npm_registry, "dep", "1.0.0", "2026-01-02T00:00:00.000Z")
    _at(npm_registry, "dep", "1.0.1", "2026-02-01T10:20:30.456Z")
    _at(npm_registry, "dep", "1.0.2", "2026-03-01T00:00:00.000Z")  # published after the record: not its time
    _at(npm_registry, "late", "1.0.0", "2026-06-01T00:00:00.000Z")
    _at(npm_registry, "gone", "1.0.0", "2026-01-03T00:00:00.000Z")
    return npm_registry


def test_the_cutoff_is_the_millisecond_after_the_newest_release_the_record_newly_pins(dated: Registry) -> None:
    base = _npm(("top", "1.0.0"), ("dep", "1.0.0"))
    assert _cut(base, _npm(("top", "1.0.0"), ("dep", "1.0.1")), dated.url) == "2026-02-01T10:20:30.457Z"


def test_a_release_the_record_keeps_does_not_set_the_cutoff(dated: Registry) -> None:
    """`late` is the base's and stays: a resolution as of the cutoff cannot keep it (published after), so the
    review's equality refuses such a record; the cutoff is not pushed forward by what the base already pinned."""
    base = _npm(("top", "1.0.0"), ("dep", "1.0.0"), ("late", "1.0.0"))
    tree = _npm(("top", "1.0.0"), ("dep", "1.0.1"), ("late", "1.0.0"))
    assert _cut(base, tree, dated.url) == "2026-02-01T10:20:30.457Z"


def test_microseconds_are_dropped_before_the_millisecond_is_added(dated: Registry) -> None:
    dated.published["dep"]["1.0.1"] = "2026-02-01T10:20:30.456789Z"
    base = _npm(("top", "1.0.0"), ("dep", "1.0.0"))
    assert _cut(base, _npm(("top", "1.0.0"), ("dep", "1.0.1")), dated.url) == "2026-02-01T10:20:30.457Z"


def test_a_cutoff_past_the_runner_s_clock_is_kept(dated: Registry) -> None:
    """The registry's clock on both sides: a publish time ahead of the runner's (skew) stays the cutoff, which
    then resolves as today would; clamping it to the runner's clock would leave the record's newest release out."""
    dated.published["dep"]["1.0.1"] = "2099-01-01T00:00:00.000Z"
    base = _npm(("top", "1.0.0"), ("dep", "1.0.0"))
    assert _cut(base, _npm(("top", "1.0.0"), ("dep", "1.0.1")), dated.url) == "2099-01-01T00:00:00.001Z"


def test_a_downgrade_gets_no_cutoff(dated: Registry) -> None:
    base = _npm(("top", "1.0.0"), ("dep", "1.0.1"))
    with pytest.raises(NotReproducible, match=r"a downgrade.*dep@1\.0\.0.*older than dep@1\.0\.1"):
        repin_cutoff(base, _npm(("top", "1.0.0"), ("dep", "1.0.0")), dated.url, time.monotonic() + 30)


def test_a_downgrade_hidden_behind_a_newer_release_elsewhere_still_meets_the_bound(dated: Registry) -> None:
    """dep goes back to 1.0.0 while `late` (newer than dep 1.0.1) is added: the bound holds (the newest new
    release is newer than what is dropped), and it is the resolution as of that time, which would pick dep
    1.0.1 (or 1.0.2), that refuses the record in the review."""
    base = _npm(("top", "1.0.0"), ("dep", "1.0.1"))
    tree = _npm(("top", "1.0.0"), ("dep", "1.0.0"), ("late", "1.0.0"))
    assert _cut(base, tree, dated.url) == "2026-06-01T00:00:00.001Z"


@pytest.mark.parametrize("problem", ["unlisted version", "no time", "no such package", "a removed base release"])
def test_a_release_the_registry_cannot_date_gets_no_cutoff(dated: Registry, problem: str) -> None:
    base, tree = _npm(("top", "1.0.0"), ("dep", "1.0.0")), _npm(("top", "1.0.0"), ("dep", "1.0.1"))
    if problem == "unlisted version":
        tree = _npm(("top", "1.0.0"), ("dep", "9.9.9"))
    elif problem == "no time":
        del dated.published["dep"]["1.0.1"]
    elif problem == "no such package":
        tree = _npm(("top", "1.0.0"), ("dep", "1.0.0"), ("elsewhere", "1.0.0"))
    else:
        del dated.packages["dep"]["1.0.0"]  # unpublished since the base pinned it
    with pytest.raises(NotReproducible, match="cannot date"):
        repin_cutoff(base, tree, dated.url, time.monotonic() + 30)


def test_only_removals_date_the_whole_record(dated: Registry) -> None:
    """Nothing newly pinned: every release of the record sets the cutoff, and the bound still holds."""
    kept = _npm(("top", "1.0.0"), ("dep", "1.0.1"))
    assert _cut(_npm(("top", "1.0.0"), ("dep", "1.0.1"), ("gone", "1.0.0")), kept, dated.url) == (
        "2026-02-01T10:20:30.457Z"
    )
    # Dropping `late`, newer than all it keeps: a tree cannot shrink forward without a release.
    with pytest.raises(NotReproducible, match="a downgrade"):
        repin_cutoff(_npm(("top", "1.0.0"), ("dep", "1.0.1"), ("late", "1.0.0")), kept, dated.url,
                     time.monotonic() + 30)


def test_another_package_manager_or_no_registry_gets_no_cutoff(dated: Registry) -> None:
    npm_tree = _npm(("top", "1.0.0"))
    uv_tree = tree_record("uv", [{"name": "top", "version": "1.0.0", "sha256": ["0" * 64]}])
    with pytest.raises(NotReproducible, match="package manager"):
        repin_cutoff(npm_tree, uv_tree, dated.url, time.monotonic() + 30)
    with pytest.raises(NotReproducible, match="no registry"):
        repin_cutoff(npm_tree, _npm(("top", "1.0.0"), ("dep", "1.0.1")), None, time.monotonic() + 30)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    served = Index(tmp_path / "index")
    with serve(served):
        yield served


def _uv(*packages: tuple[str, str, list[str]]) -> dict:
    return tree_record("uv", [{"name": n, "version": v, "sha256": sorted(s)} for n, v, s in packages])


def test_uv_dates_the_latest_upload_among_the_files_the_record_holds(index: Index) -> None:
    old = index.wheel("dep", "1.0.0")
    new = index.wheel("dep", "1.0.1")
    index.upload_times.update({"dep-1.0.0-py3-none-any.whl": "2026-01-01T00:00:00.000000Z",
                               "dep-1.0.1-py3-none-any.whl": "2026-02-01T00:00:00.123456Z"})
    later = index.add("dep", "1.0.1", "dep-1.0.1.tar.gz", b"sdist")  # uploaded later, not in the record
    index.upload_times["dep-1.0.1.tar.gz"] = "2026-05-01T00:00:00Z"
    base, tree = _uv(("dep", "1.0.0", [old])), _uv(("dep", "1.0.1", [new]))
    assert _cut(base, tree, index.url) == "2026-02-01T00:00:00.124Z"
    # With the later file in the record, it dates the release.
    assert _cut(base, _uv(("dep", "1.0.1", [new, later])), index.url) == "2026-05-01T00:00:00.001Z"


def test_uv_refuses_a_file_without_an_upload_time_or_not_on_the_index(index: Index) -> None:
    old = index.wheel("dep", "1.0.0")
    new = index.wheel("dep", "1.0.1")
    index.upload_times["dep-1.0.0-py3-none-any.whl"] = "2026-01-01T00:00:00Z"
    base = _uv(("dep", "1.0.0", [old]))
    with pytest.raises(NotReproducible, match="no upload time"):
        repin_cutoff(base, _uv(("dep", "1.0.1", [new])), index.url, time.monotonic() + 30)
    with pytest.raises(NotReproducible, match=r"no file of dep@1\.0\.1 with the digest"):
        repin_cutoff(base, _uv(("dep", "1.0.1", ["f" * 64])), index.url, time.monotonic() + 30)
