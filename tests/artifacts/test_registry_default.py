"""One run asks npm for its configured registry once (scanner.artifacts.packument.asked_once): each
`npm config get registry` is a Node.js start, 0.47 s under load, and recording the 28 real servers' registry facts
asked it once per server, one after the other (13 of the 24 s the facts took once the questions were kept alive).
And a simple-API page is read in one pass for every version and server (simple_index.releases_of), with what
`release_of` says of each version."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from scanner.artifacts.packument import asked_once, registry_for
from scanner.artifacts.simple_index import release_of, releases_of


@pytest.fixture
def counted_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `npm` first on PATH that logs each start, then runs the real one."""
    real = shutil.which("npm")
    assert real is not None, "npm is not installed"
    log = tmp_path / "npm.log"
    wrapper = tmp_path / "bin" / "npm"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {real} "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # what npm config get answers
    return log


def test_one_run_asks_npm_once_for_every_launch(counted_npm: Path) -> None:
    default = asked_once()
    answers = {registry_for({}, {}, default) for _ in range(5)}
    assert answers == {"http://127.0.0.1:9/"}
    assert counted_npm.read_text(encoding="utf-8").splitlines() == ["config get registry"]


def test_a_launch_naming_its_registry_asks_npm_nothing(counted_npm: Path) -> None:
    assert registry_for({"npm_config_registry": "http://127.0.0.1:8/"}, {}, asked_once()) == "http://127.0.0.1:8/"
    assert not counted_npm.exists()


FILES = [
    {"filename": "Pkg_Name-1.0-py3-none-any.whl", "upload-time": "2025-01-02T00:00:00Z", "provenance": None},
    {"filename": "pkg-name-1.0.tar.gz", "upload-time": "2025-01-01T00:00:00Z"},
    {"filename": "pkg.name-2.0.tar.gz", "upload-time": "2025-03-01T00:00:00Z", "provenance": "/p/2.0"},
    {"filename": "other-1.0-py3-none-any.whl", "upload-time": "2025-01-01T00:00:00Z"},
    {"filename": "pkg_name-3.0-cp312-cp312-manylinux_x86_64.whl"},
    {"filename": 7}, "not an entry", {"filename": "pkg_name-4.0.zip"}, {"filename": "pkg-name-5.0.exe"},
]


def test_one_pass_over_a_page_says_what_release_of_says_of_each_version() -> None:
    found = releases_of(FILES, "pkg-name")
    for version in ("1.0", "2.0", "3.0", "4.0", "5.0", "9.9"):
        assert found.get(version) == release_of(FILES, "pkg-name", version), version
    assert set(found) == {"1.0", "2.0", "3.0", "4.0"}
    assert found["2.0"].attested and found["2.0"].install_script and not found["1.0"].install_script
