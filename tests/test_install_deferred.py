"""A run that installs nothing never loads the install machinery (issue 39 item 2): its first server would wait for it.

`may_install` decides that without scanner.install.resolution; it must say True for every launch `installable`
installs, or that launch would boot uninstalled, its code unpinned.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repo import Repo

from scanner.install.resolution import installable
from scanner.run.installing import may_install
from scanner.sources.declarations import ResolvedLaunch

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "scanner.install.install", "scanner.install.step_room", "scanner.install.resolution", "scanner.install.runner",
    "scanner.install.netgate", "scanner.install.sandboxed",
)

LAUNCHES = [
    ("npx", ("-y", "@modelcontextprotocol/server-memory@2025.4.25")),
    ("npx", ("--yes", "server-everything@1.0.0", "stdio")),
    ("npx", ("some-package",)),
    ("npx", ("-p", "pkg@1.2.3", "cmd")),
    ("npm", ("exec", "--yes", "pkg@1.0.0")),
    ("uvx", ("mcp-server-fetch==2025.4.7",)),
    ("uvx", ("--from", "pkg==1.0", "cmd")),
    ("uv", ("tool", "run", "pkg==1.0")),
    ("uv", ("run", "--with", "pkg==1.0", "pkg")),
    ("node", ("server.js",)),
    ("python", ("-m", "server")),
    ("docker", ("run", "-i", "--rm", "image:tag")),
    ("pnpm", ("dlx", "pkg@1.0.0")),
    ("bunx", ("pkg@1.0.0",)),
    ("pipx", ("run", "pkg==1.0")),
    ("/usr/bin/npx", ("-y", "pkg@1.0.0")),
    ("./bin/server", ()),
    (sys.executable, ("server.py",)),
]


@pytest.mark.parametrize(("command", "args"), LAUNCHES)
def test_every_launch_installable_installs_may_install(command: str, args: tuple[str, ...]) -> None:
    caller = dict(os.environ)  # uv on PATH or not: installable then needs it, may_install never does
    launch = ResolvedLaunch("stdio", command=command, args=args)
    if installable(command, args, caller) is not None:
        assert may_install(launch)


def test_path_commands_and_plain_interpreters_are_never_installed() -> None:
    for command, args in [(sys.executable, ("server.py",)), ("node", ("server.js",)), ("./bin/server", ())]:
        assert not may_install(ResolvedLaunch("stdio", command=command, args=args))
    assert may_install(ResolvedLaunch("stdio", command="npx", args=("-y", "pkg@1.0.0")))


def test_a_lock_of_local_commands_loads_no_install_machinery(repo: Repo) -> None:
    """The lock boots and pins a real server launched by path, and the install modules are never imported."""
    repo.add_stdio("alpha")
    # Read at exit, as the executable ends (its exit handlers run; the interpreter's teardown does not).
    code = (
        "import atexit, runpy, sys\n"
        f"sys.argv = ['mcp-lock', 'lock', '--repo', {str(repo.root)!r}, '--quiet']\n"
        f"atexit.register(lambda: print(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
        "runpy.run_module('scanner', run_name='__main__')\n"
    )
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
    assert repo.lock_path.exists()
