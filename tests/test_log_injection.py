"""Server text never becomes a CI log command: GitHub's runner reads `::cmd::` (after leading spaces) and `##[cmd]`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fixture_repo import Repo, base_spec
from test_hostile import add_raw, tool

from scanner.reporters.console import printable, safe, safe_line, stderr_progress

INJECTED = (
    "Fine.\n::stop-commands::pwned\n  ::error title=forged::all clear\r\n##[error]also forged\x1b[2K\u2028::warning::x"
)


def run(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scanner", *args, "--repo", str(repo.root)],
        capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def assert_no_command(process: subprocess.CompletedProcess[str]) -> None:
    for line in (process.stdout + process.stderr).splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line and "\x1b" not in line, line


def test_changed_description_cannot_issue_commands(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert run(repo, "lock").returncode == 0
    spec = base_spec()
    spec["tools"][0]["description"] += " " + INJECTED
    repo.write_spec("notes", spec)
    process = run(repo, "check")
    assert process.returncode == 1, process.stdout + process.stderr
    assert_no_command(process)
    assert "\\n::stop-commands::pwned" in process.stdout  # still shown, escaped


def test_error_answers_and_stderr_cannot_issue_commands(repo: Repo) -> None:
    refusal = {"jsonrpc": "2.0", "id": "ID", "error": {"code": -32603, "message": "::error::forged\nsecond"}}
    add_raw(repo, "refuses", {"pages": [[tool("a")]], "interject": {"tools/list": [refusal]}})
    script = "import sys; sys.stderr.write(" + json.dumps(INJECTED + "\n::add-mask::CRITICAL\n") + "); sys.exit(3)"
    repo.add_entry("crashes", {"command": sys.executable, "args": ["-c", script]})
    process = run(repo, "lock")
    assert process.returncode == 1, process.stdout + process.stderr
    assert_no_command(process)
    assert "with error -32603: ::error::forged" in process.stdout  # one line, inside our own sentence
    assert "stderr: ::add-mask::CRITICAL" in process.stdout  # the stderr tail, a line of ours
    assert "stderr: #\\#[error]also forged" in process.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("a\nb\r\tc", "a\\nb\\r\tc"),
        ("\x00\x7f\x85\u2028", "\\x00\\x7f\\x85\\u2028"),
        ("::error::x", "\\::error::x"),
        ("   ::warning::x", "   \\::warning::x"),
        ("text ##[error] more", "text #\\#[error] more"),
        ("a :: b", "a :: b"),
    ],
)
def test_safe(text: str, expected: str) -> None:
    assert safe(text) == expected
    assert "\n" not in printable(text) and safe_line(safe(text)) == safe(text)


def test_progress_lines_cannot_issue_commands(capsys: pytest.CaptureFixture[str]) -> None:
    stderr_progress("::stop-commands::x\nwaiting ##[error]y")
    assert capsys.readouterr().err == "mcp-lock: \\::stop-commands::x\\nwaiting #\\#[error]y\n"
