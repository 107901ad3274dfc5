"""Whether a launch can run code from the repository it is declared in.

Deciding which repository files a launch reads cannot be done by listing them: `node .` reads package.json,
`python -c "import srv"` and `bash -c "…"` name no file, a sourceless `json.pyc` beside a script shadows the
standard library, `PYTHONPATH` or a data file reach anywhere. So every stdio launch counts as repository code,
except a package runner (npx, uvx, docker run, … as `scanner.sources.unpinned` reads them) fetching a package
or image by name, with no declared working directory, no word or variable pointing into the repository and no
variable that tells an interpreter where to load code from. Remote (HTTP, SSE) servers run nothing locally.
"""

from __future__ import annotations

import os
from pathlib import Path

from scanner.model.transports import is_local
from scanner.sources.declarations import LaunchTemplate
from scanner.sources.unpinned import launched

# Variables that make an interpreter or the dynamic loader run code from a place they name.
LOADER_VARIABLES = ("PYTHON", "NODE_", "LD_", "DYLD_", "BASH_ENV", "ENV", "PATH", "PERL5", "RUBY", "BUN_", "DENO_")
WORKSPACE = "${workspaceFolder}"


def runs_repository_code(template: LaunchTemplate, repo: Path) -> bool:
    """True unless the launch fetches a package or image by name and points nowhere into the repository."""
    if not is_local(template.transport):
        return False
    if template.cwd is not None or launched(template) is None:
        return True
    if any(name.upper().startswith(LOADER_VARIABLES) for name, _ in template.env):
        return True
    words = [*template.args, *(value for _, value in template.env)]
    return any(_into(part, repo) for word in words for part in word.split("="))


def _into(word: str, repo: Path) -> bool:
    """Whether `word` names a place in the repository: relative (`./x`, `../x`, `.`), the workspace
    placeholder, or an absolute path inside it."""
    if word.startswith(".") or WORKSPACE in word:
        return True
    if not word.startswith("/"):
        return False
    path, root = os.path.normpath(word.split(":", 1)[0]), os.path.normpath(repo.resolve())
    return path == root or path.startswith(root + os.sep)
