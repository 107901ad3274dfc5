"""Memory per boot: a server's processes together hold at most `memory-mib` (cgroup memory controller, else a
data-size limit per process), and running into it is a `sandbox-limit-hit` finding, never a crash of mcp-lock."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fixture_repo import Repo
from test_policy import write_policy

from scanner.transports import cgroup
from transports.test_sandbox import add_attacker, described

GIB = 1024 * 1024 * 1024
MIB = 1024 * 1024
# The host's shared memory is measured here and gigabytes are taken there: across pytest-xdist workers these tests
# run one after another, so that no other of them moves the figures (tests/parallel.py).
pytestmark = pytest.mark.usefixtures("one_at_a_time")


def _memory_controller() -> bool:
    limit = cgroup.ProcessLimit.create()
    limit.close()
    return limit.memory_path is not None


needs_memory = pytest.mark.skipif(not _memory_controller(), reason="no writable cgroup memory controller here")


def findings(report: Path, rule: str) -> list[str]:
    return [f["message"] for f in json.loads(report.read_text())["findings"] if f["rule"] == rule]


@needs_memory
def test_a_server_taking_3_gib_is_stopped_at_the_default_2_gib_with_a_finding(repo: Repo, tmp_path: Path) -> None:
    add_attacker(repo, "hog", {"allocate": 3 * GIB})
    result = repo.run("lock", "--json", str(tmp_path / "report.json"))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    (message,) = findings(tmp_path / "report.json", "sandbox-limit-hit")
    assert "more than the 2048 MiB of memory its sandbox allows" in message
    report = json.loads((tmp_path / "report.json").read_text())
    (failed,) = [f for f in report["findings"] if f["rule"] == "boot-failed"]
    assert failed["details"][0].endswith("; the server exited with code 137 (killed by SIGKILL)")
    assert failed["details"][-1].startswith("hint: the server used more than the 2048 MiB of memory")
    assert not repo.lock_path.exists()  # nothing half-listed was pinned


@needs_memory
@pytest.mark.parametrize("mode", ["on", "off"])
def test_the_policys_memory_limit_holds_sandboxed_or_not(repo: Repo, tmp_path: Path, mode: str) -> None:
    add_attacker(repo, "hog", {"allocate": 256 * MIB})
    write_policy(repo, f"sandbox: {mode}\nmemory-mib: 64\n")
    result = repo.run("lock", "--json", str(tmp_path / "report.json"))
    assert result.exit_code == 1, result.output
    (message,) = findings(tmp_path / "report.json", "sandbox-limit-hit")
    assert "more than the 64 MiB of memory" in message and "`memory-mib: N`" in message


def test_a_server_may_raise_its_own_memory_limit(repo: Repo) -> None:
    add_attacker(repo, "big", {"allocate": 128 * MIB})
    write_policy(repo, "memory-mib: 64\nservers:\n  big:\n    memory-mib: 512\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert described(repo, "big", "allocate") == f"allocated {128 * MIB}"


def test_without_a_memory_cgroup_the_data_size_is_limited(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    parents = cgroup._parents
    monkeypatch.setattr(cgroup, "_parents", lambda controller: [] if controller == "memory" else parents(controller))
    add_attacker(repo, "hog", {"allocate": 512 * MIB})
    write_policy(repo, "memory-mib: 256\n")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert described(repo, "hog", "allocate") == "MemoryError"  # refused inside the server, which lived on


def test_a_policy_memory_limit_below_an_interpreter_is_an_error(repo: Repo) -> None:
    add_attacker(repo, "idle", {})
    write_policy(repo, "memory-mib: 8\n")
    result = repo.run("lock")
    assert result.exit_code == 2
    assert "memory-mib must be a whole number of MiB from 16 to 1048576" in result.output


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_fallback_limit_lets_nodes_fetch_start_and_still_refuses_a_large_buffer() -> None:
    """Under an address-space limit (even 16 GiB) Node's WebAssembly, behind `fetch`, cannot start."""
    limit = cgroup.ProcessLimit(None, cgroup.PIDS_MAX, "no memory cgroup", None, 512)
    script = (
        "fetch('http://127.0.0.1:9').catch(() => console.log('fetch ran'));"
        "try { Buffer.alloc(1024 * 1024 * 1024, 1); console.log('allocated') } catch (e) { console.log('refused') }"
    )
    done = subprocess.run(limit.wrap(["node", "-e", script]), capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["refused", "fetch ran"], done.stdout + done.stderr
