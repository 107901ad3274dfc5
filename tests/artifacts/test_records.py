"""Reading each package manager's record: container engines at process level (no engine runs here), and
npm's and uv's files as those tools lay them out."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from scanner.artifacts import image
from scanner.artifacts.image import image_artifact
from scanner.artifacts.npm import npm_artifact, npx_hash
from scanner.artifacts.resolve import resolved_artifact
from scanner.artifacts.script import script_artifact
from scanner.artifacts.uv import pypi_artifact
from scanner.artifacts.view import View
from scanner.sources.declarations import ResolvedLaunch

DIGEST = "sha256:" + "ab" * 32
FORMAT = "{{json .RepoDigests}}"


def engine(tmp_path: Path, name: str = "docker") -> tuple[str, dict[str, str]]:
    binary = tmp_path / "bin" / name
    binary.parent.mkdir(exist_ok=True)
    binary.write_text("#!/bin/sh\nexit 1\n")
    binary.chmod(0o755)
    return str(binary), {"PATH": str(binary.parent)}


def test_image_digest_is_the_repository_digest_docker_records(fp, tmp_path: Path) -> None:
    docker, env = engine(tmp_path)
    reference = "ghcr.io/acme/mcp:1.2"
    answer = json.dumps(["mirror.example/acme/mcp@sha256:" + "ef" * 32, f"ghcr.io/acme/mcp@{DIGEST}"])
    fp.register([docker, "image", "inspect", "--format", FORMAT, reference], stdout=f"{answer}\n")
    assert image_artifact("docker", reference, env) == {"type": "image", "name": reference, "digest": DIGEST}


def test_a_locally_built_image_is_not_recorded(fp, tmp_path: Path) -> None:
    podman, env = engine(tmp_path, "podman")  # its id differs on every machine: pinning it would fail them all
    fp.register([podman, "image", "inspect", "--format", FORMAT, "local/mcp"], stdout="[]\n")
    assert image_artifact("podman", "local/mcp", env) is None


def test_an_engine_that_fails_or_hangs_records_nothing(fp, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(image, "INSPECT_TIMEOUT", 0.2)
    docker, env = engine(tmp_path)
    fp.register([docker, "image", "inspect", "--format", FORMAT, "gone"], returncode=1, stderr="No such image")
    fp.register([docker, "image", "inspect", "--format", FORMAT, "slow"], wait=1.0)
    assert image_artifact("docker", "gone", env) is None
    assert image_artifact("docker", "slow", env) is None
    assert image_artifact("docker", "x", {"PATH": str(tmp_path / "nowhere")}) is None


def npx_install(cache: Path, spec: str, name: str, version: str, integrity: str) -> Path:
    folder = cache / "_npx" / npx_hash([spec])
    folder.mkdir(parents=True)
    lock = {"name": folder.name, "lockfileVersion": 3, "packages": {
        "": {"dependencies": {name: f"^{version}"}},
        f"node_modules/{name}": {"version": version, "resolved": "http://127.0.0.1/x.tgz", "integrity": integrity},
    }}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    return folder


def test_npm_record_of_the_npx_install_the_server_runs_from(tmp_path: Path, host: View) -> None:
    cache = tmp_path / "cache"
    own = npx_install(cache, "@acme/mcp", "@acme/mcp", "2.0.0", "sha512-AAAA")
    other = npx_install(cache, "@acme/mcp@1", "@acme/mcp", "1.0.0", "sha512-BBBB")
    wanted = {"type": "npm", "name": "@acme/mcp", "version": "2.0.0", "integrity": "sha512-AAAA"}
    running = [["sh", "-c", "x"], ["node", f"{other}/node_modules/.bin/x"], ["node", f"{own}/node_modules/.bin/x"]]
    assert npm_artifact("@acme/mcp", "@acme/mcp", running, str(cache), host) == wanted  # npx's own folder for the spec
    assert npm_artifact("@acme/mcp", "@acme/mcp@latest", running[:2], str(cache), host)["version"] == "1.0.0"
    # No process runs from the npx cache (a package from the repository's node_modules): an older install
    # in the cache says nothing about this boot.
    assert npm_artifact("@acme/mcp", "@acme/mcp", [["node", "/repo/node_modules/.bin/x"]], str(cache), host) is None


def test_a_process_naming_an_install_outside_the_cache_is_not_believed(tmp_path: Path, host: View) -> None:
    forged = npx_install(tmp_path / "forged", "x", "@acme/mcp", "1.0.0", "sha512-OLD")
    running = [["node", f"{forged}/node_modules/.bin/acme-mcp"]]
    assert npm_artifact("@acme/mcp", "@acme/mcp@latest", running, str(tmp_path / "cache"), host) is None


def test_pypi_record_from_the_tool_environment_and_uvs_wheel_cache(tmp_path: Path, host: View) -> None:
    cache = tmp_path / "uv"
    environment = cache / "archive-v0" / "AbC123"
    dist_info = environment / "lib" / "python3.12" / "site-packages" / "mcp_server_x-1.2.3.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "WHEEL").write_text("Wheel-Version: 1.0\nTag: py3-none-any\n")
    entry = cache / "wheels-v8" / "pypi" / "mcp-server-x" / "1.2.3-py3-none-any.http"
    entry.parent.mkdir(parents=True)
    wheel, sha = "mcp_server_x-1.2.3-py3-none-any.whl", "5c" * 32
    # uv's header: [archive id, [{"Sha256": hex}], file name, ...] in MessagePack, then the rest of the entry.
    header = b"\x93\xa6AbC123\x91\x81\xa6Sha256\xd9\x40" + sha.encode() + b"\xd9" + bytes([len(wheel)]) + wheel.encode()
    entry.write_bytes(header + b"\x00\xff" * 20)
    running = [[f"{environment}/bin/python", f"{environment}/bin/mcp-server-x"]]
    assert pypi_artifact("mcp_server_x", running, str(tmp_path / "elsewhere"), host) is None
    assert pypi_artifact("mcp_server_x", running, str(cache), host) == {
        "type": "pypi", "name": "mcp-server-x", "version": "1.2.3", "file": wheel, "sha256": sha
    }
    entry.write_bytes(b"\xdf\xff\xff\xff\xff")  # a corrupt entry: version only
    version_only = {"type": "pypi", "name": "mcp-server-x", "version": "1.2.3"}
    assert pypi_artifact("mcp-server-x", running, str(cache), host) == version_only


def test_a_script_inside_the_repository_is_hashed_one_outside_is_not(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    (repo / "tools" / "server.py").write_bytes(b"print('hi')\n")
    record = script_artifact("python3", ["-u", "tools/server.py"], str(repo), repo)
    assert record == {"type": "file", "path": "tools/server.py", "sha256": hashlib.sha256(b"print('hi')\n").hexdigest()}
    (tmp_path / "outside.py").write_text("x")
    assert script_artifact("node", [str(tmp_path / "outside.py")], str(repo), repo) is None
    assert script_artifact("python3", ["-m", "tools.server"], str(repo), repo) is None


def test_a_docker_launch_is_inspected_by_the_engine_the_launch_names(fp, tmp_path: Path, monkeypatch) -> None:
    docker, env = engine(tmp_path)
    monkeypatch.setenv("PATH", env["PATH"])
    answer = json.dumps([f"ghcr.io/acme/mcp@{DIGEST}"])
    fp.register([docker, "image", "inspect", "--format", FORMAT, "ghcr.io/acme/mcp:1"], stdout=f"{answer}\n")
    launch = ResolvedLaunch("stdio", "docker", ("run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/mcp:1"))
    record = resolved_artifact(launch, os.getpid(), {}, str(tmp_path), tmp_path)
    assert record == {"type": "image", "name": "ghcr.io/acme/mcp:1", "digest": DIGEST}
