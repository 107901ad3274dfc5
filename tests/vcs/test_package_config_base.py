"""`check --base`: the change's package-manager configuration is a change of policy, reviewed like one.

A changed `.npmrc`, `uv.toml`, `[tool.uv]`, `.pnpmfile.cjs` or committed install is a `policy-changed` note,
and a blocking `policy-loosened` finding when it adds a registry, an index, node options, a hook or a script;
the servers run from its folder count as changed (no secrets) until it is merged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .gitrepo import GitRepo, notes


@pytest.fixture
def pr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """Server a (given API_KEY, which the runner holds) pinned on main; a branch `feature` checked out."""
    monkeypatch.setenv("API_KEY", "sk-test-0123456789abcdef")
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("a", "a")
    repo.servers["a"] = {**repo.servers["a"], "env": {"API_KEY": "${API_KEY}"}}
    repo.write_config()
    assert repo.run("lock").exit_code == 0
    repo.commit("Pin a")
    repo.branch("feature")
    return repo


def run(pr: GitRepo) -> dict:
    pr.commit("The change")
    return pr.report("--base", "main")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (".npmrc", "node-options=--require=./evil.js\n"),
        (".npmrc", "registry=http://127.0.0.1:9/\n//127.0.0.1:9/:_authToken=${API_KEY}\n"),
        ("uv.toml", 'index-url = "http://127.0.0.1:9/simple"\n'),
        ("pyproject.toml", '[project]\nname = "x"\n\n[tool.uv]\nindex-url = "http://127.0.0.1:9/simple"\n'),
        (".pnpmfile.cjs", "module.exports = {hooks: {readPackage: (p) => p}};\n"),
        ("node_modules/mcp-demo/evil.js", "console.log(1)\n"),
        (".yarnrc.yml", "npmRegistryServer: http://127.0.0.1:9/\n"),
        ("pip.conf", "[global]\nindex-url = http://127.0.0.1:9/simple\n"),
    ],
)
def test_a_change_that_adds_a_registry_index_option_hook_or_script_blocks(pr: GitRepo, path: str, text: str) -> None:
    pr.write(path, text)
    report = run(pr)
    assert report["exit_code"] == 1, report["output"]
    loosened = notes(report, "policy-loosened")
    assert len(loosened) == 1 and loosened[0]["blocking"], report["output"]
    assert loosened[0]["message"].startswith(path.split("/evil.js")[0].removesuffix("/mcp-demo"))
    # and the server run from there is no reviewed launch until it is merged: no secret
    [withheld] = notes(report, "secrets-withheld")
    assert withheld["server"] == "a" and "API_KEY" in withheld["message"]


@pytest.mark.parametrize(("path", "text"), [(".python-version", "3.12\n"), (".nvmrc", "22\n")])
def test_a_version_file_is_a_note(pr: GitRepo, path: str, text: str) -> None:
    pr.write(path, text)
    report = run(pr)
    assert not notes(report, "policy-loosened")
    [changed] = notes(report, "policy-changed")
    assert changed["message"].startswith(path) and not changed["blocking"]


def test_a_pyproject_change_outside_tool_uv_is_no_policy_change(pr: GitRepo) -> None:
    pr.write("pyproject.toml", '[project]\nname = "x"\nversion = "2"\n')
    report = run(pr)
    assert not notes(report, "policy-loosened") and not notes(report, "policy-changed")


def test_a_docs_only_change_keeps_the_secret_and_passes(pr: GitRepo) -> None:
    pr.write("README.md", "# a\n")
    pr.commit("Docs")
    report = pr.report("--base", "main")
    assert report["exit_code"] == 0, report["output"]
    assert not notes(report, "secrets-withheld") and not notes(report, "policy-loosened")
    assert not notes(report, "dependency-changed")
