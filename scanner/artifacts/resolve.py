"""The artifact behind a booted stdio launch, read while the server still runs (its process tree names
the install it runs from) from the package manager's own records: npx, uvx, docker/podman, or a local script.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scanner.artifacts.image import image_artifact
from scanner.artifacts.npm import npm_artifact
from scanner.artifacts.processes import server_tree
from scanner.artifacts.script import script_artifact
from scanner.artifacts.uv import pypi_artifact
from scanner.artifacts.view import opened_view
from scanner.sources.declarations import ResolvedLaunch
from scanner.sources.unpinned import launched

NPM_RUNNERS = frozenset({"npx"})
UV_RUNNERS = frozenset({"uvx", "uv tool run"})
# What `docker image inspect` needs of mcp-lock's own environment to reach the engine.
ENGINE_VARIABLES = ("PATH", "HOME", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "XDG_RUNTIME_DIR")


def resolved_artifact(
    launch: ResolvedLaunch, pid: int, env: Mapping[str, str], cwd: str, repo: Path
) -> dict[str, Any] | None:
    """The record of what `launch` (running as process `pid` with `env`) ran; None when nothing says."""
    if launch.command is None:
        return None
    try:
        return _resolved(launch, pid, env, cwd, repo)
    except (OSError, ValueError):  # a record that cannot be read is no record; the boot itself succeeded
        return None


def _resolved(launch: ResolvedLaunch, pid: int, env: Mapping[str, str], cwd: str, repo: Path) -> dict[str, Any] | None:
    assert launch.command is not None
    found = launched(launch)
    if found is None:
        return script_artifact(launch.command, launch.args, cwd, repo)
    if found.ecosystem == "image":
        caller = {name: os.environ[name] for name in ENGINE_VARIABLES if name in os.environ}
        return image_artifact(found.runner, found.name, caller)
    npm = found.ecosystem == "npm" and found.runner in NPM_RUNNERS
    if not npm and not (found.ecosystem == "pypi" and found.runner in UV_RUNNERS):
        return None
    # The cache the launch was given is a path as the server sees it: in the sandbox, its private /tmp.
    tree = server_tree(pid)
    with opened_view(tree.root) as view:
        if not tree.current():
            return None
        if npm:
            return npm_artifact(found.name, found.package, tree.command_lines, _absolute(_npm_cache(env), cwd), view)
        return pypi_artifact(found.name, tree.command_lines, _absolute(_uv_cache(env), cwd), view)


def _absolute(path: str | None, cwd: str) -> str | None:
    return os.path.join(cwd, path) if path else None


def _npm_cache(env: Mapping[str, str]) -> str | None:
    """The npm cache the launch used: the sandbox (or the declaration) sets it, else npm's default."""
    configured = env.get("npm_config_cache") or env.get("NPM_CONFIG_CACHE")
    home = env.get("HOME")
    return configured or (os.path.join(home, ".npm") if home else None)


def _uv_cache(env: Mapping[str, str]) -> str | None:
    """uv's cache for the launch: the sandbox (or the declaration) sets UV_CACHE_DIR, else uv's default."""
    home = env.get("HOME")
    default = os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home or "", ".cache"), "uv") if home else None
    return env.get("UV_CACHE_DIR") or default
