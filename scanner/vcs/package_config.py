"""`check --base`: a change to the repository's package-manager configuration is a change of policy.

mcp-lock's own package launches never read it (`scanner.transports.project_config` hides it), but every
developer's client that runs `npx` or `uvx` in the repository does: a `.npmrc` registry or `node-options`,
a `uv.toml` index, a `.pnpmfile.cjs` hook or a committed `node_modules/` decides what their servers run.
So each changed file is a `policy-changed` note, and a blocking `policy-loosened` finding when the change
adds a registry, an index, node options, a hook, a script or an installed package (anything under a
committed `node_modules/`, `.venv/` or `venv/`); a file that cannot be read counts as one that does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

import git

from scanner.errors import UsageError
from scanner.files.safe_read import CONFIG_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import POLICY_CHANGED, POLICY_LOOSENED
from scanner.transports.project_config import CONFIG_FILES, INSTALL_FOLDERS
from scanner.vcs.base import Worktree, file_at

HOOKS = frozenset({".pnpmfile.cjs"})  # code the package manager runs: any content is a hook
# Settings that choose where packages come from or what runs with them (npm, yarn, pnpm, uv, pip).
RISKY = re.compile(
    r"registry|index|find-links|trusted-host|node[-_]options|script|hook|_auth|token|ignore-scripts|init-module|"
    r"onload|globalconfig|userconfig|prefix|yarnPath|plugins|npmScopes|unsafeHttp|proxy|cafile|strict-ssl|"
    r"python-install-mirror|sources|override|constraint|config-settings|no-build-isolation|\bca\b",
    re.IGNORECASE,
)
UV_TABLE = re.compile(r"^[ \t]*\[\[?tool\.uv\b", re.MULTILINE)
LISTED = 5  # changed files of one committed install named, at most


def package_config_findings(
    changed: Iterable[str], worktree: Worktree, base: git.Commit, label: str
) -> list[Finding]:
    """One finding per changed package-manager file, and one per committed install folder that changed."""
    findings: list[Finding] = []
    installs: dict[str, list[str]] = {}
    for path in sorted(changed):
        parts = PurePosixPath(path).parts
        folder = next((i for i, part in enumerate(parts[:-1]) if part in INSTALL_FOLDERS), None)
        if folder is not None:
            installs.setdefault("/".join(parts[: folder + 1]), []).append(path)
            continue
        name = parts[-1] if parts else ""
        if name in CONFIG_FILES or name == "pyproject.toml":
            finding = _config_finding(path, name, worktree, base, label)
            if finding is not None:
                findings.append(finding)
    for folder, paths in installs.items():
        shown = ", ".join(paths[:LISTED]) + (f" and {len(paths) - LISTED} more" if len(paths) > LISTED else "")
        message = (
            f"{folder}: a committed install changed since the base {label} ({shown}): package launchers run what "
            "it holds instead of the pinned package; mcp-lock hides it from its own launches, a client does not"
        )
        findings.append(Finding(POLICY_LOOSENED, folder, message, SourceLocation(folder, 1)))
    return findings


def _config_finding(path: str, name: str, worktree: Worktree, base: git.Commit, label: str) -> Finding | None:
    now, before = _text(worktree, path), _base_text(base, path)
    if name == "pyproject.toml":  # only its [tool.uv] tables are package-manager configuration
        now, before = _uv_tables(now), _uv_tables(before)
        if now == before:
            return None
    added = [line for line in (now or "").splitlines() if line.strip() and line not in (before or "").splitlines()]
    if now is None and _readable(worktree, path) is False:
        reason = "it cannot be read as a regular file in the repository"
        loosens = True
    elif name in HOOKS and now:
        reason, loosens = "a hook script the package manager runs", True
    else:
        risky = [line.strip() for line in added if RISKY.search(line.split("=", 1)[0].split(":", 1)[0])]
        loosens = bool(risky)
        reason = f"sets {', '.join(risky[:3])}" if risky else ("removed" if now is None else "changed")
    where = f"{path} [tool.uv]" if name == "pyproject.toml" else path
    if loosens:
        message = (
            f"{where}: package-manager configuration changed since the base {label}: {reason}; every client "
            "that runs a package launcher here reads it (mcp-lock's own launches do not)"
        )
        return Finding(POLICY_LOOSENED, path, message, SourceLocation(path, 1))
    message = f"{where}: package-manager configuration {reason} since the base {label}"
    return Finding(POLICY_CHANGED, path, message, SourceLocation(path, 1))


def _text(worktree: Worktree, path: str) -> str | None:
    try:
        return read_regular(worktree.root / path, worktree.root, path, CONFIG_LIMIT).decode("utf-8", "replace")
    except (MissingFile, RefusedFile):
        return None


def _readable(worktree: Worktree, path: str) -> bool | None:
    """False for a path that exists but is no readable regular file (a link out, a FIFO); None when absent."""
    full = worktree.root / path
    if not full.exists() and not full.is_symlink():
        return None
    return _text(worktree, path) is not None


def _base_text(base: git.Commit, path: str) -> str | None:
    try:
        data = file_at(base, path, CONFIG_LIMIT)
    except UsageError:
        return "\x00 unreadable at the base"  # differs from anything the change has: judged as a change
    return data.decode("utf-8", "replace") if data is not None else None


def _uv_tables(text: str | None) -> str | None:
    """The `[tool.uv…]` tables of a pyproject.toml, as written (None when it has none)."""
    if text is None:
        return None
    starts = [match.start() for match in UV_TABLE.finditer(text)]
    if not starts:
        return None
    tables = []
    for start in starts:
        following = re.search(r"^[ \t]*\[", text[start + 1 :], re.MULTILINE)
        end = start + 1 + following.start() if following else len(text)
        tables.append(text[start:end])
    return "".join(tables)
