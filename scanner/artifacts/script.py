"""A local script the launch names (`node server.js`, `python3 tools/server.py`, `./run.sh`): its sha256.

Its change is in the pull request's own diff, so it is a note, not a blocking finding.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scanner.artifacts.record import FILE
from scanner.files.safe_read import MiB, RefusedFile, read_regular

SCRIPT_LIMIT = 32 * MiB
INTERPRETERS = frozenset(
    {"node", "python", "python3", "bash", "sh", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "php"}
)
SUBCOMMANDS = {"deno": "run", "bun": "run"}
# `python3.11`, `node22`, `php8.2`: a versioned name of an interpreter above (a venv's python often is one).
_VERSIONED = re.compile(r"(?P<name>[a-z-]+?)[0-9][0-9.]*")


def script_artifact(command: str, args: Sequence[str], cwd: str, repo: Path) -> dict[str, Any] | None:
    """The repository file this launch runs, with its sha256; None when it names none inside the repository."""
    candidate = _script(command, list(args))
    if candidate is None:
        return None
    path = Path(cwd, candidate)
    try:
        data = read_regular(path, repo, candidate, SCRIPT_LIMIT)
    except (RefusedFile, OSError):
        return None
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(repo)).replace(os.sep, "/")
    return {"type": FILE, "path": relative, "sha256": hashlib.sha256(data).hexdigest()}


def _script(command: str, args: list[str]) -> str | None:
    runner = posixpath.basename(command.replace("\\", "/"))
    versioned = _VERSIONED.fullmatch(runner)
    if runner not in INTERPRETERS and versioned is not None and versioned["name"] in INTERPRETERS:
        runner = versioned["name"]
    if runner not in INTERPRETERS:
        return command if "/" in command or "\\" in command else None
    if SUBCOMMANDS.get(runner) and args[:1] == [SUBCOMMANDS[runner]]:
        args = args[1:]
    for word in args:
        if word in ("-m", "-c", "-e", "--eval", "-"):
            return None  # a module or inline code: no file named
        if not word.startswith("-"):
            return word
    return None
