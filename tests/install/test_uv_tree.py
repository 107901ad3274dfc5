"""`uvx mcp-server-time==2025.9.25` from PyPI: its whole tree is resolved and recorded (every package with each
published file's sha256) before it runs, installed into the store, and a second boot downloads nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_repo import Repo

from scanner.install.store import install_digest

SPEC = "mcp-server-time==2025.9.25"


@pytest.mark.network
def test_a_uvx_launch_is_resolved_recorded_and_booted_from_the_store(repo: Repo, tmp_path: Path) -> None:
    if shutil.which("uv") is None:
        pytest.fail("uv is not on PATH (the test extra installs it into the venv)")
    store = tmp_path / "store"
    env = {"MCP_LOCK_STORE": str(store)}
    repo.add_entry("time", {"command": "uvx", "args": ["--with", "mcp<2", SPEC]})
    lock = repo.run("lock", env=env)
    assert lock.exit_code == 0, lock.output
    launch = repo.lock_json()["servers"]["time"]["launch"]
    tree = launch["tree"]
    assert tree["manager"] == "uv"
    versions = {p["name"]: p["version"] for p in tree["packages"]}
    assert versions["mcp-server-time"] == "2025.9.25" and versions["mcp"].startswith("1.")
    assert all(p["sha256"] and all(len(h) == 64 for h in p["sha256"]) for p in tree["packages"])
    assert launch["artifact"] == {"type": "pypi", "name": "mcp-server-time", "version": "2025.9.25"}
    (entry,) = [p for p in store.iterdir() if not p.name.startswith(".")]
    # The store keys what installs: the tree less what is recorded after the install (the index's licenses).
    assert entry.name == install_digest(tree).removeprefix("sha256:")
    assert (entry / "venv" / "bin" / "mcp-server-time").exists()
    check = repo.run("check", env=env)
    assert check.exit_code == 0, check.output
    assert [p for p in store.iterdir() if not p.name.startswith(".")] == [entry]  # the same entry, reused
    assert tree["format"] == 4 and repo.lock_json()["lockfileVersion"] == 4
    # A cold runner installs the recorded requirements (--require-hashes --no-deps), no resolution.
    cold = repo.run("check", env={"MCP_LOCK_STORE": str(tmp_path / "cold-store")})
    assert cold.exit_code == 0, cold.output
    (cold_entry,) = [p for p in (tmp_path / "cold-store").iterdir() if not p.name.startswith(".")]
    assert cold_entry.name == entry.name and "==" in (cold_entry / "requirements.txt").read_text()
