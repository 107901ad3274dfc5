"""Every package-manager step (resolve, download, install) runs in the sandbox, bounded in time and output.

Resolving and installing are package code too: uv builds an sdist to learn its metadata, npm fetches git
dependencies and runs their `prepare`. So each step runs under bubblewrap, as the run layer supplies it
(`Wrap`, from scanner.transports.sandbox): new user, PID, IPC and cgroup namespaces (a step cannot see
mcp-lock's /proc, nor its environment), the whole filesystem read-only but the folders the step writes (the
staging folder, the resolution's scratch folder, the package manager's own cache), a private /tmp holding its
HOME, and an environment of the package manager's settings only (scanner.install.npm_launch and uv_launch pick
them: PATH, the user's registry/index settings, certificates, proxies).

On top of that, no step runs package code by default: npm always gets `--ignore-scripts` (its install scripts
run afterwards, in the server's sandbox, with only the store entry writable), and uv never builds an sdist
(`--no-build`): a release that ships no usable wheel is refused (`build-refused`) naming the package and the
fix, unless the base's policy names it in `build-from-source:`, and then it builds here, in the sandbox, with a
private cache of its own (a build must not leave wheels in the shared cache that later steps would trust).
npm dependencies fetched from git have no digest npm can check, and are refused (`dependency-source-refused`);
a tarball-URL dependency is recorded by the integrity npm computed of it, like a registry package.

The package manager's cache is writable only in steps that run no package code, so only the package manager
itself writes it; what it reads back is checked against the digests the resolution records (npm's integrity,
uv's `--require-hashes`), so a poisoned cache entry fails the install instead of changing it.

Network and home: each step has its own network namespace whose only way out is mcp-lock's gate to the
configured registry, and the caller's home is hidden (scanner.install.step_room; docs/install-sandbox.md).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import anyio

from scanner.files.bounded_json import Bounds, parse
from scanner.install.npm_record import unpinned_sources


@dataclass
class StepScope:
    """One step's lifetime, as its sandbox sees it: what lives as long as the step (`stack`: the gate to the
    registry), what it reads on stdin (the gate learns the index's file hosts from it), and what the gate
    allowed and refused (for the message when the step fails)."""

    stack: contextlib.ExitStack
    stdin: bytes | None = None
    allowed: frozenset[tuple[str, int]] = frozenset()
    refused: list[str] = field(default_factory=list)
    also: frozenset[tuple[str, int]] = frozenset()  # hosts besides the registry (an install script's, by policy)


# Runs one step (argv, env, cwd, writable folders, readable paths, its scope) in the sandbox: the command line
# and environment to start. Readable paths are the user's package-manager configuration and interpreters.
Wrap = Callable[
    [list[str], dict[str, str], str, Sequence[str], Sequence[str], StepScope], tuple[list[str], dict[str, str]]
]

STEP_SECONDS = 1800.0  # one step's own bound, under the boot's deadline
STDERR_TAIL = 64 * 1024  # bytes of a step's stderr kept (its last words)
OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes of a step's stdout read back (a resolution of thousands of packages)
LOCK_BOUNDS = Bounds(bytes=64 * 1024 * 1024, depth=16, values=2_000_000)
BUILD_REFUSED = "build-refused"
SOURCE_REFUSED = "dependency-source-refused"
# uv's words for a release it may not build: the hint names the package in backquotes.
_NO_WHEEL = (
    re.compile(r"Wheels are required for `([^`]{1,200})`"),
    re.compile(r"Because ([A-Za-z0-9][A-Za-z0-9._-]{0,200})(?:==\S+)? has no usable wheels"),
    re.compile(r"Building source distributions (?:for `?([A-Za-z0-9][A-Za-z0-9._-]{0,200})`? )?is disabled"),
)


class StepRefused(Exception):
    """A step was refused before or instead of running package code; `rule` is the finding it reports."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class Room:
    """How this launch's package-manager steps run: `wrap` puts a step in the sandbox (None only where the
    machine has no sandbox and the server's policy is `sandbox: off`: then no step may run package code, and
    builds stay refused whatever the policy allows); `builds` are the PyPI names the base's policy lets build."""

    wrap: Wrap | None
    builds: frozenset[str] = field(default_factory=frozenset)

    @property
    def may_build(self) -> frozenset[str]:
        return self.builds if self.wrap is not None else frozenset()

    def command(
        self, argv: list[str], env: dict[str, str], cwd: str, writable: Sequence[str], scope: StepScope
    ) -> tuple[list[str], dict[str, str]]:
        for folder in writable:
            os.makedirs(folder, exist_ok=True)  # bwrap binds only what exists
        if self.wrap is None:
            return argv, env
        readable = [path for path in _configuration(env) if os.path.exists(path)]
        return self.wrap(argv, env, cwd, [os.path.realpath(f) for f in writable], readable, scope)


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: bytes
    stderr: bytes  # its last STDERR_TAIL bytes
    overflowed: bool  # stdout passed the limit and the step was killed


async def run_bounded(
    argv: list[str], env: Mapping[str, str], cwd: str, stdin: bytes | None = None,
    limit: int = OUTPUT_LIMIT, seconds: float = STEP_SECONDS,
) -> Done:
    """Run `argv` to its end in a session of its own: its exit code, stdout (at most `limit` bytes: past that
    it is killed) and its stderr's tail. Killed with all its processes when `seconds` pass (TimeoutError) or the
    caller is cancelled. OSError when it cannot start."""
    process = await anyio.open_process(
        argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=dict(env), cwd=cwd, start_new_session=True,
    )
    out, err = bytearray(), bytearray()
    overflowed = False

    async def read_out() -> None:
        nonlocal overflowed
        assert process.stdout is not None
        async for chunk in process.stdout:
            if len(out) + len(chunk) > limit:
                overflowed = True
                _kill(process.pid)
                return
            out.extend(chunk)

    async def read_err() -> None:
        assert process.stderr is not None
        async for chunk in process.stderr:
            err.extend(chunk)
            del err[:-STDERR_TAIL]

    async def feed() -> None:
        assert process.stdin is not None and stdin is not None
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.send(stdin)
        await process.stdin.aclose()

    try:
        with anyio.fail_after(seconds):
            async with anyio.create_task_group() as group:
                group.start_soon(read_out)
                group.start_soon(read_err)
                if stdin is not None:
                    group.start_soon(feed)
            code = await process.wait()
    except BaseException:
        _kill(process.pid)
        with anyio.CancelScope(shield=True):
            await process.wait()
            await process.aclose()
        raise
    await process.aclose()
    return Done(code, bytes(out), bytes(err), overflowed)


def _kill(pid: int) -> None:
    """The step's whole session (bwrap, PID 1 of its namespace, takes every process of the sandbox with it)."""
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)


