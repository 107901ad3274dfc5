"""Which launches fetch a package without an exact version or digest, read from the command line alone."""

from __future__ import annotations

import pytest

from scanner.sources.declarations import LaunchTemplate
from scanner.sources.unpinned import unpinned

DIGEST = "@sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("command", "args", "package"),
    [
        ("npx", ("-y", "@modelcontextprotocol/server-filesystem", "/srv"), "@modelcontextprotocol/server-filesystem"),
        ("npx", ("-y", "pkg@latest"), "pkg@latest"),
        ("npx", ("pkg@1",), "pkg@1"),  # a major version is a range to npm
        ("npx", ("pkg@^1.2.3",), "pkg@^1.2.3"),
        ("/usr/local/bin/npx", ("-p", "pkg", "pkg-bin"), "pkg"),
        ("bunx", ("pkg",), "pkg"),
        ("pnpm", ("dlx", "pkg"), "pkg"),
        ("yarn", ("dlx", "pkg@next"), "pkg@next"),
        ("uvx", ("mcp-server-time",), "mcp-server-time"),
        ("uvx", ("--from", "mcp-server-git", "mcp-server-git"), "mcp-server-git"),
        ("uv", ("tool", "run", "pkg>=1"), "pkg>=1"),
        ("pipx", ("run", "pkg"), "pkg"),
        ("docker", ("run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/github/github-mcp"), "ghcr.io/github/github-mcp"),
        ("podman", ("run", "--env=A=1", "img:1.0"), "img:1.0"),  # a tag moves; only a digest pins
        ("deno", ("run", "-A", "npm:pkg"), "npm:pkg"),
    ],
)
def test_unpinned_launches(command: str, args: tuple[str, ...], package: str) -> None:
    found = unpinned(LaunchTemplate("stdio", command, args))
    assert found is not None and found.package == package


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("npx", ("-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/srv")),
        ("bunx", ("pkg@1.2.3-rc.1",)),
        ("yarn", ("dlx", "pkg@2.0.0")),
        ("npx", ("./tools/server",)),
        ("uvx", ("mcp-server-time==1.0.0",)),
        ("uvx", ("--from", "mcp-server-git==0.6.2", "mcp-server-git")),
        ("uvx", ("--python", "3.12", "mcp-server-time@1.2.0")),
        ("pipx", ("run", "--spec", "pkg==1.0", "pkg")),
        ("docker", ("run", "-i", "--rm", "ghcr.io/x/y" + DIGEST)),
        ("deno", ("run", "-A", "jsr:@scope/pkg@1.0.0")),
        ("deno", ("run", "-A", "main.ts")),
        ("uv", ("run", "server.py")),
        ("node", ("server.js",)),
        ("python", ("-m", "server")),
    ],
)
def test_pinned_or_local_launches_are_left_alone(command: str, args: tuple[str, ...]) -> None:
    assert unpinned(LaunchTemplate("stdio", command, args)) is None


def test_remote_servers_are_not_launches() -> None:
    assert unpinned(LaunchTemplate("http", url="https://example.com/mcp")) is None


def test_pinned_spelling_per_ecosystem() -> None:
    npm = unpinned(LaunchTemplate("stdio", "npx", ("-y", "@scope/pkg@latest")))
    pypi = unpinned(LaunchTemplate("stdio", "uvx", ("mcp-server-time",)))
    deno = unpinned(LaunchTemplate("stdio", "deno", ("run", "jsr:@scope/pkg")))
    assert npm is not None and npm.pinned_spelling("1.2.3") == "@scope/pkg@1.2.3"
    assert pypi is not None and pypi.pinned_spelling("1.2.3") == "mcp-server-time==1.2.3"
    assert deno is not None and deno.pinned_spelling("1.2.3") == "jsr:@scope/pkg@1.2.3"
