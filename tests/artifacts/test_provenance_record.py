"""`lock` and `update` record each package's verified provenance in the lock's tree record, and a later bump is
judged against that record: on a loopback npm registry serving the real @playwright/cli@0.1.1 tarball and its
real provenance (tests/fixtures/provenance/SOURCE.md) as a dependency of a demo server launched by `npx -y`.

The registry stops serving 0.1.1's attestations once it is pinned (a mirror that serves none, or a registry
account that removed them): only the lock still says it was built by microsoft/playwright-cli, so a finding
about its successor can only come from the lock's record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vcs.gitrepo import GitRepo

from artifacts.npm_registry import Registry
from scanner.artifacts.provenance import with_provenance
from scanner.lock.document import render
from scanner.lock.reader import parse

FIXTURES = Path(__file__).parent.parent / "fixtures" / "provenance"
CLI, TOP = "@playwright/cli", "mcp-prov-top"
CLI_PATH = f"node_modules/{CLI}"
REPOSITORY = "https://github.com/microsoft/playwright-cli"
# What the tarball's own package.json says (the packument's version document repeats it).
CLI_MANIFEST = {"bin": {"playwright-cli": "playwright-cli.js"},
                "dependencies": {"minimist": "^1.2.5", "playwright": "1.59.0-alpha-1771104257000"}}


def publish_real_cli(registry: Registry) -> None:
    """The real 0.1.1 tarball with its real attestations, and stand-ins for the two packages it depends on."""
    registry.publish("minimist", "1.2.8", "minimist stand-in", days_ago=400)
    registry.publish("playwright", "1.59.0-alpha-1771104257000", "playwright stand-in", days_ago=300)
    registry.packages.setdefault(CLI, {})["0.1.1"] = (FIXTURES / "playwright-cli-0.1.1.tgz").read_bytes()
    registry.published.setdefault(CLI, {})["0.1.1"] = "2026-02-14T21:00:00.000Z"
    registry.manifest[CLI, "0.1.1"] = CLI_MANIFEST
    registry.latest[CLI] = "0.1.1"
    registry.attestations[CLI, "0.1.1"] = (FIXTURES / "playwright-cli-0.1.1-attestations.json").read_bytes()


def declare(repo: GitRepo, registry: Registry, version: str) -> None:
    repo.add_entry("demo", {"command": "npx", "args": ["-y", f"{TOP}@{version}"],
                            "env": {"npm_config_registry": registry.url}})


def cli_record(repo: GitRepo) -> dict[str, Any]:
    tree = repo.lock_json()["servers"]["demo"]["launch"]["tree"]
    return next(p for p in tree["packages"] if p["path"] == CLI_PATH)


@pytest.fixture
def pinned(tmp_path: Path, npm_registry: Registry, npm_env: dict[str, str]) -> GitRepo:
    """demo runs TOP 1.0.0, which pulls in the real @playwright/cli@0.1.1; locked on main, branch `feature`."""
    publish_real_cli(npm_registry)
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=60, dependencies={CLI: "0.1.1"})
    repo = GitRepo(tmp_path / "top")
    declare(repo, npm_registry, "1.0.0")
    done = repo.run("lock", env=npm_env)
    assert done.exit_code == 0, done.output
    repo.commit("Pin demo")
    repo.branch("feature")
    return repo


def test_lock_records_the_verified_source_repository_of_a_transitive_dependency(
    pinned: GitRepo, npm_registry: Registry
) -> None:
    record = cli_record(pinned)
    assert record["provenance"] == {
        "repository": REPOSITORY, "workflow": ".github/workflows/publish.yml", "ref": "refs/tags/v0.1.1",
        "commit": "d1c6d1113932ddcee243e8b111b6d4aea553df20", "issuer": "https://token.actions.githubusercontent.com",
    }
    tree = pinned.lock_json()["servers"]["demo"]["launch"]["tree"]
    assert [p["name"] for p in tree["packages"] if "provenance" in p] == [CLI]  # the stand-ins have none
    assert f"-/npm/v1/attestations/{CLI}@0.1.1" in npm_registry.served
    # The lock reads back (its tree digest covers the record) and an offline check of it passes.
    assert parse(pinned.lock_path.read_text(encoding="utf-8")).servers["demo"].tree == tree
    assert pinned.run("check", "--offline").exit_code == 0


def test_a_warm_check_after_lock_boots_from_the_store_entry_lock_installed(
    pinned: GitRepo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """Recording provenance after the install does not make the installed tree another store entry."""
    store = Path(npm_env["MCP_LOCK_STORE"])
    entries = sorted(p.name for p in store.glob("[0-9a-f]*"))
    assert len(entries) == 1
    done = pinned.run("check", env=npm_env)
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in store.glob("[0-9a-f]*")) == entries  # booted from it, nothing installed again


def bump(repo: GitRepo, registry: Registry, npm_env: dict[str, str], cli: str) -> tuple[int, list[dict[str, Any]]]:
    """TOP 1.0.1 pulls in @playwright/cli at `cli`; the branch re-pins with `update` and is checked against main."""
    registry.publish(TOP, "1.0.1", "top two", days_ago=30, dependencies={CLI: cli})
    registry.attestations.pop((CLI, "0.1.1"))  # from now on only the lock says 0.1.1 had provenance
    declare(repo, registry, "1.0.1")
    repo.run("update", env=npm_env)
    repo.commit("Bump demo")
    out = repo.top.parent / "report.json"
    done = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
                    env={"npm_config_registry": registry.url})
    return done.exit_code, json.loads(out.read_text(encoding="utf-8"))["findings"]


def test_a_bump_to_a_dependency_release_without_provenance_is_high(
    pinned: GitRepo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    npm_registry.publish(CLI, "0.1.2", "no provenance", days_ago=30, **CLI_MANIFEST)
    code, found = bump(pinned, npm_registry, npm_env, "0.1.2")
    (lost,) = [f for f in found if f["rule"] == "provenance-lost"]
    assert code == 1 and lost["severity"] == "high" and lost["subject"] == f"{CLI}@0.1.2"
    assert f"{CLI}@0.1.1 had, built by {REPOSITORY} (.github/workflows/publish.yml)" in lost["message"]
    assert f"pulled in by {TOP}@1.0.1" in lost["message"]
    assert "provenance" not in cli_record(pinned)


def test_a_bump_to_a_release_built_from_another_repository_is_high(
    tmp_path: Path, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """The base pinned 0.1.0, recorded (by the lock that pinned it) as built by another repository; the bump to
    the real 0.1.1 verifies, from microsoft/playwright-cli. The registry serves no attestations for 0.1.0, so
    the other repository is known from the base's lock alone."""
    publish_real_cli(npm_registry)
    npm_registry.publish(CLI, "0.1.0", "an earlier release", days_ago=90, **CLI_MANIFEST)
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=60, dependencies={CLI: "0.1.0"})
    repo = GitRepo(tmp_path / "top")
    declare(repo, npm_registry, "1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    other = {"repository": "https://github.com/someone-else/playwright-cli",
             "workflow": ".github/workflows/publish.yml"}
    tree = lock.servers["demo"].tree
    assert tree is not None and not any("provenance" in p for p in tree["packages"])
    lock.servers["demo"].tree = with_provenance(tree, {CLI_PATH: other})
    repo.lock_path.write_text(render(lock), encoding="utf-8")
    repo.commit("Pin demo")
    repo.branch("feature")
    npm_registry.publish(TOP, "1.0.1", "top two", days_ago=30, dependencies={CLI: "0.1.1"})
    declare(repo, npm_registry, "1.0.1")
    updated = repo.run("update", env=npm_env)
    assert "provenance-source-changed" in updated.output, updated.output
    assert cli_record(repo)["provenance"]["repository"] == REPOSITORY  # what update verified is recorded
    repo.commit("Bump demo")
    out = tmp_path / "report.json"
    done = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
                    env={"npm_config_registry": npm_registry.url})
    found = json.loads(out.read_text(encoding="utf-8"))["findings"]
    (changed,) = [f for f in found if f["rule"] == "provenance-source-changed"]
    assert done.exit_code == 1 and changed["severity"] == "high" and changed["subject"] == f"{CLI}@0.1.1"
    assert "before: https://github.com/someone-else/playwright-cli" in changed["details"][0]
    assert f"after: {REPOSITORY}" in changed["details"][1]


