"""The sandbox's probe, its fallbacks and its command line, as process-level units (pytest-subprocess)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.transports import caches, sandbox
from scanner.transports.caches import launcher_caches
from scanner.transports.sandbox import SandboxUnavailable, launch_command, sandboxed

BWRAP = "/opt/fake/bwrap"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_probed", {})
    monkeypatch.setattr(sys, "platform", "linux")
    caches._npm_cache.cache_clear()
    caches._uv_cache.cache_clear()
    caches._npm_registry.cache_clear()
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


def test_launcher_caches_follow_the_callers_settings(fp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert launcher_caches("node", {}) == {}
    assert launcher_caches("/usr/bin/npx", {"npm_config_cache": "/c/npm"}) == {"npm_config_cache": "/c/npm"}
    assert launcher_caches("uvx", {"UV_CACHE_DIR": "/c/uv"}) == {"UV_CACHE_DIR": "/c/uv"}
    monkeypatch.setattr(caches.shutil, "which", lambda name, **kw: f"/usr/bin/{name}")
    fp.register(["npm", "config", "get", "cache"], stdout="/home/dev/.npm-cache\n")
    fp.register(["uv", "cache", "dir"], stdout="/home/dev/.cache/uv\n")
    assert launcher_caches("npx", {"HOME": "/home/dev"}) == {"npm_config_cache": "/home/dev/.npm-cache"}
    assert launcher_caches("uvx", {"HOME": "/home/dev"}) == {"UV_CACHE_DIR": "/home/dev/.cache/uv"}


def test_launcher_cache_fallbacks(fp: Any) -> None:
    fp.register(["npm", "config", "get", "cache"], returncode=1)
    fp.register(["uv", "cache", "dir"], returncode=2)
    fp.allow_unregistered(False)
    caller = {"HOME": "/home/dev", "XDG_CACHE_HOME": "/xdg"}
    assert launcher_caches("npx", caller)["npm_config_cache"] == "/home/dev/.npm"
    assert launcher_caches("uvx", caller)["UV_CACHE_DIR"] == "/xdg/uv"


def test_command_line_and_environment(fp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bwrap_on_path(monkeypatch)
    fp.register([BWRAP, fp.any()], returncode=0)
    fp.register([BWRAP, "--help"], stdout="    --size BYTES  Set size of next tmpfs\n")
    fp.register(["npm", "config", "get", "registry"], stdout="http://127.0.0.1:9/\n")
    repo, cache = tmp_path / "repo", tmp_path / "npm-cache"
    hashed = hashlib.sha512(b"pkg@1.0.0").hexdigest()[:16]  # the folder npm itself installs `npx pkg@1.0.0` into
    (cache / "_npx" / hashed / "node_modules").mkdir(parents=True)
    (cache / "_npx" / hashed / "package.json").write_text("{}")
    (cache / "_npx" / "0123456789abcdef" / "node_modules").mkdir(parents=True)  # another package's
    repo.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "MCP_LOCK_DEBUG": "1", "INVOCATION_ID": "x", "KEEP": "yes"}
    caller = {"npm_config_cache": str(cache), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    argv, server_env = sandboxed(
        ["npx", "-y", "pkg@1.0.0"], env=env, cwd=str(repo), network="allow", caller=caller, readable=[str(repo)],
        tmpfs_mib=8,
    )
    assert argv[0] == BWRAP and argv[-4:] == ["--", "npx", "-y", "pkg@1.0.0"]
    pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind-try", str(repo), str(repo)) in pairs  # under /tmp: bound back, read-only
    assert ("--size", str(8 * 1024 * 1024), "--tmpfs") in pairs
    private = "/tmp/.cache/npm"
    entry = cache / "_npx" / hashed
    assert ("--ro-bind", str(entry / "node_modules"), f"{private}/_npx/{hashed}/node_modules") in pairs
    assert "0123456789abcdef" not in " ".join(argv)
    assert ("--ro-bind", str(entry / "package.json"), f"{private}/_npx/{hashed}/package.json") in pairs
    assert "--bind" not in argv and "--bind-try" not in argv  # nothing of the caller's is writable
    assert argv.index("--tmpfs") < argv.index("--ro-bind-try")
    assert server_env["HOME"] == "/tmp/home" and server_env["TMPDIR"] == "/tmp"
    assert server_env["npm_config_cache"] == private and server_env["KEEP"] == "yes"
    assert "MCP_LOCK_DEBUG" not in server_env
    plain = {"env": env, "cwd": str(repo), "caller": caller, "readable": [str(repo)]}
    unpinned, _ = sandboxed(["npx", "-y", "pkg"], network="deny", **plain)  # type: ignore[arg-type]
    assert "--unshare-net" in unpinned and f"_npx/{hashed}" not in " ".join(unpinned)  # npm may update it
    allowed, plain_env = sandboxed(["python3"], network="allow", **plain)  # type: ignore[arg-type]
    assert "--unshare-net" not in allowed and private not in " ".join(allowed)  # no launcher, no cache
    assert "npm_config_cache" not in plain_env


def test_only_the_callers_own_launcher_gets_a_cache(fp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A repository script named npx (or one found first on a declared PATH) is not the caller's npx."""
    bwrap_on_path(monkeypatch)
    fp.register([BWRAP, "--help"], stdout="")  # an old bwrap without --size: the tmpfs stays unbounded
    fp.register([BWRAP, fp.any()], returncode=0)
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    fake = repo / "tools" / "npx"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    caller = {"npm_config_cache": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    for command, path in (("tools/npx", "/usr/bin"), ("npx", f"{repo / 'tools'}:/usr/bin")):
        argv, env = sandboxed(
            [command], env={"PATH": path}, cwd=str(repo), network="allow", caller=caller, readable=[str(repo)]
        )
        assert "npm_config_cache" not in env and "/tmp/.cache/npm" not in argv, command
        assert "--size" not in argv