def uv_build_flags(room: Room) -> list[str]:
    """uv's options: no sdist is built, but those the policy names (and those only from source)."""
    allowed = sorted(room.may_build)
    if not allowed:
        return ["--no-build"]
    return ["--only-binary", ":all:", *(flag for name in allowed for flag in ("--no-binary", name))]


def refused_build(stderr: str, room: Room) -> StepRefused | None:
    """The finding for a uv step that stopped because it may not build a package, or None."""
    for pattern in _NO_WHEEL:
        found = pattern.search(stderr)
        if found and found.group(1):
            return StepRefused(BUILD_REFUSED, build_message(found.group(1), room))
    return None


def build_message(package: str, room: Room) -> str:
    where = (
        "this machine has no sandbox (the server runs with `sandbox: off`), and mcp-lock never builds outside it"
        if room.wrap is None and package in room.builds
        else "mcp-lock builds no source distribution unless the policy names it"
    )
    return (
        f"{package} has no wheel this resolution can use, only a source distribution, and building it runs its "
        f"code (its build backend): {where}. Use a release of {package} that ships wheels, or let it build in "
        f"the sandbox with `build-from-source: [{package}]` in mcp-lock.yaml (on the base branch: a pull request "
        "that adds it is `policy-loosened`)"
    )


def refused_sources(lock_text: str) -> StepRefused | None:
    """The finding for an npm resolution holding a dependency whose content no digest pins (fetched from git,
    or with no integrity: scanner.install.npm_record.unpinned_sources, the one check), or None. `lock_text`:
    npm's package-lock.json."""
    try:
        lock = parse(lock_text.encode("utf-8"), LOCK_BOUNDS)
    except ValueError:
        return None  # the tree reader reports it
    refused = unpinned_sources(lock)
    if not refused:
        return None
    shown = "; ".join(refused[:5]) + (f"; and {len(refused) - 5} more" if len(refused) > 5 else "")
    return StepRefused(
        SOURCE_REFUSED,
        f"npm resolved a dependency whose content no digest pins: {shown}. mcp-lock records and installs registry "
        "and tarball dependencies by their integrity; a git dependency is code npm builds from a repository's "
        "current state. Depend on a published version instead (or pin the dependency to a registry release)",
    )


def _configuration(env: Mapping[str, str]) -> list[str]:
    """The user-level package-manager configuration a step reads (named in its environment by the *_step_env)."""
    npmrc = env.get("npm_config_userconfig")
    uv = [os.path.join(env["XDG_CONFIG_HOME"], "uv")] if "UV_CACHE_DIR" in env and "XDG_CONFIG_HOME" in env else []
    python = [env["UV_PYTHON_INSTALL_DIR"]] if "UV_PYTHON_INSTALL_DIR" in env else []
    return [*([npmrc] if npmrc else []), *uv, *python]


def npm_step_env(env: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """npm's environment in the sandbox and the folders it writes besides the step's own: its cache; both the
    cache and the user's ~/.npmrc named explicitly, since the sandbox's HOME is a throwaway."""
    home = env.get("HOME") or os.path.expanduser("~")
    cache = env.get("npm_config_cache") or os.path.join(home, ".npm")
    settled = {**env, "npm_config_cache": cache}
    npmrc = os.path.join(home, ".npmrc")
    if "npm_config_userconfig" not in env and os.path.isfile(npmrc):
        settled["npm_config_userconfig"] = npmrc
    return settled, [cache]


@contextlib.contextmanager
def uv_step_env(env: Mapping[str, str], room: Room) -> Iterator[tuple[dict[str, str], list[str]]]:
    """uv's environment in the sandbox and the folders it writes: its cache (the caller's; a private one while a
    build may run), and its user configuration and interpreters where the caller keeps them (read-only)."""
    home = env.get("HOME") or os.path.expanduser("~")
    config = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    data = env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    settled = {"XDG_CONFIG_HOME": config, "UV_PYTHON_INSTALL_DIR": os.path.join(data, "uv", "python")}
    settled = {k: v for k, v in settled.items() if k not in env}
    if room.may_build:
        with tempfile.TemporaryDirectory(prefix="mcp-lock-build-cache-") as private:
            yield {**env, **settled, "UV_CACHE_DIR": private}, [private]
        return
    cache = env.get("UV_CACHE_DIR") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "uv")
    yield {**env, **settled, "UV_CACHE_DIR": cache}, [cache]
