"""scanner.install.sandboxed on its own: what an npm resolution may hold, and the bounds of one step."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import anyio
import pytest

from scanner.install.sandboxed import SOURCE_REFUSED, Room, refused_build, refused_sources, run_bounded, uv_build_flags

REGISTRY = {"version": "1.0.0", "resolved": "http://127.0.0.1:9/a/-/a-1.0.0.tgz", "integrity": "sha512-AAAA"}


def lock(**packages: dict) -> str:
    return json.dumps({"lockfileVersion": 3, "packages": {"": {"name": "root"}, **packages}})


def test_a_git_dependency_is_refused_naming_it() -> None:
    git = {"version": "1.0.0", "resolved": "git+ssh://git@example.invalid/x/b.git#0123456789abcdef0123456789abcdef01234567"}
    refused = refused_sources(lock(**{"node_modules/a": REGISTRY, "node_modules/b": git}))
    assert refused is not None and refused.rule == SOURCE_REFUSED
    assert "b from git (git+ssh://" in str(refused) and "node_modules/a" not in str(refused)


def test_registry_tarball_and_bundled_dependencies_pass() -> None:
    tarball = {"version": "2.0.0", "resolved": "http://127.0.0.1:9/files/c.tgz", "integrity": "sha512-BBBB"}
    bundled = {"version": "3.0.0", "inBundle": True}
    text = lock(**{"node_modules/a": REGISTRY, "node_modules/c": tarball, "node_modules/c/node_modules/d": bundled})
    assert refused_sources(text) is None


def test_a_dependency_without_integrity_is_refused() -> None:
    refused = refused_sources(lock(**{"node_modules/e": {"version": "1.0.0", "resolved": "http://127.0.0.1:9/e.tgz"}}))
    assert refused is not None and "e with no integrity" in str(refused)


def test_uv_builds_nothing_unless_named_and_never_without_a_sandbox() -> None:
    assert uv_build_flags(Room(None, frozenset({"p"}))) == ["--no-build"]
    assert uv_build_flags(Room(lambda a, e, c, w, r: (a, e))) == ["--no-build"]
    allowed = Room(lambda a, e, c, w, r: (a, e), frozenset({"p"}))
    assert uv_build_flags(allowed) == ["--only-binary", ":all:", "--no-binary", "p"]
    said = "hint: Wheels are required for `evil-pkg` because building from source is disabled for all packages"
    refused = refused_build(said, allowed)
    assert refused is not None and "evil-pkg has no wheel" in str(refused) and "build-from-source: [evil-pkg]" in str(
        refused
    )
    assert refused_build("error: connection refused", allowed) is None


def test_a_step_past_its_output_bound_is_killed() -> None:
    flood = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"]
    done = anyio.run(lambda: run_bounded(flood, {}, ".", None, limit=1024 * 1024))
    assert done.overflowed and len(done.stdout) <= 1024 * 1024


def test_a_step_past_its_time_bound_is_killed_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    sleeper = [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"]
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        anyio.run(lambda: run_bounded(sleeper, {}, ".", None, seconds=1.0))
    assert time.monotonic() - started < 5
    pid = int(pid_file.read_text())
    time.sleep(0.2)
    assert _gone(pid)


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (a subreaper above may not have reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
