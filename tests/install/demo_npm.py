"""The demo server of the npm tree tests, declared from a loopback registry (tests/artifacts/npm_registry.py)."""

from __future__ import annotations

from artifacts.npm_registry import Registry
from fixture_repo import Repo


def declare(repo: Repo, registry: Registry, spec: str, env: dict[str, str] | None = None) -> None:
    """`demo`: `npx -y SPEC` from `registry`, with `env` added to its environment."""
    repo.add_entry(
        "demo", {"command": "npx", "args": ["-y", spec], "env": {"npm_config_registry": registry.url, **(env or {})}}
    )


def lock_top_and_dep(
    repo: Repo, registry: Registry, env: dict[str, str], top: str, dep: str, dep_range: str = "^1.0.0"
) -> None:
    """`top@1.0.0` depending on `dep` (`dep_range`), both published a month ago, declared and locked."""
    registry.publish(dep, "1.0.0", "dependency one", days_ago=30)
    registry.publish(top, "1.0.0", "top one", dependencies={dep: dep_range}, days_ago=30)
    declare(repo, registry, f"{top}@1.0.0")
    done = repo.run("lock", env=env)
    assert done.exit_code == 0, done.output
