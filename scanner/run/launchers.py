"""Boot failures of a package launcher (npx, uvx, uv run) before any server started, and what to do about them.

A launcher that cannot fetch, install or sync the package exits before the server says a word, so the
transport only sees the connection close during the initialize handshake. Its own error line is the cause;
the first one found in the server's stderr leads the finding instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# npm 7+ writes `npm error code E…` (older: `npm ERR! code E…`); a numeric code is the server's own exit status.
NPM_ERROR = re.compile(r"^npm (?:error|ERR!) code (E[A-Z0-9_]+)\b", re.MULTILINE)
NPM_DETAIL = re.compile(r"^npm (?:error|ERR!) (?!code |A complete log)(.+)$", re.MULTILINE)
# npx resolved the package to a bin that is not there: the shell says so (`sh: 1: server-notes: not found`).
BIN_NOT_FOUND = re.compile(r"^sh: \d+: (\S+): (?:command )?not found$", re.MULTILINE)
# uv writes `error: …` or a `× …` diagnostic; a Python traceback means the server itself ran.
UV_ERROR = re.compile(r"^\s*(?:error: |× )(.+)$", re.MULTILINE)
LAUNCHERS = {"npx": "npm", "npm": "npm", "pnpm": "npm", "uvx": "uv", "uv": "uv"}
MAX_SHOWN = 200

# (launcher, markers, hint): the first hint whose marker is in stderr is shown.
LAUNCHER_HINTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "npm",
        ("canceled due to missing packages", "Need to install the following packages"),
        "hint: npx asks before it installs a package it has not cached, and with no terminal to answer (or "
        "npm_config_yes=false) the answer is no: add `-y` before the package in the declaration's args "
        "(`npx -y PACKAGE@VERSION`)",
    ),
    (
        "npm",
        ("ENOTCACHED",),
        "hint: under `network: deny` npm runs offline and its cache does not hold this package: install it "
        "where mcp-lock runs first (`npm ci` for a dependency of the repository, or `npx -y PACKAGE@VERSION "
        "--help` once to fill the cache), or set `network: allow` for this server in mcp-lock.yaml",
    ),
    (
        "npm",
        (": not found", "could not determine executable to run", "EJSONPARSE", "ENOWORKSPACES"),
        "hint: npx runs in the repository, and when the repository's own package.json is this package (or "
        "declares it as a workspace) npx runs that local copy, whose bin is not built or linked, instead of "
        "the published one: build it first (`npm ci && npm run build`), or launch the built server with "
        "`node path/to/dist/index.js`",
    ),
    (
        "uv",
        ("Read-only file system",),
        "hint: `uv run` re-syncs the project's environment before it starts the server, and the sandbox "
        "keeps the repository read-only: sync before mcp-lock runs (`uv sync --frozen`) and launch with "
        "`uv run --no-sync …` (or set UV_NO_SYNC=1 in the server's env)",
    ),
    (
        "uv",
        ("network was disabled", "not found in the cache", "offline mode"),
        "hint: under `network: deny` uv runs offline and its cache does not hold this package: run the "
        "launch once where mcp-lock runs to fill the cache, or set `network: allow` for this server in "
        "mcp-lock.yaml",
    ),
)


def launcher_of(argv0: str | None) -> str | None:
    """"npm" or "uv" when the command is one of their launchers."""
    return LAUNCHERS.get(os.path.basename(argv0 or ""))


def launcher_failure(argv0: str | None, error: str, stderr: str) -> tuple[str | None, list[str]]:
    """The lead to show instead of `error` when the launcher itself failed (else None), and its hints."""
    launcher = launcher_of(argv0)
    if launcher is None or "closed the connection" not in error:
        return None, []
    cause = _npm_cause(stderr) if launcher == "npm" else _uv_cause(stderr)
    if cause is None:
        return None, []
    command = os.path.basename(argv0 or "")
    lead = f"{command} failed before the server started: {cause[:MAX_SHOWN]}"
    return lead, _hints(launcher, stderr)


def _npm_cause(stderr: str) -> str | None:
    code = NPM_ERROR.search(stderr)
    if code is not None:
        detail = NPM_DETAIL.search(stderr, code.end())
        return f"npm error {code[1]}" + (f": {detail[1].strip()}" if detail else "")
    missing = BIN_NOT_FOUND.search(stderr)
    if missing is not None:
        return f"npm found no `{missing[1]}` to run ({missing[0]})"
    detail = NPM_DETAIL.search(stderr)
    known = ("could not determine executable", "canceled due to missing packages")
    return f"npm error: {detail[1].strip()}" if detail and any(k in detail[1] for k in known) else None


def _uv_cause(stderr: str) -> str | None:
    if "Traceback (most recent call last)" in stderr:
        return None
    found = UV_ERROR.search(stderr)
    return f"uv error: {found[1].strip()}" if found else None


def _hints(launcher: str, stderr: str) -> list[str]:
    return [hint for who, markers, hint in LAUNCHER_HINTS if who == launcher and _any_in(markers, stderr)][:1]


def _any_in(markers: Sequence[str], text: str) -> bool:
    return any(marker in text for marker in markers)
