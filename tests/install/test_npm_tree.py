"""`npx -y pkg@1.0.0` from a loopback npm registry: `lock` resolves and records the whole tree before any
package code runs (format 4: enough to install it again with no resolution), and `check` installs and boots
exactly that recorded tree, verified, whatever the registry published since."""

from __future__ import annotations

import json
from pathlib import Path

from artifacts.npm_registry import Registry
from fixture_repo import Repo

from install.demo_npm import declare

TOP, DEP = "mcp-tree-top", "mcp-tree-dep"
# A release that rewrites what npm recorded of its own install to claim 1.0.0, as a forging release would.
FORGER = """
const fs = require("fs"), path = require("path");
for (const up of ["..", "../..", "../../.."]) {
  for (const name of ["package-lock.json", "package.json", "node_modules/.package-lock.json"]) {
    try {
      const file = path.join(__dirname, up, name);
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/1\\.0\\.1/g, "1.0.0"));
    } catch (error) {}
  }
}
"""


def packages(repo: Repo) -> dict[str, str]:
    tree = repo.lock_json()["servers"]["demo"]["launch"]["tree"]
    return {p["name"]: p["version"] for p in tree["packages"]}


def fetched(registry: Registry, since: int) -> list[str]:
    """What the registry answered since request `since`: packuments (a resolution) and tarballs."""
    return registry.served[since:]


# The server boots only when it sees the runner's secret: a check that passes proves the secret reached it.
NEEDS_SECRET = 'if (process.env.DEMO_TOKEN !== "s3cret") { process.stderr.write("no secret"); process.exit(7); }'
SECRET = {"DEMO_TOKEN": "${DEMO_TOKEN}"}


def test_a_dependency_release_behind_an_unchanged_launch_never_boots_cold_or_warm(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    """The 2025 npm compromises' shape: a dependency's new in-range release. `check` of the unchanged,
    reviewed launch installs exactly the recorded tree (no packument is even asked for), on a cold runner
    (empty store, empty npm cache) and a warm one, and it boots with its secret."""
    npm_registry.publish(DEP, "1.0.0", "dependency one")
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "^1.0.0"}, prelude=NEEDS_SECRET)
    declare(repo, npm_registry, f"{TOP}@1.0.0", SECRET)
    env = {**npm_env, "DEMO_TOKEN": "s3cret"}
    lock = repo.run("lock", env=env)
    assert lock.exit_code == 0, lock.output
    document = repo.lock_json()
    assert document["lockfileVersion"] == 4
    tree = document["servers"]["demo"]["launch"]["tree"]
    assert tree["manager"] == "npm" and tree["format"] == 4 and tree["digest"].startswith("sha256:")
    assert packages(repo) == {TOP: "1.0.0", DEP: "1.0.0"}
    top = next(p for p in tree["packages"] if p["name"] == TOP)
    assert top["dependencies"] == {DEP: "^1.0.0"} and top["bin"] == {TOP: "server.js"}
    assert all(p["integrity"].startswith("sha512-") for p in tree["packages"])

    npm_registry.publish(DEP, "1.0.1", "dependency two: same tools, other code")
    (tmp_path / "cold-npm").mkdir()
    cold = {**env, "MCP_LOCK_STORE": str(tmp_path / "cold-store"), "npm_config_cache": str(tmp_path / "cold-npm")}
    for runner in (cold, env):  # a fresh CI runner, then one whose store holds the tree
        before = len(npm_registry.served)
        check = repo.run("check", env=runner)
        assert check.exit_code == 0, check.output
        asked = fetched(npm_registry, before)
        assert f"{DEP}/-/{DEP}-1.0.1.tgz" not in asked and DEP not in asked and TOP not in asked, asked
    assert f"{DEP}/-/{DEP}-1.0.0.tgz" in asked or runner is env  # the cold runner downloaded the pinned release


