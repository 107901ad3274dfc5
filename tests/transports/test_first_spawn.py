"""What mcp-lock has loaded when it starts the first server: every server of a live check waits for that, so
nothing a stdio boot does not use belongs before it (issue 39 item 3, bench/live_overhead.py). A real `mcp-lock
lock` of a real stdio server, stopped when it spawns the server. bwrap's probe runs in a thread alongside the
imports (scanner.transports.sandbox_warm), so it is let through: stopping at whichever child came first made the
test depend on that race (it failed in CI when the probe won)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAW_SERVER = ROOT / "tests" / "fixtures" / "servers" / "raw_server.py"

# mcp-lock as `python -m scanner` runs it; at the first child process that launches the server (sys.argv[1]
# names its script) it prints what was loaded and which of the project's files had compiled a regular
# expression, then exits without starting it. Other children (bwrap's probe) start as usual.
STOP_AT_FIRST_CHILD = r"""
import json, os, re, subprocess, sys
compiled_by = set()
compile_ = re._compile
def noted(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.endswith(("re/__init__.py", "enum.py")):
        frame = frame.f_back
    if frame is not None:
        compiled_by.add(frame.f_code.co_filename)
    return compile_(pattern, flags)
re._compile = noted
execute_child = subprocess.Popen._execute_child
server_script = sys.argv.pop(1)
def stop(self, args, *rest, **kwargs):
    if not any(server_script in str(arg) for arg in (args if isinstance(args, (list, tuple)) else [args])):
        return execute_child(self, args, *rest, **kwargs)
    print(json.dumps({"modules": sorted(sys.modules), "compiled_by": sorted(compiled_by), "child": list(args)}))
    sys.stdout.flush()
    os._exit(0)
subprocess.Popen._execute_child = stop
sys.argv[0] = "mcp-lock"
from scanner.cli.main import main
main()
"""


def loaded_at_first_child(repo: Path) -> dict[str, list[str]]:
    behaviour = repo / "raw.json"
    behaviour.write_text(json.dumps({"pages": [[{"name": "t", "description": "d", "inputSchema": {}}]]}))
    servers = {"raw": {"command": sys.executable, "args": [str(RAW_SERVER), str(behaviour)]}}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    done = subprocess.run(
        [sys.executable, "-c", STOP_AT_FIRST_CHILD, str(RAW_SERVER), "lock", "--repo", str(repo)],
        capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_no_http_client_is_loaded_before_the_first_server_starts(tmp_path: Path) -> None:
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.run.boot" in loaded["modules"]  # it did get as far as booting
    assert [m for m in ("urllib.request", "http.client", "email.message") if m in loaded["modules"]] == []


def test_no_detector_pattern_is_compiled_before_the_first_server_starts(tmp_path: Path) -> None:
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.detectors.argument_override" in loaded["modules"]  # the detectors are loaded, not compiled
    assert [name for name in loaded["compiled_by"] if "/scanner/detectors/" in name] == []
