"""The one way mcp-lock opens a git repository and runs git: no repository config can execute anything.

A scanned folder can hold an embedded git directory (`HEAD`, `objects`, `refs` and a `config` naming
`core.fsmonitor = <command>`); gitpython would take it for the repository and git would run the command on the
first `status` or `diff`. So the work tree is found only from a real `.git`, a folder that looks like a git
directory on the way up is refused, and every git process gitpython starts gets, through `GIT_CONFIG_*` (the
same precedence as `git -c`, after the system, global and repository files), settings that switch off every
config key that runs a command: fsmonitor, hooks, external diff, textconv and the filter drivers the config
defines, ssh, pager, askpass and credential helpers. System and global config otherwise stay in force.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import git

# Config keys that run a program, each set to a value that runs nothing.
NEUTRAL_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("diff.external", ""),
    ("core.sshCommand", "ssh"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("gpg.program", "false"),
    ("safe.bareRepository", "explicit"),  # git itself never takes a folder without .git for a repository
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
# Per-driver keys that name a command (`filter.<driver>.clean`, `diff.<driver>.textconv`, …): emptied.
DRIVER_KEYS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command"), "merge": ("driver",)}
GIT_ENVIRONMENT = {"GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
# What makes a folder a git directory (gitpython's and git's own test).
GIT_DIR_MARKERS = ("HEAD", "objects", "refs")


class EmbeddedGitDir(Exception):
    """A folder in or above the scanned tree that is a git directory without being a `.git`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(
            f"{folder} is a git directory ({', '.join(GIT_DIR_MARKERS)}) that is not a .git: refusing to use it, "
            "since its config could run commands; mcp-lock reads history only from a repository's .git"
        )


class NoWorktree(Exception):
    """No `.git` in `directory` or any folder above it."""


def find_root(directory: Path) -> Path:
    """The top of the work tree holding `directory`: the nearest folder above (or at) it with a `.git`.

    EmbeddedGitDir when a folder on the way is itself a git directory; NoWorktree when no `.git` is found.
    """
    for folder in (directory, *directory.parents):
        if os.path.lexists(folder / ".git"):
            if looks_like_git_dir(folder):
                raise EmbeddedGitDir(folder)
            return folder
        if looks_like_git_dir(folder):
            raise EmbeddedGitDir(folder)
    raise NoWorktree(str(directory))


def looks_like_git_dir(folder: Path) -> bool:
    return all(os.path.lexists(folder / marker) for marker in GIT_DIR_MARKERS)


def open_repository(root: Path) -> git.Repo:
    """The repository whose `.git` is in `root`, every git command it runs made harmless."""
    repo = git.Repo(root)  # `find_root` made sure `root` is not itself a git directory
    repo.git.update_environment(**safe_environment(repo, os.environ))
    return repo


def safe_environment(repo: git.Repo, environ: Mapping[str, str]) -> dict[str, str]:
    """`GIT_CONFIG_*` variables (after any the caller already set) and the environment that neutralise `repo`'s
    config for every git process."""
    settings = [*NEUTRAL_CONFIG, *_driver_settings(repo)]
    try:
        start = int(environ.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    variables = dict(GIT_ENVIRONMENT)
    for index, (key, value) in enumerate(settings, start):
        variables[f"GIT_CONFIG_KEY_{index}"] = key
        variables[f"GIT_CONFIG_VALUE_{index}"] = value
    variables["GIT_CONFIG_COUNT"] = str(start + len(settings))
    return variables


def _driver_settings(repo: git.Repo) -> list[tuple[str, str]]:
    """Empty commands for every filter, diff and merge driver any config file defines (read, never run)."""
    settings: list[tuple[str, str]] = []
    reader = repo.config_reader()  # system, global and repository files, parsed in Python
    for section in reader.sections():
        kind, _, name = section.partition(" ")
        if kind in DRIVER_KEYS and name.startswith('"') and name.endswith('"'):
            driver = name[1:-1]
            settings += [(f"{kind}.{driver}.{key}", "") for key in DRIVER_KEYS[kind]]
            if kind == "filter":
                settings.append((f"filter.{driver}.required", "false"))
    return settings
