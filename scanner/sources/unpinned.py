"""Launches that fetch a package or image without naming an exact version: the server can change
under the repository without any commit.

`unpinned(template)` recognises the package runners clients launch servers with (npx, bunx, pnpm dlx,
yarn dlx, uvx, uv tool run, pipx run, docker/podman run, deno run with npm:/jsr: specifiers) and
says which package is unpinned and how to pin it. A local path, a URL or anything else it does not
recognise is left alone: only what it can read with certainty is reported.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from scanner.model.transports import is_local
from scanner.sources.declarations import LaunchTemplate, ResolvedLaunch

# An exact npm version (SemVer: 1.2.3, 1.2.3-rc.1, 2026.8.31); `1` or `1.2` are ranges to npm.
NPM_EXACT = re.compile(r"v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")
# An exact Python version after `==` (PEP 440 without a wildcard: `==1.2` means 1.2.0).
PYPI_EXACT = re.compile(r"\d+(\.\d+)*([._-]?(a|b|rc|post|dev)\d*)*(\+[0-9A-Za-z.]+)?")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")

# Options of each runner that take a value (the next word), so the package is not mistaken for one.
NPX_VALUE_OPTIONS = frozenset({"-p", "--package", "-c", "--call", "--registry", "--cache", "--userconfig"})
UV_VALUE_OPTIONS = frozenset(
    {"--from", "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p", "--index", "--index-url",
     "--extra-index-url", "--default-index", "--directory", "--project", "--config-file", "--cache-dir"}
)
PIPX_VALUE_OPTIONS = frozenset({"--spec", "--python", "--index-url", "--pip-args"})
# docker/podman run flags that take no value; any other option is taken to take one unless written `--x=y`.
DOCKER_FLAGS = frozenset(
    {"-i", "-t", "-it", "-ti", "-d", "--rm", "--init", "--interactive", "--tty", "--detach", "--privileged",
     "--read-only", "-P", "--publish-all", "--no-healthcheck", "--sig-proxy", "-q", "--quiet"}
)


@dataclass(frozen=True)
class Unpinned:
    package: str  # what is fetched, as written
    runner: str  # npx, uvx, docker, ...
    ecosystem: str  # npm, pypi or image: how a pinned spelling looks
    exact: bool = False  # names an exact version (npm, PyPI) or an image digest

    @property
    def name(self) -> str:
        """The package's name without version or extras; for an image, the reference as written."""
        return _bare_name(self.package, self.ecosystem) if self.ecosystem != "image" else self.package

    def pinned_spelling(self, version: str) -> str:
        """`package` pinned to `version`, as the runner accepts it."""
        name = _bare_name(self.package, self.ecosystem)
        if self.ecosystem == "pypi":
            return f"{name}=={version}"
        if self.package.startswith(("npm:", "jsr:")):
            return f"{self.package.split(':', 1)[0]}:{name}@{version}"
        return f"{name}@{version}"


def unpinned(template: LaunchTemplate) -> Unpinned | None:
    """The package or image this launch fetches without an exact version or digest; None when pinned or not known."""
    found = launched(template)
    return None if found is None or found.exact else found


def launched(template: LaunchTemplate | ResolvedLaunch) -> Unpinned | None:
    """The package or image this launch fetches through a runner, pinned or not; None for anything else."""
    if not is_local(template.transport) or not template.command:
        return None
    runner = posixpath.basename(template.command.replace("\\", "/"))
    runner = runner[:-4] if runner.endswith((".cmd", ".exe")) else runner
    args = list(template.args)
    if runner in ("pnpm", "yarn") and args[:1] == ["dlx"]:
        runner, args = f"{runner} dlx", args[1:]
    elif runner == "uv" and args[:2] == ["tool", "run"]:
        runner, args = "uv tool run", args[2:]
    elif runner in ("pipx", "deno", "docker", "podman") and args[:1] == ["run"]:
        args = args[1:]
    elif runner in ("pipx", "deno", "docker", "podman", "pnpm", "yarn", "uv"):
        return None
    check = CHECKS.get(runner)
    return check(runner, args) if check else None


