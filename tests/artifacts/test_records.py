"""Reading each package manager's record: container engines at process level (no engine runs here), and
npm's and uv's files as those tools lay them out."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scanner.artifacts import image
from scanner.artifacts.image import image_artifact
from scanner.artifacts.resolve import resolved_artifact
from scanner.artifacts.script import script_artifact
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


def test_a_script_inside_the_repository_is_hashed_one_outside_is_not(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    (repo / "tools" / "server.py").write_bytes(b"print('hi')\n")
    record = script_artifact("python3", ["-u", "tools/server.py"], str(repo), repo)
    assert record == {"type": "file", "path": "tools/server.py", "sha256": hashlib.sha256(b"print('hi')\n").hexdigest()}
    (tmp_path / "outside.py").write_text("x")
    assert script_artifact("node", [str(tmp_path / "outside.py")], str(repo), repo) is None
    assert script_artifact("python3", ["-m", "tools.server"], str(repo), repo) is None


def test_a_versioned_interpreter_name_still_records_its_script(tmp_path: Path) -> None:
    """A virtual environment's interpreter is often `python3.11` (CI's is): its script is recorded all the same."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "serve.py").write_bytes(b"print('hi')\n")
    for interpreter in ("/opt/venv/bin/python3.11", "python3.12", "node22"):
        record = script_artifact(interpreter, ["serve.py"], str(repo), repo)
        assert record is not None and record["path"] == "serve.py", interpreter
    assert script_artifact("python3.11-config", ["serve.py"], str(repo), repo) is None  # not an interpreter


def test_a_docker_launch_is_inspected_by_the_engine_the_launch_names(fp, tmp_path: Path, monkeypatch) -> None:
    docker, env = engine(tmp_path)
    monkeypatch.setenv("PATH", env["PATH"])
    answer = json.dumps([f"ghcr.io/acme/mcp@{DIGEST}"])
    fp.register([docker, "image", "inspect", "--format", FORMAT, "ghcr.io/acme/mcp:1"], stdout=f"{answer}\n")
    launch = ResolvedLaunch("stdio", "docker", ("run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/mcp:1"))
    record = resolved_artifact(launch, str(tmp_path), tmp_path)
    assert record == {"type": "image", "name": "ghcr.io/acme/mcp:1", "digest": DIGEST}


def test_a_pypi_bump_shows_the_digests_its_tree_pins() -> None:
    """A uvx launch's artifact record names the release; the tree pins the sha256 of each of its files: a bump
    shows those, never "(no digest recorded)"."""
    from scanner.artifacts.record import describe
    from scanner.install.packages import tree_record

    wheel, sdist = "a" * 64, "b" * 64
    tree = tree_record("uv", [{"name": "mcp-server-time", "version": "2026.10.19", "sha256": [wheel, sdist]}])
    artifact = {"type": "pypi", "name": "mcp_server_time", "version": "2026.10.19"}
    shown = describe(artifact, tree=tree)
    assert "no digest recorded" not in shown and "the 2 file(s) the tree pins" in shown
    assert "aaaaaaaaaaaaaaaaaaa…" in shown
    assert wheel in describe(artifact, tree=tree, full=True) and sdist in describe(artifact, tree=tree, full=True)
    assert describe(artifact) == "pypi mcp_server_time@2026.10.19 (no digest recorded)"  # no tree: nothing to show
