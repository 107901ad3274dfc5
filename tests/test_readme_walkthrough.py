"""The README's five-minute walkthrough, run for real on a copy of examples/demo: its console blocks are
what mcp-lock prints, so the README cannot drift from the tool."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent


def console_block(command: str) -> str:
    """The output shown under `$ COMMAND` in the README's walkthrough (indentation removed)."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"```console\n(\s*)\$ {re.escape(command)}\n(.*?)\n\s*```", text, re.S)
    assert match is not None, f"no console block for `{command}` in README.md"
    indent = match[1]
    return "\n".join(line.removeprefix(indent) for line in match[2].splitlines()) + "\n"


def step_command(pattern: str) -> str:
    match = re.search(pattern, README.read_text(encoding="utf-8"))
    assert match is not None, pattern
    return match[1]


def mcp_lock(demo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run(
        [str(BIN / "mcp-lock"), *args], cwd=demo, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_walkthrough_prints_what_the_readme_shows(tmp_path: Path) -> None:
    demo = tmp_path / "notes"
    shutil.copytree(ROOT / "examples" / "demo", demo, ignore=shutil.ignore_patterns("mcp-lock.json"))
    listed = mcp_lock(demo, "list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == console_block("mcp-lock list")
    locked = mcp_lock(demo, "lock", "-q")
    assert locked.returncode == 0, locked.stdout + locked.stderr
    assert step_command(r"writes `mcp-lock\.json` \(`([^`]+)`\)") in locked.stdout
    checked = mcp_lock(demo, "check", "-q")
    assert checked.returncode == 0 and step_command(r"boots them again: `([^`]+)`") in checked.stdout
    edit = step_command(r"```sh\n\s*sed -i '(s\|[^']+)' server\.py\n")
    old, new = edit.removeprefix("s|").removesuffix("|").split("|")
    server = demo / "server.py"
    source = server.read_text(encoding="utf-8")
    assert old in source
    server.write_text(source.replace(old, new), encoding="utf-8")
    drifted = mcp_lock(demo, "check", "-q")
    assert drifted.returncode == 1
    assert drifted.stdout == console_block("mcp-lock check -q")
    updated = mcp_lock(demo, "update", "notes", "-q")
    assert updated.returncode == 0 and "accepted notes: tool `search_notes` changed" in updated.stdout, updated.stdout
