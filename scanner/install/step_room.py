"""The sandbox one package-manager step runs in: bubblewrap (scanner.transports.sandbox) in a network namespace of
its own, whose only way out is mcp-lock's gate to the configured registry, with the caller's home hidden.

- Network: `--unshare-net`; mcp-lock's relay (scanner/install/relay.py) listens on 127.0.0.1:RELAY_PORT inside
  and hands each connection to the gate (scanner.install.netgate) outside, which lets through only the
  registry hosts of scanner.install.registry_hosts. npm is pointed at the relay by `proxy`/`https-proxy`
  (`noproxy` cleared), uv by `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` (`NO_PROXY` cleared); whatever ignores
  them finds no network at all. The runner's own proxy settings are read here, before they are dropped, and
  handed to the gate (scanner.install.upstream_proxy), never to the step.
- Home: the caller's home is an empty tmpfs. Bound back: the package manager's cache and the step's folder
  (writable, as the Room names them), the PATH entries that lie in it, the installation of the command run,
  mcp-lock's interpreter (the relay's) and uv's managed interpreters (read-only). The user's `.npmrc` (npm
  steps only) and `uv.toml` (uv steps only) are read by mcp-lock and handed to the step as a private copy
  (`npm_config_userconfig`, `UV_CONFIG_FILE`), so that what the base configures still applies while the step
  reads nothing else of home: `~/.ssh`, tokens in other files, a checkout's `.git/config`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from scanner.install.netgate import open_gate, private_folder
from scanner.install.registry_hosts import CONFIG_LIMIT, first_project, npm_destinations, uv_destinations
from scanner.install.sandboxed import StepScope, Wrap
from scanner.install.upstream_proxy import npm_upstream, uv_upstream, without_proxy_lines

RELAY = str(Path(__file__).with_name("relay.py"))
RELAY_PORT = 8119  # inside the step's own network namespace: no other process listens there
INSIDE = "/run/mcp-lock-gate"  # where the gate's folder is bound in the sandbox
PROXY = f"http://127.0.0.1:{RELAY_PORT}"
HOME_MIB = 1  # the empty tmpfs over the caller's home (bwrap makes mount points in it)
NPM_PROXY = {"npm_config_proxy": PROXY, "npm_config_https_proxy": PROXY, "npm_config_noproxy": ""}
UV_PROXY = {"HTTPS_PROXY": PROXY, "HTTP_PROXY": PROXY, "ALL_PROXY": PROXY, "NO_PROXY": ""}
_PROXY_NAMES = {"http_proxy", "https_proxy", "all_proxy", "no_proxy", "npm_config_proxy", "npm_config_https_proxy",
                "npm_config_noproxy", "npm_config_no_proxy"}


# Puts one step in bubblewrap with no network (scanner.transports.sandbox.sandboxed with `network: deny`, as
# the run layer supplies it): argv, env, cwd, readable, writable -> the command line and environment.
Contain = Callable[[list[str], dict[str, str], str, Sequence[str], Sequence[str]], tuple[list[str], dict[str, str]]]


def step_wrap(contain: Contain, sized: bool) -> Wrap:
    """The Room's wrap for a machine with bubblewrap: `step_command` in `contain` (`sized`: this bwrap bounds a
    tmpfs with --size)."""

    def wrap(
        argv: list[str], env: dict[str, str], cwd: str, writable: Sequence[str], readable: Sequence[str],
        scope: StepScope,
    ) -> tuple[list[str], dict[str, str]]:
        return step_command(argv, env, cwd, writable, readable, scope, contain, sized)

    return wrap


def step_command(
    argv: list[str], env: dict[str, str], cwd: str, writable: Sequence[str], readable: Sequence[str],
    scope: StepScope, contain: Contain, sized: bool = True,
) -> tuple[list[str], dict[str, str]]:
    """The bwrap command line and environment of one step; its gate runs until `scope.stack` closes, and what
    the gate refuses is kept in `scope.refused`."""
    npm = os.path.basename(argv[0]) == "npm"
    folder = scope.stack.enter_context(private_folder())
    callers = env
    env = {k: v for k, v in env.items() if k.lower() not in _PROXY_NAMES}
    if npm:
        source = _env_value(env, "npm_config_userconfig")
        # The step's copy has no proxy setting: the gate uses it, and its credentials stay out of the step.
        npmrc = _copy_config(source, folder, "npmrc", without_proxy_lines)
        env = {k: v for k, v in env.items() if k.lower() != "npm_config_userconfig"}
        if npmrc is not None:
            env["npm_config_userconfig"] = f"{INSIDE}/npmrc"
        allowed = npm_destinations(env, npmrc) | scope.also
        upstream = npm_upstream(callers, npmrc)
        env.update(NPM_PROXY)
        env.update(UV_PROXY)  # what an install script's downloader reads (puppeteer's, playwright's)
    else:
        source = _uv_config(env)
        uv_toml = None if env.get("UV_NO_CONFIG") else _copy_config(source, folder, "uv.toml")
        if uv_toml is not None:
            env["UV_CONFIG_FILE"] = f"{INSIDE}/uv.toml"
        upstream = uv_upstream(callers)
        allowed = uv_destinations(env, uv_toml, first_project(_requirements(argv, scope.stdin)), upstream)
        env.update(UV_PROXY)
    # The user's configuration reaches the step as the copy only, never from where it lies.
    originals = {os.path.realpath(p) for p in (source, os.path.dirname(source or "")) if p}
    kept = [p for p in readable if os.path.realpath(p) not in originals]
    if _offline(argv):
        relayed = argv  # no network at all, and no relay to start
    else:
        gate = scope.stack.enter_context(open_gate(allowed, folder, upstream))
        scope.refused, scope.allowed = gate.refused, gate.allowed
        relayed = [sys.executable, "-I", "-S", RELAY, f"{INSIDE}/{os.path.basename(gate.socket_path)}",
                   str(RELAY_PORT), "--", *argv]
    command, settled = contain(relayed, env, cwd, [*writable, *kept], writable)
    extra = [*_home_mounts(env, argv, writable, kept, sized), "--ro-bind", folder, INSIDE]
    at = command.index("--chdir")
    return [*command[:at], *extra, *command[at:]], settled


def _offline(argv: Sequence[str]) -> bool:
    """A step that fetches nothing (reading npm's configuration; making an empty venv from an interpreter
    already here): it gets no gate, so its start costs no relay."""
    return list(argv[1:3]) == ["config", "list"] or argv[1:2] == ["venv"]


def _env_value(env: Mapping[str, str], name: str) -> str | None:
    return next((v for k, v in env.items() if k.lower() == name), None)


def _uv_config(env: Mapping[str, str]) -> str | None:
    if env.get("UV_CONFIG_FILE"):
        return env["UV_CONFIG_FILE"]
    config = env.get("XDG_CONFIG_HOME")
    return os.path.join(config, "uv", "uv.toml") if config else None


def _copy_config(
    path: str | None, folder: str, name: str, scrub: Callable[[str], str] | None = None
) -> str | None:
    """The text of the user's configuration file at `path`, copied into the step's private folder (0600),
    less what `scrub` takes out of the copy (the text returned is whole)."""
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(CONFIG_LIMIT + 1)
    except OSError:
        return None
    if len(data) > CONFIG_LIMIT:
        return None
    descriptor = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    text = data.decode("utf-8", "replace")
    with os.fdopen(descriptor, "wb") as copy:
        copy.write(scrub(text).encode("utf-8") if scrub else data)
    return text


def _requirements(argv: Sequence[str], stdin: bytes | None) -> str | None:
    """What a uv step installs (stdin of `uv pip compile -`, the `-r` file of `uv pip install`)."""
    if stdin is not None:
        return stdin.decode("utf-8", "replace")
    if "-r" in argv[:-1]:
        with contextlib.suppress(OSError):
            return Path(argv[argv.index("-r") + 1]).read_text(encoding="utf-8")[:CONFIG_LIMIT]
    return None


def callers_homes(env: Mapping[str, str]) -> list[str]:
    """The caller's home folders (its HOME, and the account's), never `/`."""
    homes = {os.path.realpath(h) for h in (env.get("HOME"), os.path.expanduser("~")) if h}
    return sorted(h for h in homes if h != "/" and os.path.isdir(h))


def _home_mounts(
    env: Mapping[str, str], argv: Sequence[str], writable: Sequence[str], readable: Sequence[str], sized: bool
) -> list[str]:
    """An empty tmpfs over the caller's home, and what the step needs of it bound back."""
    homes = callers_homes(os.environ) + callers_homes(env)
    homes = sorted(set(homes))
    if not homes:
        return []
    needed = [*readable, *_installations(env, argv)]
    mounts: list[str] = []
    size = ["--size", str(HOME_MIB * 1024 * 1024)] if sized else []
    for home in homes:
        mounts += [*size, "--tmpfs", home]
    for path in sorted({os.path.normpath(p) for p in needed if os.path.exists(p)}, key=len):
        if any(_within(path, home) for home in homes):
            mounts += ["--ro-bind", path, path]
    for path in writable:
        if any(_within(path, home) for home in homes):
            mounts += ["--bind", path, path]
    return mounts


def _installations(env: Mapping[str, str], argv: Sequence[str]) -> list[str]:
    """The software a step runs: PATH's folders, the installation of its command, mcp-lock's interpreter (the
    relay's), uv's managed interpreters."""
    path = [p for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    found = shutil.which(argv[0], path=env.get("PATH")) if os.sep not in argv[0] else argv[0]
    command = [_root_of(os.path.dirname(os.path.realpath(found)))] if found else []
    python = [sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), RELAY]
    managed = [env["UV_PYTHON_INSTALL_DIR"]] if env.get("UV_PYTHON_INSTALL_DIR") else []
    return [*path, *command, *python, *managed]


def _root_of(folder: str) -> str:
    root = os.path.dirname(folder.rstrip("/"))
    return root if os.path.basename(folder.rstrip("/")) == "bin" and root != "/" else folder


def _within(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")
