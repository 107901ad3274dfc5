"""Shared fixtures: throwaway repos that declare real SDK-built servers whose definitions tests can change."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from scanner.cli.main import main

FIXTURES = Path(__file__).parent / "fixtures"
SPEC_SERVER = FIXTURES / "servers" / "spec_server.py"
RAW_SERVER = FIXTURES / "servers" / "raw_server.py"


def base_spec() -> dict[str, Any]:
    return {
        "name": "notes",
        "version": "1.0.0",
        "instructions": "Use these tools to keep notes.",
        "tools": [
            {
                "name": "add_note",
                "description": "Add a note to the notebook.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "The note text."}},
                    "required": ["text"],
                },
            },
            {
                "name": "list_notes",
                "description": "List every note.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": True},
            },
        ],
        "prompts": [{"name": "summarise", "description": "Summarise the notes."}],
    }


class Repo:
    """A temporary repository with `.mcp.json` and one spec file per declared fixture server."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.servers: dict[str, dict[str, Any]] = {}

    @property
    def lock_path(self) -> Path:
        return self.root / "mcp-lock.json"

    def spec_path(self, name: str) -> Path:
        return self.root / "specs" / f"{name}.json"

    def add_stdio(self, name: str, spec: dict[str, Any] | None = None, **extra: Any) -> None:
        self.write_spec(name, spec or base_spec())
        entry = {"command": sys.executable, "args": [str(SPEC_SERVER), f"specs/{name}.json"], **extra}
        self.servers[name] = entry
        self.write_config()

    def add_raw(self, name: str, behaviour: dict[str, Any]) -> None:
        """A raw fixture server (tests/fixtures/servers/raw_server.py) that does what `behaviour` says."""
        path = self.root / f"{name}.behaviour.json"
        path.write_text(json.dumps(behaviour), encoding="utf-8")
        self.add_entry(name, {"command": sys.executable, "args": [str(RAW_SERVER), str(path)]})

    def add_entry(self, name: str, entry: dict[str, Any]) -> None:
        self.servers[name] = entry
        self.write_config()

    def write_spec(self, name: str, spec: dict[str, Any]) -> None:
        path = self.spec_path(name)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(spec), encoding="utf-8")

    def write_config(self) -> None:
        text = json.dumps({"mcpServers": self.servers}, indent=2)
        (self.root / ".mcp.json").write_text(text, encoding="utf-8")

    def run(self, *args: str, env: dict[str, str] | None = None) -> Result:
        command = [args[0], "--repo", str(self.root), "--quiet", *args[1:]] if args[0] != "list" else [
            "list",
            "--repo",
            str(self.root),
            *args[1:],
        ]
        return CliRunner().invoke(main, command, env=env, catch_exceptions=False)

    def lock_json(self) -> dict[str, Any]:
        return json.loads(self.lock_path.read_text(encoding="utf-8"))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    root.mkdir()
    return Repo(root)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[Any]:
    """Start the spec server over HTTP (`--http` or `--sse`) on a free loopback port."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(spec_path: Path, mode: str = "--http") -> int:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, str(SPEC_SERVER), str(spec_path), mode, str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        # A bound on waiting, not on speed: the SDK's import alone took 8 s at load 15 (4 pytest-xdist workers and
        # other jobs on 2 cores), and 20 s failed tests/test_leaks.py under load.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    return port
            time.sleep(0.05)
        raise RuntimeError("fixture HTTP server did not start")

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)
