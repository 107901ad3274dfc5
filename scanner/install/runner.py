"""The one place a package manager (npm, uv) is started: each step is a command line, an environment and a
folder, run as a child process awaited on the event loop (so concurrent boots go on meanwhile), its output
bounded. A step still running when its caller's deadline passes is killed with it.

`run_manager` is the seam a sandboxed runner routes through: every resolution and install step of
`scanner.install` calls it, and nothing else starts npm or uv.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes of a resolution read back (a package-lock of thousands of packages)
TAIL = 600  # characters of a failed step's stderr shown
# Seconds to install one launch's tree (the policy's `install-timeout`), apart from the server's `timeout:`:
# a cold install of the largest real tree measured (716 packages) took 77-85 s on a loaded runner.
DEFAULT_INSTALL_TIMEOUT = 600.0


class InstallFailed(Exception):
    """A step of resolving or installing failed: names the step, its exit code and its last words."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"installing the launch's packages failed at `{step}`: {detail}")
        self.step = step


@dataclass
class Step:
    """Where an install is, for a timeout message: the step running now."""

    name: str = "resolving"


async def run_manager(
    argv: list[str], env: Mapping[str, str], cwd: str, step: str, stdin: bytes | None = None
) -> bytes:
    """Run one package-manager step to its end; its stdout. A non-zero exit is InstallFailed naming the step
    and exit code."""
    try:
        done = await anyio.run_process(argv, input=stdin, env=dict(env), cwd=cwd, check=False)
    except OSError as error:
        raise InstallFailed(step, f"cannot start {argv[0]}: {error.strerror or error}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or done.stdout.decode("utf-8", "replace").strip()
        shown = said[-TAIL:] if said else "no output"
        raise InstallFailed(step, f"exit code {done.returncode}: {shown}")
    if len(done.stdout) > OUTPUT_LIMIT:
        raise InstallFailed(step, f"more than {OUTPUT_LIMIT // (1024 * 1024)} MiB of output")
    return bytes(done.stdout)


def read_output(path: Path, step: str) -> str:
    """A file a step wrote (npm's package-lock.json), within OUTPUT_LIMIT."""
    try:
        if path.stat().st_size > OUTPUT_LIMIT:
            raise InstallFailed(step, f"{path.name} is larger than {OUTPUT_LIMIT // (1024 * 1024)} MiB")
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InstallFailed(step, f"wrote no {path.name} ({error.strerror or error})") from None
