"""Real published servers: the artifact the lock records is the one the registries publish, and the
`unpinned-launch` advice names the version npm resolved, not the server's own serverInfo.version."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repo import Repo

pytestmark = pytest.mark.network
FILESYSTEM = "@modelcontextprotocol/server-filesystem"
TIME, TIME_VERSION = "mcp-server-time", "2026.10.19"
TIMEOUT = "240"


@pytest.fixture
def path_env() -> dict[str, str]:
    """PATH with this interpreter's bin first, so `uvx` from the test extra is found by servers' launches."""
    return {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def npm_view(spec: str, field: str) -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    done = subprocess.run([npm, "view", spec, field, "--json"], capture_output=True, text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_unpinned_npm_launch_pins_the_registry_artifact_and_advises_its_version(repo: Repo, path_env) -> None:
    repo.add_entry("filesystem", {"command": "npx", "args": ["-y", FILESYSTEM, "."]})
    lock = repo.run("lock", "--timeout", TIMEOUT, env=path_env)
    assert lock.exit_code == 0, lock.output
    server = repo.lock_json()["servers"]["filesystem"]
    artifact = server["launch"]["artifact"]
    latest = npm_view(FILESYSTEM, "version")
    assert artifact["name"] == FILESYSTEM and artifact["version"] == latest
    assert artifact["integrity"] == npm_view(f"{FILESYSTEM}@{latest}", "dist.integrity")
    reported = server["serverInfo"]["version"]
    assert reported != latest  # the premise: this server reports another version than its package's
    assert f"`npx -y {FILESYSTEM}@{latest} .`" in lock.output
    assert f"{FILESYSTEM}@{reported}" not in lock.output


def test_uvx_launch_pins_the_file_sha256s_the_index_publishes(repo: Repo, path_env, tmp_path: Path) -> None:
    repo.add_entry("time", {"command": "uvx", "args": [f"{TIME}=={TIME_VERSION}"]})
    lock = repo.run("lock", "--timeout", TIMEOUT, env=path_env)
    assert lock.exit_code == 0, lock.output
    artifact = repo.lock_json()["servers"]["time"]["launch"]["artifact"]
    assert (artifact["type"], artifact["name"], artifact["version"]) == ("pypi", TIME, TIME_VERSION)
    # pip checks a download against the hash the index lists for the file, so its bytes are the published ones.
    downloads = tmp_path / "downloads"
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(downloads)]
    done = subprocess.run([*pip, f"{TIME}=={TIME_VERSION}"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (wheel,) = downloads.glob("*.whl")
    tree = repo.lock_json()["servers"]["time"]["launch"]["tree"]
    (package,) = [p for p in tree["packages"] if p["name"] == TIME]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() in package["sha256"]
