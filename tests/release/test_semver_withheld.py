"""`mcp-lock semver` boots code changed since the release tag: like `check --base`, it gives a secret only to a
launch reviewed at the tag that runs no file changed since. The secret is a canary in the caller's environment,
and what the server receives is reported to a listener on 127.0.0.1."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repo import base_spec
from vcs.gitrepo import GitRepo, git
from vcs.test_withheld import Listener, reporting


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def released(tmp_path: Path, listener: Listener, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, str]:
    """Server `s` (given T from SOME_SECRET) pinned and tagged v1.0.0."""
    secret = "SECRET" + secrets.token_hex(16)
    monkeypatch.setenv("SOME_SECRET", secret)
    repo = GitRepo(tmp_path / "top")
    reporting(repo, "s", listener.port, env={"T": "${SOME_SECRET}"})
    assert repo.run("lock").exit_code == 0
    repo.commit("Release 1.0.0")
    git(repo.top, "tag", "v1.0.0")
    listener.received.clear()
    return repo, secret


def test_semver_does_not_give_a_secret_to_code_changed_since_the_tag(
    released: tuple[GitRepo, str], listener: Listener
) -> None:
    repo, secret = released
    spec = base_spec()
    spec["version"] = "1.0.1"
    repo.write("specs/s.json", json.dumps(spec))
    repo.write("reporting_server.py", (repo.root / "reporting_server.py").read_text(encoding="utf-8") + "\n# v2\n")
    repo.commit("Release 1.0.1")
    out = repo.top.parent / "semver.json"
    result = repo.run("semver", "--json", str(out))
    assert listener.received == ["ran T=<unset> P=<unset>"], listener.received
    assert secret not in result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    [withheld] = [f for f in report["findings"] if f["rule"] == "secrets-withheld"]
    assert withheld["server"] == "s" and "SOME_SECRET" in withheld["message"]


def test_semver_gives_the_secret_to_a_launch_unchanged_since_the_tag(
    released: tuple[GitRepo, str], listener: Listener
) -> None:
    repo, secret = released
    repo.write("README.md", "# s\n")
    repo.commit("Docs")
    result = repo.run("semver")
    assert listener.received == [f"ran T={secret} P=<unset>"], listener.received
    assert result.exit_code == 0, result.output
