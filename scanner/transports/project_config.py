"""Package-manager configuration in the repository, which must not change what a pinned package launch runs.

npm reads `.npmrc` from the project folder it finds above the working directory (a `registry=`, a
`node-options=--require=./evil.js`, an `_authToken=${API_KEY}` for the repository's own registry) and runs
a package already in a `node_modules/` folder there instead of the one the launch names (with `.bin`
links ahead of the system's on PATH: a `node_modules/.bin/node` replaces `node`); yarn and pnpm read
`.yarnrc*` and `.pnpmfile.cjs`; uv reads `uv.toml` and `[tool.uv]` (an `index-url`), `.python-version`
and a project `.venv`; pip reads `pip.conf` from a virtual environment; version managers read `.nvmrc`.
A pull request controls all of them. For a package launch (`package_launch`: npx, uvx, …) by the real
launcher (`real_launcher`), the sandbox covers each of these files and `node_modules/` that exists
in the working directory and every folder above it that lies in the repository (a file with /dev/null, a
folder with an empty read-only tmpfs), and the environment tells uv and pip to read no project
configuration. A launch of the repository's own project (`uv run`, `npm run`) is repository code: its
configuration is part of what a change under review changes (`check --base` withholds its secrets).
Measured: uv honours a `uv.toml` `index-url` unless `UV_NO_CONFIG=1`; npm 11 has no variable that stops it
reading the project's `.npmrc` or running its `node_modules` (`npm_config_location=global`,
`npm_config_global=true` and `npm_config_prefix` do not), so those are hidden. The caller's own
configuration (`~/.npmrc`, uv's user config) is not the repository's and still applies.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence

CONFIG_FILES = (
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "uv.toml",
    "pip.conf",
    "pip.ini",
    ".python-version",
    ".nvmrc",
    ".node-version",
)
INSTALL_FOLDERS = ("node_modules", ".venv", "venv")  # a committed install, run instead of the pinned package
# What is hidden from a package launch: a project's virtual environment stays (npx and `uv tool run` never use
# it, and a CI-built `.venv` is what a `uv run` launch, repository code, needs).
HIDDEN_FOLDERS = ("node_modules",)
# Variables given to a real launcher: read no configuration from the project.
LAUNCHER_ENV = {"UV_NO_CONFIG": "1", "PIP_CONFIG_FILE": os.devnull}


def covered(cwd: str, roots: Iterable[str]) -> list[str]:
    """Each existing package-manager file or install folder in `cwd` and the folders above it, up to the
    top of the repository root (of `roots`) that holds `cwd`; none when `cwd` lies in no root."""
    cwd = os.path.abspath(cwd)
    inside = [root for root in map(os.path.abspath, roots) if cwd == root or cwd.startswith(root + os.sep)]
    if not inside:
        return []
    top = min(inside, key=len)
    found: list[str] = []
    folder = cwd
    while True:
        for name in (*CONFIG_FILES, *HIDDEN_FOLDERS):
            path = os.path.join(folder, name)
            if os.path.lexists(path):
                found.append(path)
        if folder == top or os.path.dirname(folder) == folder:
            return found
        folder = os.path.dirname(folder)


def package_launch(argv: Sequence[str]) -> bool:
    """Whether `argv` fetches and runs a named package (npx, npm exec, uvx, uv tool run, pnpm/yarn dlx), not
    the repository's own project (`uv run`, `npm run`), whose configuration is part of its code."""
    name, rest = os.path.basename(argv[0]), list(argv[1:3])
    if name in ("npx", "uvx", "bunx"):
        return True
    return (name == "npm" and rest[:1] in (["exec"], ["x"])) or (name == "uv" and rest == ["tool", "run"]) or (
        name in ("pnpm", "yarn") and rest[:1] == ["dlx"]
    )


def mask_mounts(paths: Iterable[str]) -> list[str]:
    """bwrap arguments hiding each of `paths`: a folder under an empty read-only tmpfs, anything else
    (a file, a link, a FIFO) under /dev/null."""
    mounts: list[str] = []
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            mounts += ["--tmpfs", path, "--remount-ro", path]
        else:
            mounts += ["--ro-bind", "/dev/null", path]
    return mounts


LAUNCHERS = frozenset({"npx", "npm", "uvx", "uv"})  # the package managers whose project configuration is hidden


def real_launcher(command: str, server_path: str, cwd: str, caller: Mapping[str, str]) -> bool:
    """Whether `command`, found as the server will find it, is the caller's own npx/npm/uvx/uv (not a script of
    the repository's that is named like one)."""
    name = os.path.basename(command)
    if name not in LAUNCHERS:
        return False
    found = os.path.join(cwd, command) if os.sep in command else shutil.which(command, path=server_path)
    own = shutil.which(name, path=caller.get("PATH", os.defpath))
    return found is not None and own is not None and os.path.realpath(found) == os.path.realpath(own)
