"""A package-manager step reaches only the configured registry, and reads nothing of the caller's home.

mcp-lock runs as a child process with a home of its own outside /tmp (which the sandbox hides anyway), holding
an npm token and an SSH key, against a loopback PEP 503 index (tests/loopback_pypi.py) and the loopback npm
registry; a second loopback listener stands in for any host that is not the registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry
from loopback_pypi import SERVER_MODULE, Index, listener, serve

from install.step_backends import reporting_backend

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "demo-server"
NPM_TOKEN = "npm_HomeToken0123456789abcdef"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- homekey0123456789"


@pytest.fixture
def home() -> Iterator[Path]:
    """The caller's home: not under /tmp, so only the step's own sandbox can hide it."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-lock-home-", dir="/var/tmp"))
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_rsa").write_text(SSH_KEY + "\n", encoding="utf-8")
    (folder / ".npmrc").write_text(f"//127.0.0.1:9/:_authToken={NPM_TOKEN}\n", encoding="utf-8")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def outsider() -> Iterator[tuple[int, list[bytes]]]:
    with listener() as found:
        yield found


@pytest.fixture
def index(tmp_path: Path, home: Path, outsider: tuple[int, list[bytes]]) -> Iterator[Index]:
    """demo-server 1.0.1 only as an sdist whose backend reads the home, calls the outsider, and builds."""
    served = Index(tmp_path / "index")
    served.sdist(PACKAGE, "1.0.1", reporting_backend(outsider[0], [home / ".npmrc", home / ".ssh" / "id_rsa"]))
    with serve(served):
        yield served


def mcp_lock(
    repo: Path, tmp_path: Path, home: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "UV_", "npm_config_", "NPM_CONFIG_"))}
    env.update({
        "HOME": str(home), "MCP_LOCK_STORE": str(tmp_path / "store"), "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "npm_config_cache": str(tmp_path / "npm-cache"), **({"PATH": path} if path else {}),
    })
    command = [sys.executable, "-m", "scanner", args[0], "--repo", str(repo), "--quiet", *args[1:]]
    return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def declare(repo: Path, entry: dict) -> None:
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("uv") is None or shutil.which("npm") is None:
        pytest.fail("uv and npm must be on PATH (the test extra installs uv into the venv)")
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True)
    return folder


def found_by_the_build(tmp_path: Path) -> str:
    reports = list((tmp_path / "store").rglob("found.txt"))
    assert len(reports) == 1, reports
    return reports[0].read_text(encoding="utf-8")


def test_an_allowed_build_reaches_the_index_and_nothing_else(
    repo: Path, tmp_path: Path, home: Path, index: Index, outsider: tuple[int, list[bytes]]
) -> None:
    (repo / "mcp-lock.yaml").write_text(f"build-from-source: [{PACKAGE}]\n", encoding="utf-8")
    declare(repo, {"command": "uvx", "args": [f"{PACKAGE}==1.0.1"], "env": {"UV_DEFAULT_INDEX": index.url}})
    done = mcp_lock(repo, tmp_path, home, "lock")
    assert done.returncode == 0, done.stdout + done.stderr  # built from the index, installed, booted
    assert outsider[1] == [], outsider[1]  # the second listener heard nothing
    assert found_by_the_build(tmp_path).startswith("no network"), found_by_the_build(tmp_path)


def test_an_allowed_build_reads_nothing_of_the_home_and_the_user_s_uv_config_still_applies(
    repo: Path, tmp_path: Path, home: Path, index: Index
) -> None:
    (home / ".config" / "uv").mkdir(parents=True)
    (home / ".config" / "uv" / "uv.toml").write_text(f'index-url = "{index.url}"\n', encoding="utf-8")
    (repo / "mcp-lock.yaml").write_text(f"build-from-source: [{PACKAGE}]\n", encoding="utf-8")
    declare(repo, {"command": "uvx", "args": [f"{PACKAGE}==1.0.1"]})  # the index: the user's uv.toml only
    done = mcp_lock(repo, tmp_path, home, "lock")
    assert done.returncode == 0, done.stdout + done.stderr
    found = found_by_the_build(tmp_path)
    assert NPM_TOKEN not in found and SSH_KEY not in found, found
    assert ".ssh/id_rsa: unreadable" in found, found


def test_the_user_s_npmrc_registry_still_applies(
    repo: Path, tmp_path: Path, home: Path, npm_registry: Registry
) -> None:
    npm_registry.publish("mcp-home-config", "1.0.0", "x")
    (home / ".npmrc").write_text(f"registry={npm_registry.url}\n", encoding="utf-8")
    declare(repo, {"command": "npx", "args": ["-y", "mcp-home-config@1.0.0"]})  # no registry declared
    done = mcp_lock(repo, tmp_path, home, "lock")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mcp-home-config/-/mcp-home-config-1.0.0.tgz" in npm_registry.served


def test_a_tarball_dependency_on_another_host_is_never_fetched(
    repo: Path, tmp_path: Path, home: Path, npm_registry: Registry, outsider: tuple[int, list[bytes]]
) -> None:
    elsewhere = f"http://127.0.0.1:{outsider[0]}/evil-1.0.0.tgz"
    npm_registry.publish("mcp-url-dependency", "1.0.0", "x", dependencies={"evil": elsewhere})
    declare(repo, {"command": "npx", "args": ["-y", "mcp-url-dependency@1.0.0"],
                   "env": {"npm_config_registry": npm_registry.url}})
    done = mcp_lock(repo, tmp_path, home, "lock")
    said = done.stdout + done.stderr
    assert outsider[1] == [], outsider[1]  # npm never reached the other host
    assert done.returncode != 0 and "dependency-source-refused" in said, said
    assert f"127.0.0.1:{outsider[0]}" in said, said


def test_check_fresh_without_bubblewrap_fails_naming_the_fix(repo: Path, tmp_path: Path, home: Path) -> None:
    served = Index(tmp_path / "wheels")
    served.wheel(PACKAGE, "1.0.0", scripts={PACKAGE: SERVER_MODULE})
    with serve(served):
        (repo / "mcp-lock.yaml").write_text("sandbox: off\n", encoding="utf-8")
        declare(repo, {"command": "uvx", "args": [PACKAGE], "env": {"UV_DEFAULT_INDEX": served.url}})
        assert mcp_lock(repo, tmp_path, home, "lock").returncode == 0
        tools = tmp_path / "no-bwrap"
        tools.mkdir()
        for name in ("uv", "uvx", "npm", "node", "git"):
            found = shutil.which(name)
            if found:
                (tools / name).symlink_to(found)
        done = mcp_lock(repo, tmp_path, home, "check", "--fresh", path=str(tools))
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said
    assert "bubblewrap" in said and "--fresh" in said, said
    assert "sandbox: off" not in said.split("bubblewrap", 1)[1], said  # not a fix for --fresh
