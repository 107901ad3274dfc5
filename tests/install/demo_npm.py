"""The demo server of the npm tree tests, declared from a loopback registry (tests/artifacts/npm_registry.py)."""

from __future__ import annotations

from artifacts.npm_registry import Registry
from fixture_repo import Repo


def declare(repo: Repo, registry: Registry, spec: str, env: dict[str, str] | None = None) -> None:
    """`demo`: `npx -y SPEC` from `registry`, with `env` added to its environment."""
    repo.add_entry(
        "demo", {"command": "npx", "args": ["-y", spec], "env": {"npm_config_registry": registry.url, **(env or {})}}
    )
