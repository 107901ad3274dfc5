"""Package versions new to a server, screened against a loopback npm registry serving packuments with `time`
fields: a release younger than min-release-age (the merge base's policy) or one that newly runs an install
script fails `check --base` naming it; a hostile or failing registry is a blocking finding, never a traceback."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from vcs.gitrepo import GitRepo

from artifacts.npm_registry import Registry
from artifacts.simple_index_server import Index
from scanner.artifacts.inventory import Package, ServerPackage
from scanner.artifacts.packument import Release
from scanner.artifacts.release_screen import NewPackage, release_findings
from scanner.lock.canonical import digest
from scanner.lock.document import render
from scanner.lock.reader import parse

PACKAGE = "@demo/mail-mcp"


def pin_artifact(repo: GitRepo, version: str, integrity: str) -> None:
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    lock.servers["mail"].artifact = {"type": "npm", "name": PACKAGE, "version": version, "integrity": integrity}
    repo.lock_path.write_text(render(lock), encoding="utf-8")


@pytest.fixture
def bump(tmp_path: Path, npm_registry: Registry) -> GitRepo:
    """Server `mail` pins PACKAGE 1.0.0 on main (published 30 days ago); the branch `feature` is checked out."""
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("mail", "mail")
    assert repo.run("lock").exit_code == 0
    pin_artifact(repo, "1.0.0", npm_registry.publish(PACKAGE, "1.0.0", "one", days_ago=30))
    repo.commit("Pin mail")
    repo.branch("feature")
    return repo


def bumped(repo: GitRepo, registry: Registry, days_ago: float, **manifest: Any) -> None:
    """The change re-pins mail to PACKAGE 1.0.1, published `days_ago`."""
    pin_artifact(repo, "1.0.1", registry.publish(PACKAGE, "1.0.1", "two", days_ago=days_ago, **manifest))
    repo.commit("Bump mail")


def findings(repo: GitRepo, registry: Registry, tmp_path: Path, *rules: str) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "report.json"
    check = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
                     env={"npm_config_registry": registry.url})
    found = json.loads(out.read_text())["findings"]
    return check.exit_code, [f for f in found if f["rule"] in rules]


SCREENS = ("release-too-young", "install-script-added", "mcp-name-mismatch", "package-metadata-failed")


def test_a_two_day_old_release_fails_naming_its_age_and_the_day_it_becomes_acceptable(
    bump: GitRepo, npm_registry: Registry, tmp_path: Path
) -> None:
    bumped(bump, npm_registry, days_ago=2)
    code, (young,) = findings(bump, npm_registry, tmp_path, *SCREENS)
    assert code == 1
    assert young["rule"] == "release-too-young" and young["severity"] == "high"
    assert young["subject"] == f"{PACKAGE}@1.0.1" and young["category"] == "supply-chain"
    published = datetime.datetime.fromisoformat(npm_registry.published[PACKAGE]["1.0.1"].replace("Z", "+00:00"))
    ready = published + datetime.timedelta(days=7)
    assert f"npm {PACKAGE}@1.0.1 was published 2 day(s)" in young["message"]
    assert f"acceptable from {ready:%Y-%m-%d %H:%M} UTC" in young["message"]
    step = next(d for d in young["details"] if d.startswith("next step"))
    assert f"wait until {ready:%Y-%m-%d}" in step and f"{PACKAGE}@1.0.0" in step and f"tool: {PACKAGE}@1.0.1" in step


def test_the_text_report_gives_the_next_step(bump: GitRepo, npm_registry: Registry) -> None:
    bumped(bump, npm_registry, days_ago=2)
    check = bump.run("check", "--offline", "--base", "main", env={"npm_config_registry": npm_registry.url})
    assert check.exit_code == 1 and "[release-too-young]" in check.output
    assert "wait until the date it names" in check.output and "tool: NAME@VERSION" in check.output


def test_min_release_age_must_be_a_number_of_days(bump: GitRepo) -> None:
    bump.write("mcp-lock.yaml", "min-release-age: 7d\n")
    check = bump.run("check", "--offline")
    assert check.exit_code == 2 and "min-release-age must be a whole number of days" in check.output


def test_a_release_older_than_the_minimum_passes(bump: GitRepo, npm_registry: Registry, tmp_path: Path) -> None:
    bumped(bump, npm_registry, days_ago=8)
    code, found = findings(bump, npm_registry, tmp_path, *SCREENS)
    assert (code, found) == (0, [])


def test_the_base_policy_sets_the_minimum_and_the_change_cannot_lower_it(
    tmp_path: Path, npm_registry: Registry
) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("mail", "mail")
    repo.write("mcp-lock.yaml", "min-release-age: 14\n")
    assert repo.run("lock").exit_code == 0
    pin_artifact(repo, "1.0.0", npm_registry.publish(PACKAGE, "1.0.0", "one", days_ago=30))
    repo.commit("Pin mail, 14 days")
    repo.branch("feature")
    repo.write("mcp-lock.yaml", "min-release-age: 1\n")
    bumped(repo, npm_registry, days_ago=10)
    out = tmp_path / "report.json"
    check = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
                     env={"npm_config_registry": npm_registry.url})
    wanted = (*SCREENS, "policy-loosened")
    rules = sorted(f["rule"] for f in json.loads(out.read_text())["findings"] if f["rule"] in wanted)
    assert check.exit_code == 1 and rules == ["policy-loosened", "release-too-young"]


def test_an_ignore_entry_at_the_base_bound_to_the_version_accepts_it(
    tmp_path: Path, npm_registry: Registry
) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("mail", "mail")
    # The entry the finding's next step prints: bound to the package version by its digest (rule, npm, name, 1.0.1).
    accepted = digest({"rule": "release-too-young", "package": ["npm", "@demo/mail-mcp", "1.0.1"]})
    repo.write("mcp-lock.yaml", (
        "ignore:\n  - rule: release-too-young\n    server: mail\n    tool: \"@demo/mail-mcp@1.0.1\"\n"
        f"    digest: {accepted}\n    reason: reviewed the 1.0.1 diff\n"
    ))
    assert repo.run("lock").exit_code == 0
    pin_artifact(repo, "1.0.0", npm_registry.publish(PACKAGE, "1.0.0", "one", days_ago=30))
    repo.commit("Pin mail")
    repo.branch("feature")
    bumped(repo, npm_registry, days_ago=1)
    code, (young,) = findings(repo, npm_registry, tmp_path, *SCREENS)
    assert code == 0 and young["suppression"] == "reviewed the 1.0.1 diff"


@pytest.mark.parametrize(
    ("before", "after", "reported"),
    [
        ({}, {"scripts": {"postinstall": "node steal.js"}}, True),
        ({}, {"hasInstallScript": True}, True),
        ({"hasInstallScript": True}, {"hasInstallScript": True}, False),  # not new
        ({}, {"scripts": {"test": "node test.js"}}, False),  # not a lifecycle script of install
    ],
)
def test_a_release_that_newly_runs_an_install_script_fails(
    tmp_path: Path, npm_registry: Registry, before: dict, after: dict, reported: bool
) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("mail", "mail")
    assert repo.run("lock").exit_code == 0
    pin_artifact(repo, "1.0.0", npm_registry.publish(PACKAGE, "1.0.0", "one", days_ago=30, **before))
    repo.commit("Pin mail")
    repo.branch("feature")
    bumped(repo, npm_registry, days_ago=20, **after)
    code, found = findings(repo, npm_registry, tmp_path, *SCREENS)
    assert [f["rule"] for f in found] == (["install-script-added"] if reported else [])
    assert code == (1 if reported else 0)
    if reported:
        assert found[0]["subject"] == f"{PACKAGE}@1.0.1" and "which @demo/mail-mcp@1.0.0 did not" in found[0]["message"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[" * 200_000 + b"]" * 200_000, "nested deeper than"),
        (b'{"versions": {"1.0.1": 5}}', "does not list"),
        (b'{"versions": {"1.0.1": {}}, "time": {"1.0.1": "yesterday"}}', "does not say when"),
        (b"not json", "not JSON"),
    ],
)
def test_a_hostile_packument_is_a_blocking_finding(
    bump: GitRepo, npm_registry: Registry, tmp_path: Path, body: bytes, said: str
) -> None:
    bumped(bump, npm_registry, days_ago=20)
    npm_registry.raw[PACKAGE] = body
    code, (failed,) = findings(bump, npm_registry, tmp_path, *SCREENS)
    assert code == 1 and failed["rule"] == "package-metadata-failed" and said in failed["message"]


def test_an_unchanged_package_asks_no_registry(bump: GitRepo, npm_registry: Registry, tmp_path: Path) -> None:
    bump.write("notes.txt", "unrelated\n")
    bump.commit("Unrelated")
    npm_registry.raw[PACKAGE] = b"[" * 200_000  # would be a finding, were it asked
    code, found = findings(bump, npm_registry, tmp_path, *SCREENS)
    assert (code, found) == (0, [])


def test_a_package_claiming_another_registry_name_is_a_finding() -> None:
    entry = ServerPackage(Package("npm", "mail-mcp", "1.0.1"), "/servers/mail/launch/artifact")
    change = NewPackage("mail", entry, None, registry_name="io.github.acme/mail")
    now = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
    old = now - datetime.timedelta(days=30)

    def claims(name: str | None) -> list[str]:
        described = (Release(old, False, name), None)
        found = release_findings([change], datetime.timedelta(days=7), now, lambda _c: described)
        return [f.rule.id for f in found]

    assert claims("io.github.evil/mail") == ["mcp-name-mismatch"]
    assert claims("io.github.acme/mail") == []
    assert claims(None) == []  # no claim: nothing to compare (the registry itself refuses to publish it)
    unregistered = NewPackage("mail", entry, None, registry_name=None)  # not declared through a server.json
    assert release_findings([unregistered], datetime.timedelta(days=7), now,
                            lambda _c: (Release(old, False, "io.github.evil/mail"), None)) == []


def pypi_bump(tmp_path: Path, index: Index, before: dict[str, Any], after: dict[str, Any]) -> GitRepo:
    """Server `time` pins mcp-server-x 0.3.0 on main, the change 0.3.1 (each uploaded as `before`/`after` say)."""
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("time", "time")
    assert repo.run("lock").exit_code == 0
    for version, upload in (("0.3.0", before), ("0.3.1", after)):
        index.upload("mcp-server-x", version, **upload)
        lock = parse(repo.lock_path.read_text(encoding="utf-8"))
        lock.servers["time"].artifact = {"type": "pypi", "name": "mcp-server-x", "version": version}
        repo.lock_path.write_text(render(lock), encoding="utf-8")
        repo.commit(f"Pin {version}")
        if version == "0.3.0":
            repo.branch("feature")
    return repo


def pypi_findings(repo: GitRepo, env: dict[str, str], tmp_path: Path) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "report.json"
    check = repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out), env=env)
    return check.exit_code, [f for f in json.loads(out.read_text())["findings"] if f["rule"] in SCREENS]


@pytest.mark.parametrize(
    ("after", "rules"),
    [
        ({"days_ago": 1}, ["release-too-young"]),
        ({"days_ago": 10, "wheel": False}, ["install-script-added"]),  # sdist only: installing it builds it
        ({"days_ago": 10}, []),
    ],
)
def test_a_pypi_version_is_screened_in_the_configured_index(
    tmp_path: Path, simple_index: Index, after: dict[str, Any], rules: list[str]
) -> None:
    repo = pypi_bump(tmp_path, simple_index, {"days_ago": 30}, after)
    code, found = pypi_findings(repo, {"UV_DEFAULT_INDEX": simple_index.url}, tmp_path)
    assert [f["rule"] for f in found] == rules and code == (1 if rules else 0)
    assert any(path.startswith("/pypi/mcp-server-x/") for path in simple_index.served)  # its JSON API
    if rules == ["install-script-added"]:
        assert "mcp-server-x@0.3.1 has no wheel" in found[0]["message"] and "0.3.0 did not" in found[0]["message"]


UNSET = {name: "" for name in ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL", "UV_CONFIG_FILE",
                                 "PIP_CONFIG_FILE")}


def test_the_json_api_answers_where_the_index_has_one(tmp_path: Path, simple_index: Index) -> None:
    repo = pypi_bump(tmp_path, simple_index, {"days_ago": 30}, {"days_ago": 1 / 24})
    code, (young,) = pypi_findings(repo, {"UV_DEFAULT_INDEX": simple_index.url}, tmp_path)
    assert code == 1 and young["rule"] == "release-too-young" and "published 1 h ago" in young["message"]
    assert "/pypi/mcp-server-x/0.3.1/json" in simple_index.served
    # The simple API is asked once, for what the JSON API does not say: each file's PEP 740 `provenance`.
    assert simple_index.accepts == ["application/vnd.pypi.simple.v1+json"]


def test_the_index_of_the_users_uv_configuration_is_asked(tmp_path: Path, simple_index: Index) -> None:
    config = tmp_path / "xdg" / "uv" / "uv.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[[index]]\nurl = "{simple_index.url}"\ndefault = true\n', encoding="utf-8")
    repo = pypi_bump(tmp_path, simple_index, {"days_ago": 30}, {"days_ago": 1})
    code, found = pypi_findings(repo, {**UNSET, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}, tmp_path)
    assert (code, [f["rule"] for f in found]) == (1, ["release-too-young"])


def test_pips_configuration_is_read_and_an_index_without_json_api_is_read_by_its_simple_api(
    tmp_path: Path, simple_index: Index
) -> None:
    simple_index.json_api = False
    (tmp_path / "pip.conf").write_text(f"[global]\nindex-url = {simple_index.url}\n", encoding="utf-8")
    repo = pypi_bump(tmp_path, simple_index, {"days_ago": 30}, {"days_ago": 1})
    env = {**UNSET, "PIP_CONFIG_FILE": str(tmp_path / "pip.conf"), "XDG_CONFIG_HOME": str(tmp_path / "none")}
    code, found = pypi_findings(repo, env, tmp_path)
    assert (code, [f["rule"] for f in found]) == (1, ["release-too-young"]) and simple_index.accepts


def test_without_a_configured_index_uvs_own_default_is_asked(tmp_path: Path, simple_index: Index) -> None:
    """mcp-lock names no index: the default is the one uv states (here a uv on PATH that states the loopback's)."""
    fake = tmp_path / "bin" / "uv"
    fake.parent.mkdir()
    said = f"echo '          The default package index (by default: <{simple_index.url}>)'\n"
    fake.write_text("#!/bin/sh\necho '      --default-index <DEFAULT_INDEX>'\n" + said, encoding="utf-8")
    fake.chmod(0o755)
    repo = pypi_bump(tmp_path, simple_index, {"days_ago": 30}, {"days_ago": 1})
    env = {**UNSET, "XDG_CONFIG_HOME": str(tmp_path / "none"), "HOME": str(tmp_path / "home"),
           "PATH": f"{fake.parent}:/usr/bin:/bin"}
    code, found = pypi_findings(repo, env, tmp_path)
    assert (code, [f["rule"] for f in found]) == (1, ["release-too-young"])


def test_a_server_pinned_for_the_first_time_is_not_newly_running_its_install_script(
    tmp_path: Path, npm_registry: Registry
) -> None:
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("other", "other")
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin another server")
    repo.branch("feature")
    repo.add_in_dir("mail", "mail")
    assert repo.run("lock").exit_code == 0
    pin_artifact(repo, "1.0.0", npm_registry.publish(PACKAGE, "1.0.0", "one", days_ago=30, hasInstallScript=True))
    repo.commit("Adopt mail")
    code, found = findings(repo, npm_registry, tmp_path, *SCREENS)
    assert (code, found) == (0, [])  # reviewed whole as newly pinned; a young release would still be reported


def test_another_package_joining_a_pinned_server_with_an_install_script_is_reported(
    bump: GitRepo, npm_registry: Registry, tmp_path: Path
) -> None:
    lock = parse(bump.lock_path.read_text(encoding="utf-8"))
    data = npm_registry.publish("mail-helper", "2.0.0", "helper", days_ago=40, scripts={"install": "node-gyp rebuild"})
    lock.servers["mail"].artifact = {"type": "npm", "name": "mail-helper", "version": "2.0.0", "integrity": data}
    bump.lock_path.write_text(render(lock), encoding="utf-8")
    bump.commit("Mail runs another package")
    code, (added,) = findings(bump, npm_registry, tmp_path, *SCREENS)
    assert code == 1 and added["rule"] == "install-script-added" and added["subject"] == "mail-helper@2.0.0"
    assert "joins what this server runs" in added["message"]


def test_under_base_the_age_is_asked_of_the_base_s_registry(
    bump: GitRepo, npm_registry: Registry, tmp_path: Path
) -> None:
    """Issue 36, item 4: the change points mail's launch at a registry of its own that calls 1.0.1 a month
    old; the release is two days old in the registry the base (here, the runner) names, and that one is asked."""
    from artifacts.npm_registry import serve

    lying = Registry()
    server = serve(lying)
    try:
        lying.publish(PACKAGE, "1.0.0", "one", days_ago=60)
        lying.publish(PACKAGE, "1.0.1", "two", days_ago=30)
        entry = json.loads((bump.root / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["mail"]
        bump.add_entry("mail", {**entry, "env": {"npm_config_registry": lying.url}})
        assert bump.run("lock").exit_code == 0
        bumped(bump, npm_registry, days_ago=2)
        code, found = findings(bump, npm_registry, tmp_path, *SCREENS)
    finally:
        server.shutdown()
        server.server_close()
    assert [f["rule"] for f in found] == ["release-too-young"], found
    assert code == 1