def test_a_release_that_rewrites_its_own_install_records_never_boots_on_a_cold_runner(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    npm_registry.publish(TOP, "1.0.0", "release one")
    declare(repo, npm_registry, TOP)  # unpinned: the lock records the version it resolved
    assert repo.run("lock", env=npm_env).exit_code == 0
    npm_registry.publish(TOP, "1.0.1", "release two", prelude=FORGER)
    cold = {**npm_env, "MCP_LOCK_STORE": str(tmp_path / "cold-store")}
    check = repo.run("check", env=cold)
    assert check.exit_code == 0, check.output
    assert f"{TOP}/-/{TOP}-1.0.1.tgz" not in npm_registry.served  # the forging release never ran


def test_the_same_version_with_other_content_never_boots(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    npm_registry.publish(DEP, "1.0.0", "dependency one")
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "1.0.0"})
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    npm_registry.publish(DEP, "1.0.0", "dependency one, re-published with other code")
    (tmp_path / "cold-npm").mkdir()
    cold = {**npm_env, "MCP_LOCK_STORE": str(tmp_path / "cold-store"), "npm_config_cache": str(tmp_path / "cold-npm")}
    check = repo.run("check", env=cold)  # npm checks the download against the lock's integrity and refuses it
    assert check.exit_code == 1, check.output
    assert "npm ci" in check.output and "integrity" in check.output.lower(), check.output
    assert not list((tmp_path / "cold-store").glob("[0-9a-f]*"))  # nothing was published into the store


def test_a_second_boot_of_the_same_tree_downloads_nothing(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    npm_registry.publish(DEP, "1.0.0", "dependency one")
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "^1.0.0"})
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    assert sum(path.endswith(".tgz") for path in npm_registry.served) == 2
    (tmp_path / "cold-npm-cache").mkdir()
    cold = {**npm_env, "npm_config_cache": str(tmp_path / "cold-npm-cache")}  # npm's own cache cannot help
    before = len(npm_registry.served)
    assert repo.run("check", env=cold).exit_code == 0
    assert not [path for path in npm_registry.served[before:] if path.endswith(".tgz")]
    entries = [p for p in (tmp_path / "store").iterdir() if not p.name.startswith(".")]
    assert len(entries) == 1 and not entries[0].stat().st_mode & 0o222  # one read-only entry


def test_with_sandbox_off_the_tree_is_recorded_and_verified(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    (repo.root / "mcp-lock.yaml").write_text("sandbox: off\n", encoding="utf-8")
    npm_registry.publish(DEP, "1.0.0", "dependency one")
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "^1.0.0"})
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    assert packages(repo) == {TOP: "1.0.0", DEP: "1.0.0"}
    npm_registry.publish(DEP, "1.1.0", "dependency two")
    check = repo.run("check", env={**npm_env, "MCP_LOCK_STORE": str(repo.root.parent / "cold-store")})
    assert check.exit_code == 0, check.output
    assert f"{DEP}/-/{DEP}-1.1.0.tgz" not in npm_registry.served


