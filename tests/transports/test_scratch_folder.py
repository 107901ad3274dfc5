"""A boot's scratch folder outlives none of its boots: an unsandboxed server's TMPDIR is a host folder made for its
process and removed once it is ended; a sandboxed server's is its sandbox's private /tmp, so none is made on the
host. A run that ends abruptly mid-boot (killed, os._exit: no cleanup of its own runs) once left one behind per
sandboxed boot, in /tmp (tests/transports/test_first_spawn stops mcp-lock that way: five a run of the suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from test_hostile import tool

from scanner.run.boot import boot_one
from transports.test_channel import raw_launch
from transports.test_first_spawn import RAW_SERVER, ROOT, declare_raw_server

# mcp-lock as `python -m scanner` runs it, ending at once (os._exit, no exit handler, no `finally`) when it starts
# the server (sys.argv[1] names its script): as a SIGKILL or an OOM kill would end it mid-boot.
ENDED_AT_THE_SPAWN = r"""
import os, subprocess, sys
execute_child = subprocess.Popen._execute_child
server_script = sys.argv.pop(1)
def ended(self, args, *rest, **kwargs):
    if any(server_script in str(arg) for arg in (args if isinstance(args, (list, tuple)) else [args])):
        print("spawning the server", flush=True)
        os._exit(0)
    return execute_child(self, args, *rest, **kwargs)
subprocess.Popen._execute_child = ended
sys.argv[0] = "mcp-lock"
from scanner.cli.main import main
main()
"""


def test_a_run_ended_abruptly_as_it_starts_a_sandboxed_server_leaves_no_folder(tmp_path: Path) -> None:
    repo, temp = tmp_path / "repo", tmp_path / "tmp"
    repo.mkdir()
    temp.mkdir()
    declare_raw_server(repo)
    done = subprocess.run(
        [sys.executable, "-c", ENDED_AT_THE_SPAWN, str(RAW_SERVER), "lock", "--repo", str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TMPDIR": str(temp)},
    )
    assert done.returncode == 0 and done.stdout.splitlines()[-1:] == ["spawning the server"], done.stderr[-2000:]
    assert sorted(os.listdir(temp)) == []


def test_an_unsandboxed_servers_tmpdir_is_its_own_folder_removed_once_it_is_ended(tmp_path: Path) -> None:
    record = tmp_path / "env.json"
    launch = raw_launch(tmp_path, {"pages": [[tool("a")]], "record_env": str(record)})
    result = anyio.run(lambda: boot_one("s", launch, tmp_path, timeout=30, sandbox="off"))
    assert result.snapshot is not None, result.error
    folder = Path(json.loads(record.read_text(encoding="utf-8"))["TMPDIR"])
    assert folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith("mcp-lock-")
    assert not folder.exists()
