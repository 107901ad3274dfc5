"""The one place a package manager (npm, uv) is started: each step is a command line, an environment and a
folder, run as a child process awaited on the event loop (so concurrent boots go on meanwhile), its output
bounded. A step still running when its caller's deadline passes is killed with it.

`run_manager` is the seam every step routes through: every resolution and install step of `scanner.install`
calls it, and nothing else starts npm or uv. It runs the step in the sandbox `Room` (scanner.install.sandboxed)
the run layer set in `ROOM` for this launch (scanner.run.installing.install_launch sets it around the whole
install; a ContextVar so that it follows each boot's task and need not be threaded through every function),
with only the step's folder (`cwd`: the scratch project or the staging folder) and the package manager's cache
writable, bounded in time and output. uv gets `--no-build` (or the policy's `build-from-source` names) on
compile and pip install, and its no-wheel error becomes StepRefused (`build-refused`). Unset, `ROOM` is the
no-sandbox Room: then no build is allowed either.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from scanner.install.netgate import Destination
from scanner.install.sandboxed import (
    SOURCE_REFUSED,
    Room,
    StepRefused,
    StepScope,
    npm_step_env,
    refused_build,
    run_bounded,
    uv_build_flags,
    uv_step_env,
)

OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes of a resolution read back (a package-lock of thousands of packages)
TAIL = 600  # characters of a failed step's stderr shown
# Seconds to install one launch's tree (the policy's `install-timeout`), apart from the server's `timeout:`:
# a cold install of the largest real tree measured (716 packages) took 77-85 s on a loaded runner.
DEFAULT_INSTALL_TIMEOUT = 600.0
NO_ROOM = Room(None)  # no sandbox, no build: the Room of a step run where no run layer set one
ROOM: ContextVar[Room] = ContextVar("mcp_lock_package_room", default=NO_ROOM)
_NPM_LOG = re.compile(r"\s*npm error A complete log of this run can be found in: \S+")
_BUILDING = (["pip", "compile"], ["pip", "install"])  # the uv steps that may build an sdist


class InstallFailed(Exception):
    """A step of resolving or installing failed: names the step, its exit code and its last words (and, for
    an install script, the hosts the gate refused it)."""

    def __init__(self, step: str, detail: str, refused: Sequence[str] = ()) -> None:
        super().__init__(f"installing the launch's packages failed at `{step}`: {detail}")
        self.step = step
        self.refused = list(refused)


@dataclass
class Step:
    """Where an install is, for a timeout message: the step running now."""

    name: str = "resolving"


async def run_manager(
    argv: list[str], env: Mapping[str, str], cwd: str, step: str, stdin: bytes | None = None,
    *, scripts: frozenset[Destination] | None = None,
) -> bytes:
    """Run one package-manager step to its end in `ROOM`'s sandbox; its stdout. `scripts`: the step runs
    install scripts (npm rebuild), which may reach these hosts besides the registry, with no cache of the
    caller's writable. A non-zero exit is InstallFailed naming the step and exit code, or StepRefused when uv
    may not build a package or npm fetched from another host."""
    room = ROOM.get()
    uv = os.path.basename(argv[0]) != "npm"
    with contextlib.ExitStack() as stack:
        scope = StepScope(stack, stdin, also=scripts or frozenset())
        argv, env = _in_room(room, argv, env, cwd, uv, scope, scripts is not None)
        try:
            done = await run_bounded(argv, env, cwd, stdin, OUTPUT_LIMIT)
        except OSError as error:
            raise InstallFailed(step, f"cannot start {argv[0]}: {error.strerror or error}") from None
    if done.overflowed:
        raise InstallFailed(step, f"more than {OUTPUT_LIMIT // (1024 * 1024)} MiB of output")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or done.stdout.decode("utf-8", "replace").strip()
        refused = refused_build(said, room) if uv else None
        if refused is not None:
            raise refused
        if scope.refused and scripts is None:
            raise _off_registry(step, scope, uv)
        if scripts is not None:  # its log lies in the step's throwaway cache
            said = _NPM_LOG.sub("", said).strip()
        shown = _tail(said.replace(f"{cwd.rstrip(os.sep)}{os.sep}", ""))  # paths read the same on every run
        raise InstallFailed(step, f"exit code {done.returncode}: {shown}", scope.refused)
    return done.stdout


def _off_registry(step: str, scope: StepScope, uv: bool) -> Exception:
    """The step failed after asking for a host that is not its registry (scanner.install.netgate)."""
    asked = ", ".join(scope.refused)
    allowed = ", ".join(f"{host}:{port}" for host, port in sorted(scope.allowed)) or "none"
    if uv:
        return InstallFailed(step, (
            f"uv asked for {asked}, which is not the index configured for this launch (allowed: {allowed}); "
            "mcp-lock's package steps reach only the configured index and the file hosts it names"
        ))
    return StepRefused(SOURCE_REFUSED, (
        f"npm asked for {asked} at `{step}`, which is not the registry configured for this launch (allowed: "
        f"{allowed}): a dependency fetched from another host (a tarball URL, a registry's tarball elsewhere) "
        "is refused. Depend on a release published to the configured registry"
    ))


def _tail(said: str) -> str:
    """The last TAIL characters of a step's words, from the start of a line."""
    if not said:
        return "no output"
    if len(said) <= TAIL:
        return said
    shown = said[-TAIL:]
    return "… " + (shown.partition("\n")[2] or shown)


def _in_room(
    room: Room, argv: list[str], env: Mapping[str, str], cwd: str, uv: bool, scope: StepScope, scripts: bool
) -> tuple[list[str], dict[str, str]]:
    """The step as the sandbox runs it: the package manager's step environment, its cache and `cwd` writable
    (install scripts are package code: a throwaway cache of their own, so that they write nothing npm reads
    back later)."""
    if uv:
        settled, caches = scope.stack.enter_context(uv_step_env(env, room))
        if argv[1:3] in _BUILDING:
            argv = [*argv, *uv_build_flags(room)]
    elif scripts:
        cache = scope.stack.enter_context(tempfile.TemporaryDirectory(prefix="mcp-lock-script-cache-"))
        settled, caches = npm_step_env({**env, "npm_config_cache": cache})
    else:
        settled, caches = npm_step_env(env)
    return room.command(argv, settled, cwd, [cwd, *caches], scope)


def read_output(path: Path, step: str) -> str:
    """A file a step wrote (npm's package-lock.json), within OUTPUT_LIMIT."""
    try:
        if path.stat().st_size > OUTPUT_LIMIT:
            raise InstallFailed(step, f"{path.name} is larger than {OUTPUT_LIMIT // (1024 * 1024)} MiB")
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InstallFailed(step, f"wrote no {path.name} ({error.strerror or error})") from None
