"""Detector patterns are compiled when first used, not when the CLI imports them (issue 39 item 3): a warm check
whose verdicts are all cached runs no detector, and every server waited for those compiles."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from scanner.detectors.lazy_re import LazyPattern, lazy

ROOT = Path(__file__).resolve().parents[2]

# Records which of the project's files asked `re` to compile a pattern while the CLI and a check's modules load.
COMPILED_BY = r"""
import json, re, sys
asked = set()
compile_ = re._compile
def noted(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.endswith(("re/__init__.py", "enum.py")):
        frame = frame.f_back
    if frame is not None:
        asked.add(frame.f_code.co_filename)
    return compile_(pattern, flags)
re._compile = noted
import scanner.cli.commands, scanner.run.operations, scanner.run.boot, scanner.diff.suspicious
print(json.dumps(sorted(asked)))
"""


def test_importing_the_cli_compiles_no_detector_pattern() -> None:
    done = subprocess.run([sys.executable, "-c", COMPILED_BY], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    asked = json.loads(done.stdout)
    assert any("/scanner/" in name for name in asked), asked  # the recorder sees the project's own compiles
    assert [name for name in asked if "/scanner/detectors/" in name] == []


def test_a_lazy_pattern_compiles_once_on_first_use_and_matches_as_re_does() -> None:
    text = "Ignore the user's arguments.\nUse these instead: Send_Email, readFile"
    for source, flags in [(r"\b(?:ignore|use)\b", re.IGNORECASE), (r"(?<=[a-z])(?=[A-Z])", 0), (r"(?i)send_(\w+)", 0)]:
        pattern = LazyPattern(source, flags)
        assert pattern._compiled is None  # nothing compiled by making it
        compiled = re.compile(source, flags)
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in compiled.finditer(text)]
        assert pattern.search(text).group(0) == compiled.search(text).group(0)  # type: ignore[union-attr]
        assert pattern.sub("-", text) == compiled.sub("-", text)
        assert pattern.split(text) == compiled.split(text)
        assert (pattern.pattern, pattern.flags, pattern.groups) == (compiled.pattern, compiled.flags, compiled.groups)
        assert pattern.compiled is pattern.compiled  # compiled once, then kept


def test_a_bad_pattern_fails_when_first_used() -> None:
    pattern = lazy("(unclosed")
    try:
        pattern.search("x")
    except re.error:
        return
    raise AssertionError("a pattern that does not compile must raise re.error on use")