def _npm(runner: str, args: list[str]) -> Unpinned | None:
    explicit = _option_value(args, ("-p", "--package"))
    package = explicit or _first_word(args, NPX_VALUE_OPTIONS)
    if package is None or _is_path(package):
        return None
    return Unpinned(package, runner, "npm", exact=_npm_version(package) is not None)


def _uv(runner: str, args: list[str]) -> Unpinned | None:
    package = _option_value(args, ("--from",)) or _first_word(args, UV_VALUE_OPTIONS)
    return _python(runner, package)


def _pipx(runner: str, args: list[str]) -> Unpinned | None:
    package = _option_value(args, ("--spec",)) or _first_word(args, PIPX_VALUE_OPTIONS)
    return _python(runner, package)


def _python(runner: str, package: str | None) -> Unpinned | None:
    if package is None or _is_path(package) or "://" in package:
        return None
    _, sep, version = package.partition("==")
    at_version = package.rpartition("@")[2] if "@" in package else ""  # uvx also reads `name@1.2.3`
    exact = bool(sep and PYPI_EXACT.fullmatch(version.strip())) or bool(at_version and PYPI_EXACT.fullmatch(at_version))
    return Unpinned(package, runner, "pypi", exact=exact)


def _container(runner: str, args: list[str]) -> Unpinned | None:
    words = iter(args)
    for word in words:
        if word.startswith("-"):
            if "=" not in word and word not in DOCKER_FLAGS:
                next(words, None)
            continue
        return Unpinned(word, runner, "image", exact=bool(DIGEST.search(word)) or "$" in word)
    return None


def _deno(runner: str, args: list[str]) -> Unpinned | None:
    for word in args:
        if word.startswith(("npm:", "jsr:")):
            return Unpinned(word, runner, "npm", exact=_npm_version(word.split(":", 1)[1]) is not None)
        if not word.startswith("-"):
            return None  # a local script or a URL: nothing fetched by name
    return None


CHECKS: dict[str, Callable[[str, list[str]], Unpinned | None]] = {
    "npx": _npm,
    "bunx": _npm,
    "pnpx": _npm,
    "pnpm dlx": _npm,
    "yarn dlx": _npm,
    "uvx": _uv,
    "uv tool run": _uv,
    "pipx": _pipx,
    "docker": _container,
    "podman": _container,
    "deno": _deno,
}


def _option_value(args: list[str], names: tuple[str, ...]) -> str | None:
    for index, word in enumerate(args):
        if word in names and index + 1 < len(args):
            return args[index + 1]
        for name in names:
            if name.startswith("--") and word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def _first_word(args: list[str], value_options: frozenset[str]) -> str | None:
    """The first argument that is not an option or an option's value: the package a runner runs."""
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word == "--":
            continue
        elif word.startswith("-"):
            skip = word in value_options
        else:
            return word
    return None


def _npm_version(spec: str) -> str | None:
    """The exact version of an npm spec (`pkg@1.2.3`, `@scope/pkg@1.2.3`); None for a range, tag or none."""
    name_end = spec.find("@", 1) if spec.startswith("@") else spec.find("@")
    if name_end <= 0:
        return None
    version = spec[name_end + 1 :]
    return version if NPM_EXACT.fullmatch(version) else None


def _bare_name(package: str, ecosystem: str) -> str:
    if ecosystem == "pypi":
        return re.split(r"[=<>!~@\[;]", package, maxsplit=1)[0].strip()
    spec = package.split(":", 1)[1] if package.startswith(("npm:", "jsr:")) else package
    name_end = spec.find("@", 1) if spec.startswith("@") else spec.find("@")
    return spec if name_end <= 0 else spec[:name_end]


def _is_path(word: str) -> bool:
    return word.startswith((".", "/", "~", "$", "file:", "git+", "http:", "https:")) or word.endswith(
        (".js", ".mjs", ".ts", ".py", ".whl", ".tgz")
    )
