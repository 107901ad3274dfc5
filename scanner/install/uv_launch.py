"""PyPI launches (`uvx …`, `uv tool run …`): what they install, the resolution, the install, and the command.

Resolution is `uv pip compile --generate-hashes` of the launch's requirements in an empty folder of
mcp-lock's own: uv reads the user's configuration (`~/.config/uv/uv.toml`, the caller's `UV_*` variables)
and the index the declaration sets, never the repository's `uv.toml` or `.venv`. The install is a relocatable
virtual environment filled by `uv pip install --require-hashes --no-deps` from those very requirements (uv
checks each file's sha256).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

VALUE_OPTIONS = frozenset(
    {"--from", "--with", "-w", "--python", "-p", "--index", "--index-url", "--extra-index-url", "--default-index"}
)
# Options that change what is installed in ways this reader does not follow: such a launch is not installed here.
UNSUPPORTED = frozenset(
    {"--with-editable", "--with-requirements", "--directory", "--project", "--config-file", "--cache-dir",
     "--isolated", "--constraints", "--overrides", "--build-constraints", "--find-links", "-f", "--no-index",
     "--offline"}
)
REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?((==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!-]+)?")
CALLER_VARIABLES = (
    "PATH", "HOME", "USER", "LOGNAME", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
)
INDEX_VARIABLES = ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX")
VENV = "venv"


@dataclass(frozen=True)
class UvLaunch:
    requirements: tuple[str, ...]  # the package (first) and any --with, as uv takes them
    command: str  # the console script to run
    args: tuple[str, ...]
    python: str | None = None  # --python, as written


def uv_launch(command: str, args: Sequence[str]) -> UvLaunch | None:
    """The requirements, command and arguments of a `uvx`/`uv tool run` launch; None for a form not installed
    here."""
    runner = os.path.basename(command)
    words = list(args)
    if runner == "uv":
        if words[:2] != ["tool", "run"]:
            return None
        words = words[2:]
    elif runner != "uvx":
        return None
    source: str | None = None
    extra: list[str] = []
    python: str | None = None
    positional: list[str] = []
    while words:
        word = words.pop(0)
        if positional:
            positional.append(word)
            continue
        name, _, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        if name in UNSUPPORTED:
            return None
        if name in VALUE_OPTIONS:
            value = inline or (words.pop(0) if words else "")
            if name == "--from":
                source = value
            elif name in ("--with", "-w"):
                extra += [v.strip() for v in value.split(",") if v.strip()]
            elif name in ("--python", "-p"):
                if "/" in value or "\\" in value:
                    return None  # an interpreter by path is run to query it: never one the repository holds
                python = value
            else:
                return None  # an index chosen on the command line: not followed here
        elif word == "--":
            continue
        elif not word.startswith("-"):
            positional.append(word)
    if not positional:
        return None
    command_word = positional[0]
    package = source or command_word
    package = _exact(package)
    if source is None:
        command_word = re.split(r"[\[=<>!~@]", command_word, maxsplit=1)[0]
    requirements = (package, *extra)
    if not all(REQUIREMENT.fullmatch(r) for r in requirements):
        return None
    return UvLaunch(requirements, command_word, tuple(positional[1:]), python)


def _exact(package: str) -> str:
    """uvx also reads `name@1.2.3` as `name==1.2.3`."""
    name, at, version = package.partition("@")
    return f"{name}=={version}" if at and version and version != "latest" else name if at else package


def uv_environment(caller: Mapping[str, str], declared: Mapping[str, str]) -> dict[str, str]:
    """uv's environment: the caller's own uv configuration (user level) and the index the declaration sets."""
    env = {name: caller[name] for name in CALLER_VARIABLES if name in caller}
    env.update({k: v for k, v in caller.items() if k.startswith("UV_") and k not in ("UV_PROJECT", "UV_NO_CONFIG")})
    env.update({k: v for k, v in declared.items() if k in INDEX_VARIABLES})
    env["UV_NO_PROGRESS"] = "1"
    return env


def compile_command(uv: str, launch: UvLaunch, before: str | None = None) -> list[str]:
    """uv's resolution of the launch; with `before` (an ISO 8601 time), as of that time: uv then considers only
    files whose index `upload-time` (PEP 700) is before it, and none without one."""
    python = ["--python", launch.python] if launch.python else []
    python += ["--exclude-newer", before] if before is not None else []
    # --universal: one resolution for every platform, as the lock must hold on the laptop and in CI alike.
    return [
        uv, "pip", "compile", "-", "--universal", "--generate-hashes", "--no-header", "--no-annotate", "--quiet",
        *python,
    ]


def install_commands(uv: str, entry: Path, launch: UvLaunch, requirements: Path) -> list[list[str]]:
    python = ["--python", launch.python] if launch.python else []
    venv = str(entry / VENV)
    return [
        [uv, "venv", "--relocatable", "--quiet", *python, venv],
        # --link-mode=copy: the entry owns every inode, never a hard link shared with uv's cache or another
        # entry (a write there would be a write here, and the entry's seal checks each inode's change time).
        [uv, "pip", "install", "--require-hashes", "--no-deps", "--link-mode=copy", "--quiet", "--python",
         f"{venv}/bin/python", "-r", str(requirements)],
    ]


def boot_argv(entry: Path, launch: UvLaunch) -> list[str]:
    return [str(entry / VENV / "bin" / launch.command), *launch.args]
