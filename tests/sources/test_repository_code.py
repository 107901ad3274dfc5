"""Which launches count as repository code (issue 27, item 2): every stdio launch except a package runner
fetching a package or image by name and pointing nowhere into the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner.sources.declarations import LaunchTemplate
from scanner.sources.repository_code import runs_repository_code

REPO = Path("/work/project")


def stdio(command: str, *args: str, cwd: str | None = None, **env: str) -> LaunchTemplate:
    return LaunchTemplate("stdio", command, args, cwd, env=tuple(sorted(env.items())))


@pytest.mark.parametrize(
    "template",
    [
        stdio("npx", "-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "/tmp/data"),
        stdio("uvx", "mcp-server-time==2025.9.25"),
        stdio("uvx", "mcp-server-fetch"),  # unpinned: the registry decides, not the repository
        stdio("docker", "run", "-i", "--rm", "ghcr.io/github/github-mcp-server@sha256:" + "0" * 64),
        stdio("npx", "-y", "pkg@1.2.3", npm_config_registry="http://127.0.0.1:4873/", GITHUB_TOKEN="${env:T}"),
        LaunchTemplate("http", url="https://api.example.com/mcp"),
    ],
)
def test_package_launches_and_remote_servers_are_not_repository_code(template: LaunchTemplate) -> None:
    assert not runs_repository_code(template, REPO)


@pytest.mark.parametrize(
    "template",
    [
        stdio("node", "."),
        stdio("node", "dist/index.js"),
        stdio("python3", "-c", "import srv"),
        stdio("bash", "-c", "exec python3 srv.py"),
        stdio("python3", "srvscript"),
        stdio("github-mcp-server", "stdio"),  # a program on PATH reads whatever its cwd, the repository, holds
        stdio("uvx", "--from", ".", "my-server"),
        stdio("uv", "run", "server.py"),
        stdio("npx", "-y", "./local-package"),
        stdio("npx", "-y", "pkg@1.2.3", cwd="${workspaceFolder}/tools"),
        stdio("npx", "-y", "pkg@1.2.3", NODE_OPTIONS="--require=/tmp/x.js"),
        stdio("uvx", "pkg==1.0.0", PYTHONPATH="lib"),
        stdio("docker", "run", "-i", "-v", "${workspaceFolder}:/work", "image@sha256:" + "0" * 64),
        stdio("docker", "run", "-i", "-v", f"{REPO}/data:/data", "image@sha256:" + "0" * 64),
        stdio("uvx", "--with-editable=./plugins", "pkg==1.0.0"),
    ],
)
def test_everything_else_local_is_repository_code(template: LaunchTemplate) -> None:
    assert runs_repository_code(template, REPO)