def test_check_fresh_names_a_transitive_release_that_lost_the_provenance_the_lock_records(
    tmp_path: Path, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """Behind an unchanged `npx -y TOP@1.0.0`, @playwright/cli moves in range to a release with no provenance.
    The registry no longer serves 0.1.1's attestations, so only the lock's record says it had them: the
    scheduled `check --fresh` fails on it, naming the package that pulls it in."""
    publish_real_cli(npm_registry)
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=60, dependencies={CLI: "^0.1.1"})
    repo = GitRepo(tmp_path / "top")
    declare(repo, npm_registry, "1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    assert cli_record(repo)["provenance"]["repository"] == REPOSITORY
    npm_registry.publish(CLI, "0.1.2", "no provenance", days_ago=30, **CLI_MANIFEST)
    npm_registry.attestations.pop((CLI, "0.1.1"))
    out = tmp_path / "fresh.json"
    done = repo.run("check", "--fresh", "--format", "json", "--output", str(out), env=npm_env)
    found = json.loads(out.read_text(encoding="utf-8"))["findings"]
    (lost,) = [f for f in found if f["rule"] == "provenance-lost"]
    assert done.exit_code == 1 and lost["severity"] == "high" and lost["subject"] == f"{CLI}@0.1.2", found
    assert f"pulled in by {TOP}@1.0.0" in lost["message"] and REPOSITORY in lost["message"]


def test_check_fresh_names_a_transitive_release_built_from_another_repository_than_the_lock_records(
    tmp_path: Path, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """The lock records @playwright/cli@0.1.0 as built by another repository (written into the record, as a
    lock that pinned it would have); in range, the real 0.1.1 verifies from microsoft/playwright-cli."""
    publish_real_cli(npm_registry)
    npm_registry.latest[CLI] = "0.1.0"
    npm_registry.publish(CLI, "0.1.0", "an earlier release", days_ago=90, **CLI_MANIFEST)
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=60, dependencies={CLI: "^0.1.0"})
    hidden = npm_registry.packages[CLI].pop("0.1.1")  # not yet published when the lock was written
    repo = GitRepo(tmp_path / "top")
    declare(repo, npm_registry, "1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    tree = lock.servers["demo"].tree
    assert tree is not None
    other = {"repository": "https://github.com/someone-else/playwright-cli",
             "workflow": ".github/workflows/publish.yml"}
    lock.servers["demo"].tree = with_provenance(tree, {CLI_PATH: other})
    repo.lock_path.write_text(render(lock), encoding="utf-8")
    npm_registry.packages[CLI]["0.1.1"] = hidden
    npm_registry.latest[CLI] = "0.1.1"
    out = tmp_path / "fresh.json"
    done = repo.run("check", "--fresh", "--format", "json", "--output", str(out), env=npm_env)
    found = json.loads(out.read_text(encoding="utf-8"))["findings"]
    (changed,) = [f for f in found if f["rule"] == "provenance-source-changed"]
    assert done.exit_code == 1 and changed["severity"] == "high" and changed["subject"] == f"{CLI}@0.1.1", found
    assert f"pulled in by {TOP}@1.0.0" in changed["message"]
    assert "before: https://github.com/someone-else/playwright-cli" in changed["details"][0]


def test_check_base_on_a_re_pin_behind_an_unchanged_launch_names_the_release_that_lost_provenance(
    tmp_path: Path, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """The pull request re-pins the tree of an unchanged `npx -y TOP@1.0.0` (here by locking anew) to today's
    resolution, which moves @playwright/cli in range to a release without provenance: `check --base` judges it
    against the base lock's record and fails, naming the package that pulls it in."""
    publish_real_cli(npm_registry)
    npm_registry.publish(TOP, "1.0.0", "top one", days_ago=60, dependencies={CLI: "^0.1.1"})
    repo = GitRepo(tmp_path / "top")
    declare(repo, npm_registry, "1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    repo.commit("Pin demo")
    repo.branch("feature")
    npm_registry.publish(CLI, "0.1.2", "no provenance", days_ago=30, **CLI_MANIFEST)
    npm_registry.attestations.pop((CLI, "0.1.1"))
    repo.lock_path.unlink()
    relocked = repo.run("lock", env=npm_env)
    assert relocked.exit_code == 0, relocked.output
    assert cli_record(repo)["version"] == "0.1.2"
    repo.commit("Re-pin demo's tree")
    out = tmp_path / "report.json"
    done = repo.run("check", "--base", "main", "--format", "json", "--output", str(out), env=npm_env)
    found = json.loads(out.read_text(encoding="utf-8"))["findings"]
    (lost,) = [f for f in found if f["rule"] == "provenance-lost"]
    assert done.exit_code == 1 and lost["severity"] == "high" and lost["subject"] == f"{CLI}@0.1.2", found
    assert f"pulled in by {TOP}@1.0.0" in lost["message"] and REPOSITORY in lost["message"]
