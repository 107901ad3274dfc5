"""No orphans: every process mcp-lock starts is waited for, and none outlives the run, sandboxed or not.

mcp-lock runs under a wrapper that is a child subreaper (PR_SET_CHILD_SUBREAPER), as a CI runner or a
container's init is: any process of the run left without a parent would be reparented to it. Before, while
`check` ran, each sandbox's `[bwrap] <defunct>` was; and with `sandbox: off`, as root, a daemon that moved
itself to the root cgroup outlived the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from fixture_repo import Repo
from test_policy import write_policy

from transports.test_sandbox import add_attacker

ROOT = Path(__file__).parents[2]

# Becomes a subreaper, runs the command, waits for it, then lists every process reparented to it (each one
# a process of the run that outlived its parent), kills and reaps them.
SUBREAPER = r"""
import ctypes, json, os, signal, subprocess, sys, time
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    raise SystemExit("prctl failed")
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
stderr = child.stderr.read()
code = child.wait()
time.sleep(0.5)  # what the kernel reparents on the run's exit arrives at once; give it a moment anyway
adopted = []
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/children") as children:
        for pid in children.read().split():
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    name, rest = stat.read().split(" (", 1)[1].rsplit(") ", 1)
                adopted.append(f"{name} {rest.split()[0]}")  # e.g. "bwrap Z": a zombie
            except OSError:
                adopted.append(pid)
            try:
                os.kill(int(pid), signal.SIGKILL)
                os.waitpid(int(pid), 0)
            except OSError:
                pass
print(json.dumps([code, adopted, stderr[-3000:].decode("utf-8", "replace")]))
"""


def run_under_subreaper(repo: Repo, *args: str) -> tuple[int, list[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", SUBREAPER, sys.executable, "-m", "scanner", *args, "--repo", str(repo.root)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=True)
    code, adopted, stderr = json.loads(done.stdout)
    return code, adopted, stderr


@pytest.mark.parametrize("mode", ["on", "off"])
def test_no_process_of_a_run_is_reparented(repo: Repo, mode: str) -> None:
    for index in range(3):
        add_attacker(repo, f"server{index}", {"fork": 3})
    write_policy(repo, f"sandbox: {mode}\n")
    code, adopted, stderr = run_under_subreaper(repo, "lock")
    assert code == 0, stderr
    assert adopted == []
    code, adopted, stderr = run_under_subreaper(repo, "check")
    assert code == 0, stderr
    assert adopted == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can move a process to the root cgroup")
def test_sandbox_off_a_daemon_that_left_the_cgroup_does_not_outlive_the_run(repo: Repo) -> None:
    marker = f"mcp-lock-test-daemon-{uuid.uuid4().hex}"
    add_attacker(repo, "daemon", {"daemon": marker, "leave_cgroup": True})
    write_policy(repo, "sandbox: off\n")
    code, adopted, stderr = run_under_subreaper(repo, "lock")
    assert code == 0, stderr
    assert adopted == []
