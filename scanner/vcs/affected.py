"""Why a declared server deserves a look in this pull request: its launch changed, it is new, or a
package manifest it runs from changed (a dependency bump).

Manifest rule: a manifest in directory D affects a stdio server when one of its *places* lies in D
or below it. A server's places are its working directory (the scanned repository unless the
declaration sets `cwd`) and every path-like word of its command and arguments (containing `/`, or
ending in a script suffix), taken relative to that directory. So a manifest at the repository root
(or above it, up to the git root) affects every stdio server run from the repository, e.g. `npx pkg`
resolving `pkg` from the root `package.json`; `servers/a/package.json` affects only servers whose
cwd or script lies under `servers/a/`. Remote (HTTP/SSE) servers run no local code and are never
affected.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

import git

from scanner.lock.model import launch_diff
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.model.transports import is_local
from scanner.sources.discover import Discovery, discover
from scanner.sources.model import LaunchTemplate, Server
from scanner.vcs.base import Worktree, materialise_configs

MANIFESTS = frozenset(
    {
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "pyproject.toml",
        "uv.lock",
        "poetry.lock",
        "Pipfile",
        "Pipfile.lock",
    }
)
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".jar")
WORKSPACE = "${workspaceFolder}"


def is_manifest(path: str) -> bool:
    name = PurePosixPath(path).name
    return name in MANIFESTS or (name.startswith("requirements") and name.endswith(".txt"))


def discover_at(
    commit: git.Commit,
    prefix: str,
    environ: Mapping[str, str],
    inputs: Mapping[str, str],
    server_inputs: Mapping[str, Mapping[str, str]],
) -> Discovery:
    """Discovery as it would have run on a checkout of `commit` (config files only, in a temp dir)."""
    with tempfile.TemporaryDirectory(prefix="mcp-lock-base-") as temp:
        materialise_configs(commit, prefix, Path(temp))
        return discover(Path(temp), environ, inputs=inputs, server_inputs=server_inputs)


def launch_reasons(current: Iterable[Server], base: Discovery, label: str) -> list[Finding]:
    """A note for each declared server that is new since the base or whose launch differs from it."""
    before = {s.key: s.template.spec() for s in base.servers if s.template is not None}
    findings: list[Finding] = []
    for server in current:
        if server.template is None:
            continue
        spec, old = server.template.spec(), before.get(server.key)
        if old is None:
            message, details = f"{server.key}: declared since the base {label}", []
        elif (diff := launch_diff(old, spec)) is not None:
            message = f"{server.key}: launch changed since the base {label} ({', '.join(diff.names)})"
            details = diff.details
        else:
            continue
        findings.append(
            Finding(rule("changed-since-base"), server.key, message, server.primary.location, details=details)
        )
    return findings


def manifest_reasons(
    current: Iterable[Server], changed: Iterable[str], worktree: Worktree, repo_dir: Path, label: str
) -> list[Finding]:
    """A note for each stdio server that a changed manifest affects (see the module docstring)."""
    manifests = sorted(p for p in changed if is_manifest(p))
    findings: list[Finding] = []
    for server in current:
        if server.template is None:
            continue
        places = server_places(server.template, repo_dir)
        hits = [m for m in manifests if any(_inside(place, (worktree.root / m).parent) for place in places)]
        if not hits:
            continue
        shown = [_relative(worktree.root / m, repo_dir) for m in hits]
        findings.append(
            Finding(
                rule("dependency-changed"),
                server.key,
                f"{server.key}: {', '.join(shown)} changed since the base {label}; the server may run different code",
                server.primary.location,
                details=[f"{s}: the server runs from its directory or below" for s in shown],
            )
        )
    return findings


def server_places(template: LaunchTemplate, repo_dir: Path) -> list[Path]:
    """Absolute, normalised paths a stdio server runs from or runs: its cwd and path-like words."""
    if not is_local(template.transport):
        return []
    cwd = _as_path(template.cwd, repo_dir, repo_dir) if template.cwd else repo_dir
    if cwd is None:
        return []
    places = [cwd]
    for word in (template.command or "", *template.args):
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if _path_like(value) and (path := _as_path(value, cwd, repo_dir)) is not None:
            places.append(path)
    return places


def _path_like(word: str) -> bool:
    return "://" not in word and ("/" in word or "\\" in word or word.endswith(SCRIPT_SUFFIXES))


def _as_path(word: str, cwd: Path, repo_dir: Path) -> Path | None:
    """`word` as an absolute path; None when it still holds a placeholder other than the workspace."""
    word = word.replace(WORKSPACE, str(repo_dir))
    if "${" in word or "{env:" in word:
        return None
    return Path(os.path.normpath(cwd / word))


def _inside(place: Path, directory: Path) -> bool:
    return place == directory or directory in place.parents


def _relative(path: Path, repo_dir: Path) -> str:
    return Path(os.path.relpath(path, repo_dir)).as_posix()