def test_a_failed_install_names_its_step_and_exit_code(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    npm_registry.publish(TOP, "1.0.0", "top one")
    declare(repo, npm_registry, f"{TOP}@9.9.9")  # no such version
    lock = repo.run("lock", env=npm_env)
    assert lock.exit_code == 1
    assert "npm install --package-lock-only" in lock.output and "exit code 1" in lock.output, lock.output


def test_an_install_still_running_at_the_timeout_says_so_and_how_to_fix_it(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    (repo.root / "mcp-lock.yaml").write_text("install-timeout: 3\n", encoding="utf-8")
    npm_registry.publish(TOP, "1.0.0", "top one")
    npm_registry.delay = 8.0  # a slow registry: the tarball comes after the timeout
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    lock = repo.run("lock", env=npm_env)
    assert lock.exit_code == 1
    assert "ran out of its 3s install bound (`install-timeout`) at `npm " in lock.output, lock.output
    assert "on the default branch" in lock.output and "--help" not in lock.output


def test_a_launcher_mcp_lock_does_not_install_is_warned_about_once(repo: Repo) -> None:
    repo.add_entry("other", {"command": "pnpm", "args": ["dlx", "some-server@1.0.0"]})
    lock = repo.run("lock")
    assert lock.output.count("code-unpinned") == 1, lock.output


def test_install_scripts_run_after_the_record_in_their_own_entry(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    postinstall = {"postinstall": "echo built > built.txt"}
    npm_registry.publish(DEP, "1.0.0", "dependency one", scripts=postinstall, hasInstallScript=True)
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "1.0.0"})
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    lock = repo.run("lock", env=npm_env)
    assert lock.exit_code == 0, lock.output
    tree = repo.lock_json()["servers"]["demo"]["launch"]["tree"]
    assert {p["name"]: p.get("installScript", False) for p in tree["packages"]} == {TOP: False, DEP: True}
    (entry,) = [p for p in (tmp_path / "store").iterdir() if not p.name.startswith(".")]
    built = entry / "node_modules" / DEP / "built.txt"  # the entry was writable while its scripts ran
    assert built.read_text().strip() == "built" and not built.stat().st_mode & 0o222  # read-only once published


def test_a_failed_install_script_is_a_note_and_the_server_still_boots(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    # A script that downloads a browser from a host there is no route to, say.
    failing = {"install": "echo no route to the download host >&2; exit 3"}
    npm_registry.publish(TOP, "1.0.0", "top one", scripts=failing, hasInstallScript=True)
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    lock = repo.run("lock", env=npm_env)
    assert lock.exit_code == 0, lock.output
    assert "install-script-failed" in lock.output and "no route to the download host" in lock.output, lock.output
    assert repo.lock_json()["servers"]["demo"]["tools"]["echo"]


def test_a_failed_install_script_s_note_names_its_package_and_no_staging_folder(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """Seen on the 28 real servers: puppeteer's browser download, deep in desktop-commander's tree, failed, and
    the note quoted npm's last words cut mid-path through this run's staging folder, naming no package."""
    failing = {"install": "echo no route to the download host >&2; exit 3"}
    npm_registry.publish(DEP, "1.0.0", "dependency one", scripts=failing, hasInstallScript=True)
    npm_registry.publish(TOP, "1.0.0", "top one", dependencies={DEP: "1.0.0"})
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    lock = repo.run("lock", "--format", "json", env=npm_env)
    assert lock.exit_code == 0, lock.output
    (note,) = [f["message"] for f in json.loads(lock.stdout)["findings"] if f["rule"] == "install-script-failed"]
    assert f"the install script of `{DEP}` failed" in note, note
    assert ".staging-" not in note and "no route to the download host" in note, note


def test_a_version_bump_boots_the_version_it_names_not_the_pinned_tree(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str]
) -> None:
    """The store holds the pinned tree, but the declaration now names another version: `check` must run that
    version (its serverInfo says which ran), or a bump's new definitions would never be seen."""
    npm_registry.publish(TOP, "1.0.0", "release one", reported="1.0.0")
    npm_registry.publish(TOP, "1.0.1", "release two", reported="1.0.1")
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    declare(repo, npm_registry, f"{TOP}@1.0.1")  # the bot's one-line bump
    check = repo.run("check", env=npm_env)
    assert check.exit_code == 1, check.output
    assert "launch-changed" in check.output
    assert "server-info-changed" in check.output, check.output  # 1.0.0 -> 1.0.1: the new release ran
    update = repo.run("update", "demo", env=npm_env)
    assert update.exit_code == 0, update.output
    assert packages(repo) == {TOP: "1.0.1"}


def test_a_store_entry_rewritten_between_runs_is_never_booted(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], tmp_path: Path
) -> None:
    """What a poisoned cache restore does: a file of the entry rewritten (here to fail loudly if it ever runs).
    `check` finds the entry does not verify, installs the recorded tree again and boots that."""
    npm_registry.publish(TOP, "1.0.0", "top one")
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    assert repo.run("lock", env=npm_env).exit_code == 0
    (entry,) = [p for p in (tmp_path / "store").iterdir() if not p.name.startswith(".")]
    server = entry / "node_modules" / TOP / "server.js"
    original = server.read_bytes()
    server.parent.chmod(0o755)
    server.chmod(0o755)
    server.write_text('#!/usr/bin/env node\nprocess.stderr.write("poisoned entry ran"); process.exit(9);\n')
    check = repo.run("check", env=npm_env)
    assert check.exit_code == 0 and "poisoned entry ran" not in check.output, check.output
    assert server.read_bytes() == original  # the entry was installed again from the lock
