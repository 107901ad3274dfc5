"""The artifact behind a booted stdio launch that mcp-lock did not install itself (scanner.install installs
npx and uvx launches and records their trees before they run): the image a `docker`/`podman run` pulled, from
the container engine's own record, or the local script a launch names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scanner.artifacts.image import image_artifact
from scanner.artifacts.script import script_artifact
from scanner.sources.declarations import ResolvedLaunch
from scanner.sources.unpinned import launched

# What `docker image inspect` needs of mcp-lock's own environment to reach the engine.
ENGINE_VARIABLES = ("PATH", "HOME", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "XDG_RUNTIME_DIR")


def resolved_artifact(launch: ResolvedLaunch, cwd: str, repo: Path) -> dict[str, Any] | None:
    """The record of what `launch` ran; None when nothing says."""
    if launch.command is None:
        return None
    try:
        found = launched(launch)
        if found is None:
            return script_artifact(launch.command, launch.args, cwd, repo)
        if found.ecosystem == "image":
            caller = {name: os.environ[name] for name in ENGINE_VARIABLES if name in os.environ}
            return image_artifact(found.runner, found.name, caller)
    except (OSError, ValueError):  # a record that cannot be read is no record; the boot itself succeeded
        return None
    return None
