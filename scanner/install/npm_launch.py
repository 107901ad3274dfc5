"""npm launches (`npx …`, `npm exec …`): what they install, the resolution, the install, and the bin npx runs.

Resolution is `npm install --package-lock-only --ignore-scripts` of the launch's package specs in an empty
project of mcp-lock's own: npm reads the user's configuration (`~/.npmrc`, `npm_config_*` of the caller) and
the registry the declaration sets, never the repository's `.npmrc` or `node_modules`, and no package code runs.
The install is `npm ci --ignore-scripts` of that very lock (npm checks each tarball's integrity), then, only
when a package has an install script, `npm rebuild` in the sandbox with nothing but the entry writable.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.files.bounded_json import Bounds, parse

# npx/npm exec options that take the next word as their value.
VALUE_OPTIONS = frozenset({"-p", "--package", "--registry", "--cache", "--userconfig", "--prefix", "-w", "--workspace"})
# Specs the store can hold: a registry name with an optional version, range or tag.
REGISTRY_SPEC = re.compile(r"(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*(@[^\s/:]+)?", re.IGNORECASE)
MANIFEST_LIMIT = 1024 * 1024
MANIFEST_BOUNDS = Bounds(bytes=MANIFEST_LIMIT, depth=32, values=200_000)  # an installed package.json
# The caller's variables npm itself needs (configuration, certificates, proxies); nothing else reaches it.
CALLER_VARIABLES = (
    "PATH", "HOME", "USER", "LOGNAME", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
)
QUIET = {"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}


@dataclass(frozen=True)
class NpmLaunch:
    specs: tuple[str, ...]  # what npx installs, as written
    command: str | None  # the bin named with --package (None: the package's own bin)
    args: tuple[str, ...]  # the server's arguments

    @property
    def package(self) -> str:
        """The name of the (first) package the launch installs."""
        return spec_name(self.specs[0])


def npm_launch(command: str, args: Sequence[str]) -> NpmLaunch | None:
    """The specs, bin and arguments of an `npx`/`npm exec` launch; None for a form the store cannot run
    (`-c`, a path, a git or tarball spec, another npm subcommand)."""
    runner = os.path.basename(command)
    words = list(args)
    if runner == "npm":
        if not words or words[0] not in ("exec", "x"):
            return None
        words = words[1:]
    elif runner != "npx":
        return None
    specs: list[str] = []
    positional: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--":
            positional += words
            break
        if positional:  # npx: everything after the package or command is the server's
            positional.append(word)
        elif word in ("-c", "--call") or word.startswith("--call="):
            return None
        elif word in ("-p", "--package") and words:
            specs.append(words.pop(0))
        elif word.startswith("--package="):
            specs.append(word.split("=", 1)[1])
        elif word in VALUE_OPTIONS and words:
            words.pop(0)
        elif not word.startswith("-"):
            positional.append(word)
    if not positional and not specs:
        return None
    if specs:
        if not positional:
            return None
        launch = NpmLaunch(tuple(specs), positional[0], tuple(positional[1:]))
    else:
        launch = NpmLaunch((positional[0],), None, tuple(positional[1:]))
    return launch if all(REGISTRY_SPEC.fullmatch(s) for s in launch.specs) else None


def spec_name(spec: str) -> str:
    """`@scope/name@1.2.3` -> `@scope/name`."""
    at = spec.find("@", 1)
    return spec if at < 0 else spec[:at]


def npm_environment(caller: Mapping[str, str], declared: Mapping[str, str]) -> dict[str, str]:
    """npm's environment for resolving and installing: the caller's npm configuration (user level), and the
    registry the declaration points the launcher at, as npx would see it."""
    env = {name: caller[name] for name in CALLER_VARIABLES if name in caller}
    env.update({k: v for k, v in caller.items() if k.lower().startswith("npm_config_")})
    env.update({k: v for k, v in declared.items() if _registry_setting(k)})
    env.update(QUIET)
    return env


def _registry_setting(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("npm_config_") and lowered.endswith("registry")


# The package.json of the empty project a resolution starts from.
PROJECT_MANIFEST = json.dumps({"name": "mcp-lock-install", "private": True}) + "\n"


def resolve_command(launch: NpmLaunch, before: str | None = None) -> list[str]:
    """npm's resolution of the launch; with `before` (an ISO 8601 time), as of that time: npm then considers
    only versions whose packument `time` is at or before it, and a dist-tag only where its version is."""
    as_of = [f"--before={before}"] if before is not None else []
    return [
        "npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--save-exact",
        "--no-workspaces", "--loglevel=error", *as_of, *launch.specs,
    ]


INSTALL_COMMAND = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
SCRIPTS_COMMAND = ["npm", "rebuild", "--foreground-scripts", "--loglevel=error"]


def boot_argv(entry: Path, launch: NpmLaunch) -> list[str]:
    """What npx would run from the installed tree: the bin it picks, and the launch's arguments."""
    bins = entry / "node_modules" / ".bin"
    if launch.command is not None:
        found = bins / launch.command
        return [str(found) if os.path.lexists(found) else launch.command, *launch.args]
    manifest = _manifest(entry / "node_modules" / launch.package / "package.json")
    return [str(bins / _bin_of(manifest, launch.package)), *launch.args]


class NoBin(Exception):
    """npx could not determine the executable to run either; the message says why."""


def _bin_of(manifest: Mapping[str, Any], name: str) -> str:
    """libnpmexec's choice: the one bin (or several names of one file), else the one named as the package."""
    unscoped = name.rsplit("/", 1)[-1]
    bin_field = manifest.get("bin")
    if isinstance(bin_field, str):
        return unscoped
    bins = {str(k): v for k, v in bin_field.items()} if isinstance(bin_field, dict) else {}
    if bins and len({str(v) for v in bins.values()}) == 1:
        return next(iter(bins))
    if unscoped in bins:
        return unscoped
    raise NoBin(f"{name} has no bin named {unscoped} and not exactly one bin, so npx cannot choose one either")


def _manifest(path: Path) -> Mapping[str, Any]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MANIFEST_LIMIT + 1)
        manifest = parse(data, MANIFEST_BOUNDS)
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict):
        raise NoBin(f"the installed {path.parent.name} has no readable package.json")
    return manifest
