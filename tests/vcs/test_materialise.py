"""`check --base` runs discovery on the config files of the base commit: exactly those a checkout would give it."""

from __future__ import annotations

from pathlib import Path

import git as gitpython

from scanner.sources.discover import candidates
from scanner.vcs.base import materialise_configs

from .gitrepo import git

FILES = [
    ".mcp.json",
    ".vscode/mcp.json",
    ".continue/mcpServers/notes.yaml",
    ".continue/mcpServers/readme.md",  # not a Continue suffix
    "server.json",
    "a/b/c/d/e/server.json",  # a folder 5 deep: walked
    "a/b/c/d/e/f/server.json",  # 6 deep: the deepest folder walked
    "a/b/c/d/e/f/g/server.json",  # 7 deep: beyond the walk
    "node_modules/pkg/server.json",
    "tests/server.json",
    ".hidden/server.json",
    ".github/manifest.json",
    "pkg/gemini-extension.json",
    "src/main.py",
    "notes/mcp.json",  # `mcp.json` is only read at fixed paths
]


def test_the_base_commit_gives_discovery_the_files_a_checkout_would(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    for rel in FILES:
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text("{}\n", encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "configs")
    dest = tmp_path / "base"
    dest.mkdir()

    written = materialise_configs(gitpython.Repo(top).head.commit, "", dest)

    on_checkout = sorted(rel for rel, _ in candidates(top))
    assert on_checkout == sorted(
        [
            ".mcp.json",
            ".vscode/mcp.json",
            ".continue/mcpServers/notes.yaml",
            "server.json",
            "a/b/c/d/e/server.json",
            "a/b/c/d/e/f/server.json",
            ".github/manifest.json",
            "pkg/gemini-extension.json",
        ]
    )
    materialised = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert materialised == on_checkout
    assert written == len(on_checkout)
