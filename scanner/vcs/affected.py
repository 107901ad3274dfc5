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

Code rule: any other changed file affects a stdio server when the launch names it (or a directory
holding it), when it lies under a working directory the declaration sets, or when it lies in the
project of a script the launch names: the nearest directory above the script, below the repository
root, that holds a manifest, else the script's own directory. A script at the repository root has no
such directory; then every changed file with a script suffix counts (it may import any of them).
`python -m pkg.mod` names `pkg/mod` the same way.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

import git

from scanner.lock.lockfile import launch_diff
from scanner.model.findings import Finding
from scanner.model.rules import rule
from scanner.model.transports import is_local
from scanner.policy.settings import Policy
from scanner.sources.declarations import LaunchTemplate, Server
from scanner.sources.discover import Discovery, discover
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
    policy: Policy,
    files: Mapping[str, bytes] | None = None,
) -> Discovery:
    """Discovery as it would have run on a checkout of `commit` under `policy` (its inputs), in a temp dir:
    its config files, and `files` (repository-relative paths inside it: what `{file:…}` reads there)."""
    server_inputs = {key: value.inputs for key, value in policy.servers.items() if value.inputs}
    with tempfile.TemporaryDirectory(prefix="mcp-lock-base-") as temp:
        materialise_configs(commit, prefix, Path(temp))
        for rel, data in (files or {}).items():
            target = Path(temp, rel)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            except OSError:
                continue  # where a folder of configs is: left out, so the closures differ (fail closed)
        return discover(
            Path(temp), environ, inputs=policy.inputs, server_inputs=server_inputs, input_vars=policy.input_vars
        )


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


def code_reasons(
    current: Iterable[Server], changed: Iterable[str], worktree: Worktree, repo_dir: Path, label: str
) -> list[Finding]:
    """A note for each stdio server that runs, or may run, a changed file (see the module docstring)."""
    paths = sorted(changed)
    manifests = [p for p in paths if is_manifest(p)]
    findings: list[Finding] = []
    for server in current:
        if server.template is None:
            continue
        places = server_places(server.template, repo_dir)
        reported = {m for m in manifests if any(_inside(place, (worktree.root / m).parent) for place in places)}
        scopes = code_scopes(server.template, repo_dir)
        hits = [
            (path, why)
            for path in paths
            if path not in reported and (why := _why(worktree.root / path, scopes)) is not None
        ]
        if not hits:
            continue
        shown = [_relative(worktree.root / path, repo_dir) for path, _ in hits]
        more = f" and {len(shown) - MAX_SHOWN} more" if len(shown) > MAX_SHOWN else ""
        listed = ", ".join(shown[:MAX_SHOWN]) + more
        findings.append(
            Finding(
                rule("code-changed"),
                server.key,
                f"{server.key}: {listed} changed since the base {label}; the server may run different code",
                server.primary.location,
                details=[f"{name}: {why}" for name, (_, why) in zip(shown[:MAX_SHOWN], hits, strict=False)],
            )
        )
    return findings


# (directory or file, only files with a script suffix under it, why a change there counts)
Scope = tuple[Path, bool, str]
MAX_SHOWN = 10


def code_scopes(template: LaunchTemplate, repo_dir: Path) -> list[Scope]:
    """Where a changed file makes a stdio server run different code: see the module docstring."""
    if not is_local(template.transport):
        return []
    cwd = _as_path(template.cwd, repo_dir, repo_dir) if template.cwd else repo_dir
    if cwd is None:
        return []
    scopes: list[Scope] = [(cwd, False, "under the working directory it declares")] if template.cwd else []
    words = (template.command or "", *template.args)
    for index, word in enumerate(words):
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        module = index > 0 and words[index - 1] == "-m" and _MODULE.fullmatch(value)
        if module:
            value = value.replace(".", "/")
        elif not _path_like(value):
            continue
        path = _as_path(value, cwd, repo_dir)
        if path is None:
            continue
        scopes.append((path, False, f"named by the launch ({word})"))
        if (module or path.suffix in SCRIPT_SUFFIXES) and _inside(path, repo_dir):
            scopes.append(_project(path, repo_dir, word))
    return scopes


_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _project(script: Path, repo_dir: Path, word: str) -> Scope:
    """The project a named script in the repository belongs to: see the module docstring."""
    folder = script.parent
    while _inside(folder, repo_dir) and folder != repo_dir:
        if _has_manifest(folder):
            return (folder, False, f"in the project of {word} ({_relative(folder, repo_dir)})")
        folder = folder.parent
    if script.parent != repo_dir:
        return (script.parent, False, f"beside {word}")
    return (repo_dir, True, f"a script the repository-root script {word} may import")


def _has_manifest(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(is_manifest(entry.name) for entry in entries)
    except OSError:
        return False


def _why(path: Path, scopes: list[Scope]) -> str | None:
    for place, scripts_only, why in scopes:
        if _inside(path, place) and (not scripts_only or path.suffix in SCRIPT_SUFFIXES):
            return why
    return None


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
