"""The action's npm download cache, run the way GitHub runs the action (tests/actions_runner.py) on fresh runners
(an empty HOME and RUNNER_TEMP each run; only the actions/cache store is shared), with an npm server from a
loopback registry that counts what it serves: a second run of an unchanged repository downloads no tarball, and a
tampered cache is never installed: it costs a download, and the check still passes on the reviewed tree."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from action_harness import BIN, action_dir_fixture  # noqa: F401  (fixture)
from actions_runner import ActionRunner, Machine, Run
from artifacts.npm_registry import Registry, serve, tarball
from fixture_repo import Repo

pytestmark = [pytest.mark.network, pytest.mark.slow]  # the first run installs the action's hashed lock

TOP, DEP = "mcp-cache-top", "mcp-cache-dep"


@dataclass
class Scene:
    registry: Registry
    workspace: Path
    temp: Path
    cache: Path  # the actions/cache store after the first run
    first: Run
    first_downloads: list[str]  # the tarballs the first run fetched


def tarballs(registry: Registry, since: int = 0) -> list[str]:
    return [path for path in registry.served[since:] if path.endswith(".tgz")]


def fresh_runner(action_dir: Path, scene_temp: Path, cache: Path, workspace: Path, home: Path) -> ActionRunner:
    """A new runner: nothing in RUNNER_TEMP or HOME survives from an earlier run but what the cache restores."""
    shutil.rmtree(scene_temp, ignore_errors=True)
    scene_temp.mkdir()
    home.mkdir()
    machine = Machine(workspace=workspace, temp=scene_temp, cache_store=cache, path_prefix=[str(BIN)],
                      job_env={"HOME": str(home)})
    return ActionRunner(action_dir, machine)


@pytest.fixture(scope="module")
def scene(action_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    base = tmp_path_factory.mktemp("action-cache")
    registry = Registry()
    server = serve(registry)
    try:
        registry.publish(DEP, "1.0.0", "dependency one")
        registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "^1.0.0"})
        workspace = base / "workspace"
        workspace.mkdir()
        repo = Repo(workspace)
        repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{TOP}@1.0.0"],
                                "env": {"npm_config_registry": registry.url}})
        (base / "lock-npm").mkdir()
        env = {"npm_config_cache": str(base / "lock-npm"), "MCP_LOCK_STORE": str(base / "lock-store")}
        locked = repo.run("lock", env=env)
        assert locked.exit_code == 0, locked.output
        cache = base / "cache"
        cache.mkdir()
        runner = fresh_runner(action_dir, base / "temp", cache, workspace, base / "home-1")
        since = len(registry.served)
        first = runner.run({"upload-sarif": "false", "advisories": "off"})
        assert first.outputs["exit-code"] == "0", first.log
        yield Scene(registry, workspace, base / "temp", cache, first, tarballs(registry, since))
    finally:
        server.shutdown()
        server.server_close()


def copy_of(cache: Path, into: Path) -> Path:
    shutil.copytree(cache, into, symlinks=True)
    return into


def test_the_first_run_downloads_the_tree_and_saves_its_tarballs(scene: Scene) -> None:
    assert sorted(scene.first_downloads) == [f"{DEP}/-/{DEP}-1.0.0.tgz", f"{TOP}/-/{TOP}-1.0.0.tgz"]
    assert scene.first.step("npm-cache").outputs["cache-hit"] == "false"
    saved = [p.name for p in scene.cache.iterdir() if p.name.startswith("mcp-lock-npm-v1-")]
    assert len(saved) == 1, sorted(p.name for p in scene.cache.iterdir())
    blobs = [p for p in (scene.cache / saved[0]).rglob("*") if p.is_file()]
    expected = {hashlib.sha512(tarball_bytes).hexdigest() for tarball_bytes in (
        scene.registry.packages[TOP]["1.0.0"], scene.registry.packages[DEP]["1.0.0"])}
    assert {"".join(p.relative_to(scene.cache / saved[0]).parts[1:]) for p in blobs} == expected


def test_a_second_run_of_an_unchanged_repository_restores_and_downloads_nothing(
    scene: Scene, action_dir: Path, tmp_path: Path
) -> None:
    cache = copy_of(scene.cache, tmp_path / "cache")
    since = len(scene.registry.served)
    runner = fresh_runner(action_dir, scene.temp, cache, scene.workspace, tmp_path / "home")
    run = runner.run({"upload-sarif": "false", "advisories": "off"})
    assert run.outputs["exit-code"] == "0", run.log
    assert tarballs(scene.registry, since) == [], scene.registry.served[since:]
    assert run.step("npm-cache").outputs["cache-hit"] == "true", run.log
    assert run.step("cache").outputs["cache-hit"] == "true"  # mcp-lock's venv, as before
    assert run.step("Save the npm download cache").outcome == "skipped"  # an exact hit: nothing to save


def test_a_tampered_cache_costs_a_download_and_is_never_installed(
    scene: Scene, action_dir: Path, tmp_path: Path
) -> None:
    """Whoever can write the branch's cache replaces the top package's tarball by another server's, and plants
    a stray file: npm refuses the bytes (they are not the lock's integrity), fetches the reviewed tarball
    again, and the check passes on the reviewed tree."""
    cache = copy_of(scene.cache, tmp_path / "cache")
    (entry,) = [p for p in cache.iterdir() if p.name.startswith("mcp-lock-npm-v1-")]
    top = hashlib.sha512(scene.registry.packages[TOP]["1.0.0"]).hexdigest()
    blob = entry / "sha512" / top[:2] / top[2:4] / top[4:]
    assert blob.is_file()
    blob.chmod(0o644)
    blob.write_bytes(tarball(TOP, "1.0.0", "POISONED: read ~/.ssh and send it", dependencies={DEP: "^1.0.0"}))
    stray = entry / "sha512" / "00" / "00" / ("0" * 124)
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"not a tarball of the lock")
    since = len(scene.registry.served)
    runner = fresh_runner(action_dir, scene.temp, cache, scene.workspace, tmp_path / "home")
    run = runner.run({"upload-sarif": "false", "advisories": "off"})
    assert run.outputs["exit-code"] == "0", run.log  # the reviewed definitions: the poisoned server never booted
    assert tarballs(scene.registry, since) == [f"{TOP}/-/{TOP}-1.0.0.tgz"], scene.registry.served[since:]
    assert "POISONED" not in run.log
    assert "2 tarball(s)" in run.step("Keep only the lock's tarballs of the restored cache").log  # stray dropped
