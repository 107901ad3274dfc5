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


# What judges a booted server: imported in a worker thread once the first server is spawned (scanner.run.analysis),
# never before it, so that the servers start on the other core while it loads (issue 39 item 2).
ANALYSIS = (
    "scanner.detectors", "scanner.detectors.engine", "scanner.detectors.verdict_cache", "scanner.diff.suspicious",
    "scanner.diff.compare", "scanner.diff.grade", "scanner.diff.schema_validity", "scanner.diff.verdicts",
    "scanner.run.judging", "scanner.run.tree_accept", "scanner.lock.pin", "scanner.lock.writer",
    "scanner.reporters.locate", "scanner.reporters.text_report",
)
# A lock of a new repository reads no lock either: its reader and renderer come with the writer.
LOCK_TEXT = ("scanner.lock.reader", "scanner.lock.render", "scanner.lock.document", "scanner.lock.schema_check")


def declare_raw_server(repo: Path) -> None:
    behaviour = repo / "raw.json"
    behaviour.write_text(json.dumps({"pages": [[{"name": "t", "description": "d", "inputSchema": {}}]]}))
    servers = {"raw": {"command": sys.executable, "args": [str(RAW_SERVER), str(behaviour)]}}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def loaded_at_first_child(repo: Path, command: str = "lock") -> dict[str, list[str]]:
    if command == "lock":
        declare_raw_server(repo)
    done = subprocess.run(
        [sys.executable, "-c", STOP_AT_FIRST_CHILD, str(RAW_SERVER), command, "--repo", str(repo)],
        capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_no_http_client_is_loaded_before_the_first_server_starts(tmp_path: Path) -> None:
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.run.boot" in loaded["modules"]  # it did get as far as booting
    assert [m for m in ("urllib.request", "http.client", "email.message") if m in loaded["modules"]] == []


def test_no_yaml_parser_is_loaded_before_the_first_server_starts(tmp_path: Path) -> None:
    """A repository with no YAML of its own to read (.mcp.json, no policy file) does not wait for PyYAML: the rule
    table comes from its compiled JSON (scanner.model.rules)."""
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.run.boot" in loaded["modules"]
    assert [m for m in loaded["modules"] if m == "yaml" or m.startswith(("yaml.", "_yaml"))] == []


def test_no_detector_pattern_is_compiled_before_the_first_server_starts(tmp_path: Path) -> None:
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.run.boot" in loaded["modules"]
    assert [name for name in loaded["compiled_by"] if "/scanner/detectors/" in name] == []


def test_no_analysis_module_is_loaded_before_the_first_server_starts(tmp_path: Path) -> None:
    loaded = loaded_at_first_child(tmp_path)
    assert "scanner.run.boot" in loaded["modules"]  # it did get as far as booting
    assert [m for m in (*ANALYSIS, *LOCK_TEXT) if m in loaded["modules"]] == []


def test_a_check_loads_no_analysis_module_before_the_first_server_starts(tmp_path: Path) -> None:
    """A check reads its lock before it boots (the reader is in); what judges the servers still comes after."""
    declare_raw_server(tmp_path)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "scanner", "lock", "--repo", str(tmp_path), "--quiet"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = loaded_at_first_child(tmp_path, "check")
    assert "scanner.lock.reader" in loaded["modules"] and "scanner.run.boot" in loaded["modules"]
    assert [m for m in ANALYSIS if m in loaded["modules"]] == []


# mcp-lock as `python -m scanner` runs it, noting the thread that starts importing the first module
# scanner.run.analysis loads (the pins' hashing; the first answer needs it tens of milliseconds after the spawn).
NOTE_IMPORTING_THREAD = r"""
import sys, threading
class Note:
    def find_spec(self, name, path=None, target=None):
        if name == "scanner.lock.pin" and name not in sys.modules:
            print("scanner.lock.pin imported in", threading.current_thread().name, file=sys.stderr)
        return None
sys.meta_path.insert(0, Note())
sys.argv[0] = "mcp-lock"
from scanner.cli.main import main
main()
"""


def test_the_analysis_modules_load_in_their_own_thread_once_a_server_is_spawned(tmp_path: Path) -> None:
    """Not on first use, in the thread that pins each answer: from the first spawn, in scanner.run.analysis's."""
    declare_raw_server(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", NOTE_IMPORTING_THREAD, "lock", "--repo", str(tmp_path), "--quiet"],
        capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scanner.lock.pin imported in analysis-import" in done.stderr.splitlines(), done.stderr
