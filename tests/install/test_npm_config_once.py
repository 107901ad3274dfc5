"""`npm config list` is asked once a run per npm environment (issue 35), in the sandbox as every step: two
installs of one environment ask npm once, two environments ask twice, and a failing answer fails every install
of that environment with the same message.

npm is the real one, behind a wrapper first on PATH that writes down each `npm config` it is asked into npm's
cache (the one folder of the caller's that the sandbox lets the step write), from a loopback registry.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import anyio
import pytest
from artifacts.npm_registry import Registry
from fixture_repo import Repo

from scanner.install.npm_config import NpmConfigs

WRAPPER = """#!/bin/sh
if [ "$1" = config ]; then
  echo "$*" >> "$npm_config_cache/config-asked.log"
  if [ -n "$npm_config_mcp_lock_test_broken" ]; then echo "npm error the configuration is broken" >&2; exit 7; fi
fi
exec {npm} "$@"
"""
BROKEN = (
    "installing the launch's packages failed at `npm config list`: exit code 7: npm error the configuration is broken"
)


@pytest.fixture
def counted(tmp_path: Path, npm_env: dict[str, str]) -> dict[str, str]:
    """npm_env with the counting npm wrapper first on PATH (a folder not named `bin`: the sandbox binds that
    folder only, not the test's whole folder)."""
    npm = shutil.which("npm")
    assert npm is not None
    folder = tmp_path / "wrapped"
    folder.mkdir()
    wrapper = folder / "npm"
    wrapper.write_text(WRAPPER.format(npm=os.path.realpath(npm)), encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return {**npm_env, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def asked(env: dict[str, str]) -> list[str]:
    log = Path(env["npm_config_cache"], "config-asked.log")
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [line for line in lines if line.startswith("config list")]


def servers(repo: Repo, registry: Registry, *envs: dict[str, str]) -> None:
    """One `npx -y` launch from `registry` per entry of `envs`, each with that added to its declared env."""
    for number, env in enumerate(envs):
        name = f"mcp-once-{number}"
        registry.publish(name, "1.0.0", f"{name} one")
        repo.add_entry(name, {"command": "npx", "args": ["-y", f"{name}@1.0.0"],
                              "env": {"npm_config_registry": registry.url, **env}})


def test_two_installs_of_one_npm_environment_ask_npm_once_a_run(
    repo: Repo, npm_registry: Registry, counted: dict[str, str]
) -> None:
    servers(repo, npm_registry, {}, {})
    lock = repo.run("lock", env=counted)
    assert lock.exit_code == 0, lock.output
    assert len(asked(counted)) == 1, asked(counted)
    shutil.rmtree(counted["MCP_LOCK_STORE"])  # both trees installed again, into the same store, by the next run
    check = repo.run("check", env=counted)
    assert check.exit_code == 0, check.output
    assert len(asked(counted)) == 2, asked(counted)  # the next run asks again: no answer outlives its run


def test_two_npm_environments_are_asked_apart(
    repo: Repo, npm_registry: Registry, counted: dict[str, str]
) -> None:
    """The third launch names a scoped registry too: its npm environment differs, so its answer may; the first
    two share one."""
    servers(repo, npm_registry, {}, {}, {"npm_config_@mcp-once:registry": npm_registry.url})
    lock = repo.run("lock", env=counted)
    assert lock.exit_code == 0, lock.output
    assert len(asked(counted)) == 2, asked(counted)


def test_a_failing_answer_fails_every_install_of_that_environment_with_the_same_message(
    repo: Repo, npm_registry: Registry, counted: dict[str, str]
) -> None:
    servers(repo, npm_registry, {}, {})
    lock = repo.run("lock", env={**counted, "npm_config_mcp_lock_test_broken": "1"})
    assert lock.exit_code != 0, lock.output
    assert lock.output.count(BROKEN) == 2, lock.output  # one for each server
    assert len(asked(counted)) == 1, asked(counted)


def test_an_asker_stopped_before_its_answer_leaves_the_asking_to_the_next() -> None:
    """An install whose deadline passes while npm is still answering keeps no answer and no error: the install
    waiting for it asks itself, and a third gets that answer without asking."""
    configs, calls = NpmConfigs(), []

    async def ask() -> dict[str, str]:
        calls.append(len(calls))
        await anyio.sleep(0.2 if len(calls) == 1 else 0.01)
        return {"": f"http://127.0.0.1:9/{len(calls)}/"}

    async def main() -> tuple[dict[str, str], dict[str, str]]:
        found: dict[str, dict[str, str]] = {}

        async def waiter() -> None:
            found["waiter"] = await configs.registries("key", ask)

        async with anyio.create_task_group() as group:
            with anyio.move_on_after(0.05):  # the first asker's own install runs out of time
                group.start_soon(waiter)
                await configs.registries("key", ask)
        return found["waiter"], await configs.registries("key", ask)

    waiting, later = anyio.run(main)
    assert waiting == later == {"": "http://127.0.0.1:9/2/"}
    assert calls == [0, 1]


def test_waiters_get_the_asker_s_error_not_an_answer() -> None:
    configs, calls = NpmConfigs(), []

    async def ask() -> dict[str, str]:
        calls.append(1)
        await anyio.sleep(0.05)
        raise ValueError("npm said no")

    async def one(errors: list[str]) -> None:
        try:
            await configs.registries(("same",), ask)
        except ValueError as error:
            errors.append(str(error))

    async def main() -> list[str]:
        errors: list[str] = []
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(one, errors)
        await one(errors)  # after it failed: the same error, not asked again
        return errors

    assert anyio.run(main) == ["npm said no"] * 4
    assert calls == [1]
