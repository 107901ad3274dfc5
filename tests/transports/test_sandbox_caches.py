"""A sandboxed npx or uvx server cannot plant code in the caller's npm or uv cache for a later unsandboxed run,
nor in mcp-lock's store, from which it boots read-only.

The package (tests/fixtures/servers/npm_cache_probe) is served by a minimal npm registry on 127.0.0.1 (a
packument and a tarball) and installed into a throwaway caller cache by a real, unsandboxed `npx` first, as
a developer's or CI's earlier run would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fixture_repo import FIXTURES, Repo
from test_policy import write_policy

from transports.test_sandbox import described

PACKAGE = FIXTURES / "servers" / "npm_cache_probe"
UV_SERVER = FIXTURES / "servers" / "uv_cache_probe" / "server.py"
needs_npx = pytest.mark.skipif(shutil.which("npx") is None, reason="needs npm's npx")
UVX = shutil.which("uvx") or shutil.which("uvx", path=str(Path(sys.executable).parent))


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (links as their target text) and its SHA-256."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(root))] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


NAME, VERSION = "mcp-lock-cache-probe", "1.0.0"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    """The registry's URL, serving NAME@VERSION packed from the fixture."""
    source = tmp_path / "package"
    shutil.copytree(PACKAGE, source)
    env = {**os.environ, "npm_config_cache": str(tmp_path / "pack-cache")}
    packed = subprocess.run(
        ["npm", "pack", "--silent", "--pack-destination", str(tmp_path)],
        cwd=source, capture_output=True, text=True, timeout=60, env=env,
    )
    assert packed.returncode == 0, packed.stderr
    tarball = (tmp_path / packed.stdout.strip().splitlines()[-1]).read_bytes()
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    dist = {
        "tarball": f"{url}{NAME}/-/{NAME}-{VERSION}.tgz",
        "shasum": hashlib.sha1(tarball).hexdigest(),
        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode(),
    }
    manifest = json.loads((PACKAGE / "package.json").read_text())
    packument = {"name": NAME, "dist-tags": {"latest": VERSION}, "versions": {VERSION: {**manifest, "dist": dist}}}
    answers = {f"/{NAME}": json.dumps(packument).encode(), f"/{NAME}/-/{NAME}-{VERSION}.tgz": tarball}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = answers.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url
    server.shutdown()
    server.server_close()


@needs_npx
def test_a_server_cannot_write_the_callers_npm_cache(repo: Repo, tmp_path: Path, registry: str) -> None:
    cache = tmp_path / "npm-cache"
    spec = f"{NAME}@{VERSION}"
    caller = {**os.environ, "npm_config_cache": str(cache), "npm_config_registry": registry}
    warm = subprocess.run(["npx", "-y", spec], input="", capture_output=True, text=True, timeout=60, env=caller)
    assert warm.returncode == 0, warm.stderr
    (entry,) = (cache / "_npx").iterdir()  # what a plain `npx` runs from now on
    before = tree_digest(cache)

    declared = {"npm_config_registry": registry, "npm_config_update_notifier": "false"}
    repo.add_entry("probe", {"command": "npx", "args": ["-y", spec, "--attack"], "env": declared})
    write_policy(repo, "network: deny\n")  # and so offline: the caller's warm cache is all npx may use
    store = tmp_path / "store"
    result = repo.run("lock", env={"npm_config_cache": str(cache), "MCP_LOCK_STORE": str(store)})
    assert result.exit_code == 0, result.output
    outcome = json.loads(described(repo, "probe", "outcome"))
    assert outcome["own file"] in ("EROFS", "EACCES")  # it runs from mcp-lock's store entry: read-only
    assert outcome["cache root"] != "written"  # and is given no cache of the caller's to write
    # mcp-lock's own npm (resolving, outside the sandbox) refreshes its registry records there; what a later
    # plain npx runs is unchanged, and nothing was planted.
    assert {k: v for k, v in tree_digest(cache).items() if k.startswith("_npx/")} == {
        k: v for k, v in before.items() if k.startswith("_npx/")
    }
    assert not list(cache.rglob("planted.txt"))
    assert not (entry / "node_modules" / NAME / "bin" / "server.js").read_text().endswith("scanned server\n")
    (installed,) = [p for p in store.iterdir() if not p.name.startswith(".")]
    assert not (installed / "node_modules" / NAME / "bin" / "server.js").read_text().endswith("scanned server\n")


def build_wheel(folder: Path) -> Path:
    """A pure-Python wheel of UV_SERVER as module `mcp_lock_uv_probe`, command `mcp-lock-uv-probe`."""
    info = "mcp_lock_uv_probe-1.0.0.dist-info"
    files = {
        "mcp_lock_uv_probe/__init__.py": UV_SERVER.read_bytes(),
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: mcp-lock-uv-probe\nVersion: 1.0.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": b"[console_scripts]\nmcp-lock-uv-probe = mcp_lock_uv_probe:main\n",
    }
    record = [f"{name},sha256={_urlsafe(hashlib.sha256(data).digest())},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    wheel = folder / "mcp_lock_uv_probe-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def _urlsafe(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


@pytest.mark.skipif(UVX is None, reason="needs uv's uvx")
def test_a_server_cannot_write_the_callers_uv_cache(repo: Repo, tmp_path: Path) -> None:
    assert UVX is not None
    cache, wheels = tmp_path / "uv-cache", repo.root / "wheels"
    wheels.mkdir()
    build_wheel(wheels)
    args = ["--offline", "--find-links", str(wheels), "mcp-lock-uv-probe==1.0.0"]
    python = {"UV_PYTHON": sys.executable, "UV_NO_CONFIG": "1"}
    caller = {**os.environ, "UV_CACHE_DIR": str(cache), **python}
    warm = subprocess.run([UVX, *args], input="", capture_output=True, text=True, timeout=120, env=caller, cwd="/")
    assert warm.returncode == 0, warm.stderr
    before = tree_digest(cache)

    repo.add_entry("probe", {"command": "uvx", "args": [*args, "--attack"], "env": python})
    write_policy(repo, "network: deny\n")
    path = f"{Path(UVX).parent}{os.pathsep}{os.environ['PATH']}"
    result = repo.run("lock", env={"UV_CACHE_DIR": str(cache), "PATH": path})
    assert result.exit_code == 0, result.output
    # --find-links: a launch mcp-lock does not install itself, so uv builds the environment in the sandbox's
    # private cache, which the server may write; the caller's cache stays as it was.
    assert tree_digest(cache) == before
