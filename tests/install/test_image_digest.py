"""Issue 35, item 10: a container launch still equal to its pin boots by the image digest the lock records,
never by what its tag names today. No engine runs here: a `docker` on PATH that answers `image inspect` as the
engine does and, for `run`, logs its arguments and starts the SDK fixture server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from fixture_repo import SPEC_SERVER, Repo, base_spec

from scanner.run.image_pin import digest_args

OLD, NEW = "sha256:" + "a" * 64, "sha256:" + "b" * 64
FAKE_DOCKER = """#!{python}
import json, os, subprocess, sys
state = {state!r}
if sys.argv[1:3] == ["image", "inspect"]:
    reference = sys.argv[-1]  # by digest: that image; by tag: what the tag names now
    digest = reference.split("@", 1)[1] if "@" in reference else open(state).read().strip()
    print(json.dumps(["ghcr.io/acme/mcp@" + digest]))
    sys.exit(0)
with open({log!r}, "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
os.execv({python!r}, [{python!r}, {server!r}, {spec!r}])
"""


def test_a_pinned_container_launch_boots_the_recorded_digest(repo: Repo, tmp_path: Path) -> None:
    bin_dir, state, log = tmp_path / "bin", tmp_path / "digest", tmp_path / "runs.log"
    bin_dir.mkdir()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(base_spec()), encoding="utf-8")
    docker = bin_dir / "docker"
    docker.write_text(
        FAKE_DOCKER.format(python=sys.executable, state=str(state), log=str(log), server=str(SPEC_SERVER),
                           spec=str(spec)),
        encoding="utf-8",
    )
    docker.chmod(0o755)
    state.write_text(OLD, encoding="utf-8")
    (repo.root / "mcp-lock.yaml").write_text("sandbox: off\n", encoding="utf-8")
    repo.add_entry("img", {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/acme/mcp:1"]})
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    old_path = os.environ["PATH"]
    os.environ["PATH"] = env["PATH"]  # the engine record is asked with mcp-lock's own PATH
    try:
        assert repo.run("lock", env=env).exit_code == 0
        assert repo.lock_json()["servers"]["img"]["launch"]["artifact"]["digest"] == OLD
        state.write_text(NEW, encoding="utf-8")  # the tag moved on this runner
        check = repo.run("check", env=env)
    finally:
        os.environ["PATH"] = old_path
    runs = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert runs[-1] == ["run", "-i", "--rm", f"ghcr.io/acme/mcp@{OLD}"], runs
    assert check.exit_code == 0, check.output


def test_only_the_image_word_is_rewritten() -> None:
    artifact = {"type": "image", "name": "acme/mcp:1", "digest": OLD}
    assert digest_args("docker", ("run", "-e", "X=1", "-i", "acme/mcp:1", "--flag"), artifact) == (
        "run", "-e", "X=1", "-i", f"acme/mcp@{OLD}", "--flag",
    )
    assert digest_args("docker", ("run", "other/image:1"), artifact) is None  # another image than the record
    assert digest_args("docker", ("run", "acme/mcp:1"), {**artifact, "digest": "latest"}) is None
    assert digest_args("npx", ("run", "acme/mcp:1"), artifact) is None
