"""Real temporary git repositories around the fixture repo, with a fixed author and dates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fixture_repo import SPEC_SERVER, Repo, base_spec

from scanner.cli.main import main
from scanner.lock.document import render
from scanner.lock.lockfile import Lockfile
from scanner.run import boot
from scanner.sources.declarations import Server

AUTHOR = "Ada Reviewer"


def git_env(day: int = 1) -> dict[str, str]:
    date = f"2024-03-{day:02d}T12:00:00+00:00"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": AUTHOR,
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": AUTHOR,
        "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def git(cwd: Path, *args: str, day: int = 1) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=git_env(day), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class GitRepo(Repo):
    """The fixture repo (`.mcp.json`, spec files) inside a git work tree; `root` may be a subdirectory."""

    def __init__(self, top: Path, sub: str = "") -> None:
        super().__init__(top / sub if sub else top)
        self.top = top
        self.root.mkdir(parents=True, exist_ok=True)
        self.day = 0
        git(top, "init", "-q", "-b", "main")

    def commit(self, message: str) -> str:
        self.day += 1
        git(self.top, "add", "-A")
        git(self.top, "commit", "-q", "-m", message, day=self.day)
        return git(self.top, "rev-parse", "HEAD")

    def branch(self, name: str) -> None:
        git(self.top, "checkout", "-q", "-b", name)

    def add_in_dir(self, name: str, folder: str, spec: dict[str, Any] | None = None) -> None:
        """A stdio fixture server whose spec file lives in `folder` (its 'package' directory)."""
        self.write(f"{folder}/spec.json", json.dumps(spec or base_spec()))
        self.add_entry(name, {"command": sys.executable, "args": [str(SPEC_SERVER), f"{folder}/spec.json"]})

    def write_empty_lock(self) -> None:
        """A lock that pins nothing (what `lock` no longer writes when no server booted)."""
        self.lock_path.write_text(render(Lockfile()), encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def log(self, *args: str) -> Result:
        return cli("log", "--repo", str(self.root), *args)

    def report(self, *args: str) -> dict[str, Any]:
        """Run `check` with a JSON report; the report, plus the run's exit code and output."""
        out = self.top.parent / "report.json"
        result = self.run("check", *args, "--json", str(out))
        data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        data["exit_code"], data["output"] = result.exit_code, result.output
        return data


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def notes(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["rule"] == rule]


def record_boots(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, the key of every server handed to the booter, in order."""
    keys: list[str] = []
    real = boot.boot_servers

    def recording(servers: Sequence[Server], *args: Any, **kwargs: Any) -> Any:
        keys.extend(server.key for server in servers)
        return real(servers, *args, **kwargs)

    monkeypatch.setattr(boot, "boot_servers", recording)
    return keys
