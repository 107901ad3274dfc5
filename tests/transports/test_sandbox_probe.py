"""The sandbox's probe, its fallbacks and its command line, as process-level units (pytest-subprocess)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.transports import sandbox
from scanner.transports.sandbox import SandboxUnavailable, launch_command, sandboxed

BWRAP = "/opt/fake/bwrap"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_probed", {})
    monkeypatch.setattr(sys, "platform", "linux")
    sandbox._has_size.cache_clear()


def bwrap_on_path(monkeypatch: pytest.MonkeyPatch, found: str | None = BWRAP) -> None:
    real = sandbox.shutil.which
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, **kw: found if name == "bwrap" else real(name, **kw))


def test_a_working_bwrap_is_probed_once(fp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap_on_path(monkeypatch)
    fp.register([BWRAP, fp.any()], returncode=0, stdout="bubblewrap 0.8.0\n")
    assert sandbox.require_bwrap() == BWRAP
    assert sandbox.require_bwrap() == BWRAP
    assert fp.call_count([BWRAP, fp.any()]) == 1
    probe_command = fp.calls[0]
    assert {"--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent"} <= set(probe_command)


def test_user_namespaces_refused_names_the_apparmor_fix(fp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap_on_path(monkeypatch)
    fp.register([BWRAP, fp.any()], returncode=1, stderr="bwrap: setting up uid map: Permission denied\n")
    with pytest.raises(SandboxUnavailable) as refused:
        sandbox.require_bwrap()
    message = str(refused.value)
    assert f"{BWRAP} cannot start a sandbox here (bwrap: setting up uid map: Permission denied)" in message
    assert "profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, include if exists <local/bwrap> }" in message
    assert "abi <abi/4.0>, include <tunables/global>" in message
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in message
    assert "`sandbox: off`" in message
    with pytest.raises(SandboxUnavailable):
        sandbox.require_bwrap()
    assert fp.call_count([BWRAP, fp.any()]) == 1  # the refusal is remembered too


def test_no_bwrap_names_the_package(fp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap_on_path(monkeypatch, None)
    with pytest.raises(SandboxUnavailable, match="no `bwrap` on PATH; not started: install bubblewrap"):
        sandbox.require_bwrap()
    assert list(fp.calls) == []  # nothing to probe


@pytest.mark.parametrize(("platform", "name"), [("darwin", "macOS"), ("win32", "Windows")])
def test_no_sandbox_off_linux(fp: Any, monkeypatch: pytest.MonkeyPatch, platform: str, name: str) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    with pytest.raises(SandboxUnavailable, match=f"no sandbox on {name}.*set `sandbox: off`"):
        launch_command([sys.executable], {"PATH": "/usr/bin"}, "/", "allow", "on")
    assert launch_command([sys.executable], {}, "/", "allow", "off") == ([sys.executable], {})


def test_command_line_and_environment(fp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bwrap_on_path(monkeypatch)
    fp.register([BWRAP, fp.any()], returncode=0)
    fp.register([BWRAP, "--help"], stdout="    --size BYTES  Set size of next tmpfs\n")
    repo, cache = tmp_path / "repo", tmp_path / "npm-cache"
    (cache / "_npx" / "0123456789abcdef" / "node_modules").mkdir(parents=True)  # the caller's npx installs
    repo.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "MCP_LOCK_DEBUG": "1", "INVOCATION_ID": "x", "KEEP": "yes"}
    caller = {"npm_config_cache": str(cache), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    argv, server_env = sandboxed(
        ["npx", "-c", "srv"], env=env, cwd=str(repo), network="allow", caller=caller, readable=[str(repo)],
        tmpfs_mib=8,
    )
    assert argv[0] == BWRAP and argv[-4:] == ["--", "npx", "-c", "srv"]
    pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind-try", str(repo), str(repo)) in pairs  # under /tmp: bound back, read-only
    assert ("--size", str(8 * 1024 * 1024), "--tmpfs") in pairs
    assert str(cache) not in " ".join(argv)  # no cache of the caller's is layered in: npx finds an empty one
    assert "--bind" not in argv and "--bind-try" not in argv  # nothing of the caller's is writable
    assert argv.index("--tmpfs") < argv.index("--ro-bind-try")
    assert server_env["HOME"] == "/tmp/home" and server_env["TMPDIR"] == "/tmp"
    assert "npm_config_cache" not in server_env and server_env["KEEP"] == "yes"
    assert "MCP_LOCK_DEBUG" not in server_env
    plain = {"env": env, "cwd": str(repo), "caller": caller, "readable": [str(repo)]}
    denied, _ = sandboxed(["python3"], network="deny", **plain)  # type: ignore[arg-type]
    assert "--unshare-net" in denied
    entry = str(tmp_path / "store" / "entry")
    installing, _ = sandboxed(["npm", "rebuild"], network="allow", writable=[entry], **plain)  # type: ignore[arg-type]
    assert ("--bind", entry, entry) in list(zip(installing, installing[1:], installing[2:], strict=False))


def test_warm_up_probes_in_a_thread_and_the_boots_find_it_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    """`warm_up` probes the real bwrap in a thread; after `settle`, asking again runs no bwrap (each probe is a
    bwrap process: the cost warm_up exists to take off the event loop)."""
    from scanner.transports import sandbox_warm

    if sandbox.shutil.which("bwrap") is None:
        pytest.skip("needs bwrap")
    monkeypatch.setattr(sandbox_warm, "_started", [])
    calls: list[str] = []
    real_run = sandbox.subprocess.run
    monkeypatch.setattr(sandbox.subprocess, "run", lambda *a, **k: (calls.append(a[0][-1]), real_run(*a, **k))[1])
    sandbox_warm.warm_up()
    (thread,) = sandbox_warm._started
    assert thread.name == "bwrap-probe"
    sandbox_warm.settle()
    assert not thread.is_alive() and sorted(calls) == ["--help", "--version"]  # the probe, then --size
    bwrap = sandbox.require_bwrap()
    assert sandbox._has_size(bwrap) in (True, False)
    assert len(calls) == 2  # cached: the boots run no probe of their own
    sandbox_warm.warm_up()  # once per process
    assert sandbox_warm._started == [thread]
