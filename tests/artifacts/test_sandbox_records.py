"""Records read as a sandboxed server sees its filesystem: the launcher's cache lies in the sandbox's private
/tmp, which only `/proc/<pid>/root` of a process inside reaches; symlinks there resolve inside the sandbox."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scanner.artifacts.npm import npx_hash
from scanner.artifacts.processes import descendants
from scanner.artifacts.resolve import resolved_artifact
from scanner.sources.declarations import ResolvedLaunch
from scanner.transports.caches import PRIVATE, PRIVATE_CACHES
from scanner.transports.sandbox import BASE_MOUNTS, NAMESPACE_FLAGS, require_bwrap

SPEC = "@acme/mcp@2.0.0"
NPX = ResolvedLaunch("stdio", "npx", ("-y", SPEC))
UVX = ResolvedLaunch("stdio", "uvx", ("mcp-server-x==1.2.3",))
NPM_ENV = {"npm_config_cache": PRIVATE["npm_config_cache"]}
UV_ENV = {"UV_CACHE_DIR": PRIVATE["UV_CACHE_DIR"]}
SEED = "/tmp/seed"  # where the host's prepared cache is seen in the sandbox, copied from into its private /tmp
WHEEL = "mcp_server_x-1.2.3-py3-none-any.whl"
SHA = "5c" * 32


def npx_install(cache: Path, integrity: str | None) -> Path:
    """npx's install of SPEC in `cache`, with its program (a copy of sleep) at node_modules/.bin/acme-mcp."""
    folder = cache / "_npx" / npx_hash([SPEC])
    package = folder / "node_modules" / "@acme" / "mcp"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@acme/mcp", "version": "2.0.0"}))
    if integrity is not None:
        entry = {"version": "2.0.0", "integrity": integrity}
        (folder / "package-lock.json").write_text(json.dumps({"packages": {"node_modules/@acme/mcp": entry}}))
    program(folder / "node_modules" / ".bin" / "acme-mcp")
    return folder


def uv_environment(cache: Path) -> Path:
    """uv's tool environment of mcp-server-x 1.2.3 in `cache` with its wheel's cache entry."""
    environment = cache / "archive-v0" / "AbC123"
    dist_info = environment / "lib" / "python3.12" / "site-packages" / "mcp_server_x-1.2.3.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "WHEEL").write_text("Wheel-Version: 1.0\nTag: py3-none-any\n")
    entry = cache / "wheels-v5" / "pypi" / "mcp-server-x" / "1.2.3-py3-none-any.http"
    entry.parent.mkdir(parents=True)
    header = b"\x93\xa6AbC123\x91\x81\xa6Sha256\xd9\x40" + SHA.encode() + b"\xd9" + bytes([len(WHEEL)]) + WHEEL.encode()
    entry.write_bytes(header + b"\x00" * 8)
    program(environment / "bin" / "python")
    return environment


