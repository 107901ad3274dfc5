"""How `isolation` finds a working `unshare` invocation, at the process level (pytest-subprocess).

The protocol and a real namespace are tested in test_isolation.py; here only the probe's choice of flags
and its fallbacks, which a single machine cannot all show for real.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pytest_subprocess import FakeProcess
from pytest_subprocess.fake_popen import FakePopen

from scanner.transports import isolation
from scanner.transports.isolation import FLAG_SETS, IsolationUnavailable, isolated

SERVER = ["node", "server.js", "--stdio"]


@pytest.fixture
def unshare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An `unshare` found on PATH (never run: pytest-subprocess answers for it), and a fresh probe cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    path = bin_dir / "unshare"
    path.write_text("#!/bin/sh\nexit 99\n")
    path.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(isolation, "_probed", {})
    return str(path)


def probe_command(unshare: str, flags: tuple[str, ...]) -> list[str]:
    return [unshare, *flags, "--", unshare, "--version"]


def test_first_flag_set_that_works_is_used(fp: FakeProcess, unshare: str) -> None:
    fp.register(probe_command(unshare, FLAG_SETS[0]), returncode=0, stdout="unshare from util-linux 2.39")
    assert isolated(SERVER) == [unshare, *FLAG_SETS[0], "--", *SERVER]
    assert fp.call_count(probe_command(unshare, FLAG_SETS[1])) == 0


def test_older_unshare_falls_back_to_the_next_flag_set(fp: FakeProcess, unshare: str) -> None:
    fp.register(
        probe_command(unshare, FLAG_SETS[0]), returncode=1, stderr="unshare: unrecognized option '--map-current-user'"
    )
    fp.register(probe_command(unshare, FLAG_SETS[1]), returncode=0)
    assert isolated(SERVER) == [unshare, *FLAG_SETS[1], "--", *SERVER]
    assert [fp.call_count(probe_command(unshare, flags)) for flags in FLAG_SETS] == [1, 1]


def test_probe_runs_once_per_binary(fp: FakeProcess, unshare: str) -> None:
    fp.register(probe_command(unshare, FLAG_SETS[0]), returncode=0)
    assert isolated(SERVER) == isolated(["other"])[:-1] + SERVER
    assert fp.call_count(probe_command(unshare, FLAG_SETS[0])) == 1


def test_no_unshare_on_path(fp: FakeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory
    with pytest.raises(IsolationUnavailable, match="there is no `unshare` on PATH; not started"):
        isolated(SERVER)
    assert len(fp.calls) == 0  # nothing probed, nothing started


def test_probe_that_fails_for_every_flag_set_says_why(fp: FakeProcess, unshare: str) -> None:
    for flags in FLAG_SETS:
        denied = "line one\nunshare: unshare failed: Operation not permitted"
        fp.register(probe_command(unshare, flags), returncode=1, stderr=denied)
    with pytest.raises(IsolationUnavailable) as caught:
        isolated(SERVER)
    message = str(caught.value)
    assert "cannot create a network namespace here (unshare: unshare failed: Operation not permitted)" in message
    assert "kernel.unprivileged_userns_clone=1" in message and "network: allow" in message
    assert [fp.call_count(probe_command(unshare, flags)) for flags in FLAG_SETS] == [1, 1]


def cannot_exec(process: object) -> None:
    raise PermissionError(13, "Permission denied")


def hangs(process: FakePopen) -> None:
    # What subprocess.run raises once the probe outlives its timeout (after killing it).
    raise subprocess.TimeoutExpired(process.args, isolation.PROBE_TIMEOUT)


def test_a_flag_set_that_cannot_run_falls_through(fp: FakeProcess, unshare: str) -> None:
    fp.register(probe_command(unshare, FLAG_SETS[0]), callback=cannot_exec)
    fp.register(probe_command(unshare, FLAG_SETS[1]), returncode=0)
    assert isolated(SERVER) == [unshare, *FLAG_SETS[1], "--", *SERVER]


def test_probe_that_cannot_run_or_hangs_fails_closed(fp: FakeProcess, unshare: str) -> None:
    fp.register(probe_command(unshare, FLAG_SETS[0]), callback=cannot_exec)
    fp.register(probe_command(unshare, FLAG_SETS[1]), callback=hangs)
    timed_out = r"cannot create a network namespace here \(Command .* timed out"
    for _ in range(2):  # the second time from the remembered verdict: each command was registered once
        with pytest.raises(IsolationUnavailable, match=timed_out):
            isolated(SERVER)


def test_silent_failure_reports_the_exit_status(fp: FakeProcess, unshare: str) -> None:
    for flags in FLAG_SETS:
        fp.register(probe_command(unshare, flags), returncode=3)
    with pytest.raises(IsolationUnavailable, match=r"\(exit status 3\)"):
        isolated(SERVER)


def test_probe_runs_with_only_path_in_its_environment(fp: FakeProcess, unshare: str) -> None:
    seen: list[dict[str, str]] = []
    fp.register(probe_command(unshare, FLAG_SETS[0]), callback=lambda process: seen.append(process.kwargs["env"]))
    isolated(SERVER)
    assert seen == [{"PATH": str(Path(unshare).parent)}]  # no caller secrets, even in a probe
