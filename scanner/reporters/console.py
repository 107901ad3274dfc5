"""Lines for a terminal or a CI log: server text made safe to print, and progress on stderr.

A description, an error message or a stderr line comes from the server. Printed as it is, a newline in
it starts a line of its own, and a CI runner reads some lines as commands: GitHub's runner takes a line
that starts with `::` (after any leading spaces) as a workflow command (`::stop-commands::` would hide
every annotation after it, `::error::` would forge one) and `##[command]` anywhere in a line as the old
form. So control characters are written as escapes, and command openers get a backslash.
"""

from __future__ import annotations

import re
import sys

# C0 and C1 controls (tab kept), DEL, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def printable(text: str) -> str:
    """`text` on one line, every control character written as an escape."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    return _ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def safe_line(line: str) -> str:
    """A line no CI runner reads as a command (the text stays readable: a backslash is added)."""
    stripped = line.lstrip()
    if stripped.startswith("::"):
        line = line[: len(line) - len(stripped)] + "\\" + stripped
    return line.replace("##[", "#\\#[")


def safe(text: str) -> str:
    """Server text for a line of its own: `printable`, then `safe_line`."""
    return safe_line(printable(text))


def stderr_progress(message: str) -> None:
    """A progress line on stderr, for a command's `progress` callback."""
    print(f"mcp-lock: {safe(message)}", file=sys.stderr, flush=True)