def program(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(shutil.which("sleep") or "/bin/sleep", path)


@pytest.fixture
def sandboxed(tmp_path: Path) -> Iterator:
    """Start `run` (a path in the sandbox) in a bwrap sandbox whose private /tmp holds a copy of `seed`
    (as `/tmp/.cache`), the way mcp-lock's sandbox lays out a launcher's private cache."""
    started: list[subprocess.Popen] = []

    def start(seed: Path, run: str, *extra: str) -> int:
        script = f"cp -a {SEED}/. {PRIVATE_CACHES}/ && exec {run} 30"
        mounts = [*BASE_MOUNTS, "--ro-bind", str(seed), SEED, "--dir", PRIVATE_CACHES, *extra]
        process = subprocess.Popen([require_bwrap(), *NAMESPACE_FLAGS, *mounts, "--", "sh", "-c", script])
        started.append(process)
        wait_for(process.pid, run)
        return process.pid

    yield start
    for process in started:
        process.kill()
        process.wait()


def wait_for(pid: int, argv0: str) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for process in descendants(pid):
            try:
                with open(f"/proc/{process}/cmdline", "rb") as handle:
                    if handle.read().split(b"\0")[0] == argv0.encode():
                        return
            except OSError:
                continue
        time.sleep(0.02)
    pytest.fail(f"{argv0} did not start in the sandbox")


def in_sandbox(cache: Path, *parts: str) -> str:
    """The sandbox's path of a file prepared at `cache/...` on the host."""
    return "/".join([PRIVATE_CACHES, cache.name, *parts])


def test_npx_record_is_read_in_the_sandboxs_private_cache(tmp_path: Path, sandboxed) -> None:
    seed = tmp_path / "seed"
    folder = npx_install(seed / "npm", "sha512-AAAA")
    run = in_sandbox(seed / "npm", "_npx", folder.name, "node_modules", ".bin", "acme-mcp")
    pid = sandboxed(seed, run)
    assert not os.path.exists(run)  # mcp-lock's own /tmp has no such cache
    record = resolved_artifact(NPX, pid, NPM_ENV, str(tmp_path), tmp_path)
    assert record == {"type": "npm", "name": "@acme/mcp", "version": "2.0.0", "integrity": "sha512-AAAA"}


def test_uvx_record_is_read_in_the_sandboxs_private_cache(tmp_path: Path, sandboxed) -> None:
    seed = tmp_path / "seed"
    environment = uv_environment(seed / "uv")
    pid = sandboxed(seed, in_sandbox(seed / "uv", "archive-v0", environment.name, "bin", "python"))
    record = resolved_artifact(UVX, pid, UV_ENV, str(tmp_path), tmp_path)
    assert record == {"type": "pypi", "name": "mcp-server-x", "version": "1.2.3", "file": WHEEL, "sha256": SHA}


def test_an_absolute_symlink_in_the_sandbox_does_not_reach_mcp_locks_files(tmp_path: Path, sandboxed) -> None:
    # The server points its package-lock.json at a path that exists only outside the sandbox: the kernel,
    # walking below /proc/<pid>/root, would follow it from mcp-lock's root and read the host's file.
    forged = tmp_path / "forged-lock.json"
    entry = {"version": "9.9.9", "integrity": "sha512-FORGED"}
    forged.write_text(json.dumps({"packages": {"node_modules/@acme/mcp": entry}}))
    seed = tmp_path / "seed"
    folder = npx_install(seed / "npm", None)
    (folder / "package-lock.json").symlink_to(forged)
    pid = sandboxed(seed, in_sandbox(seed / "npm", "_npx", folder.name, "node_modules", ".bin", "acme-mcp"))
    record = resolved_artifact(NPX, pid, NPM_ENV, str(tmp_path), tmp_path)
    assert record == {"type": "npm", "name": "@acme/mcp", "version": "2.0.0"}  # its package.json: no lock


def test_an_install_only_bwraps_command_line_names_is_not_believed(tmp_path: Path, sandboxed) -> None:
    # The sandbox's PID 1 is bwrap forked without exec: its argv names each bind's path in the cache,
    # whether the server runs from there or not.
    seed = tmp_path / "seed"
    folder = npx_install(seed / "npm", "sha512-AAAA")
    named = in_sandbox(seed / "npm", "_npx", folder.name, "node_modules")
    pid = sandboxed(seed, f"{SEED}/npm/_npx/{folder.name}/node_modules/.bin/acme-mcp", "--dir", f"{named}/.bin")
    assert resolved_artifact(NPX, pid, NPM_ENV, str(tmp_path), tmp_path) is None


def test_with_the_sandbox_off_the_hosts_cache_is_read(tmp_path: Path) -> None:
    cache = tmp_path / "npm"
    folder = npx_install(cache, "sha512-AAAA")
    process = subprocess.Popen([str(folder / "node_modules" / ".bin" / "acme-mcp"), "30"])
    try:
        record = resolved_artifact(NPX, process.pid, {"npm_config_cache": str(cache)}, str(tmp_path), tmp_path)
    finally:
        process.kill()
        process.wait()
    assert record == {"type": "npm", "name": "@acme/mcp", "version": "2.0.0", "integrity": "sha512-AAAA"}
