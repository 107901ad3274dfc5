"""The artifact a pin records against the live one: what is a change, what is a note, and what re-pin notes show."""

from __future__ import annotations

from pathlib import Path

from scanner.diff.artifact import artifact_findings
from scanner.lock.document import render
from scanner.lock.lockfile import Lockfile, ServerPin
from scanner.lock.reader import parse
from scanner.vcs.pins import lock_changes

OLD = {"type": "npm", "name": "postmark-mcp", "version": "1.0.15", "integrity": "sha512-" + "A" * 86 + "=="}
NEW = {"type": "npm", "name": "postmark-mcp", "version": "1.0.16", "integrity": "sha512-" + "B" * 86 + "=="}
LAUNCH = {"transport": "stdio", "command": "npx", "args": ["-y", "postmark-mcp"], "env": {}}


def server(artifact: dict | None, launch: dict | None = None) -> ServerPin:
    pin = ServerPin(
        declarations=[{"file": ".mcp.json", "client": "claude-code", "name": "mail"}],
        launch=launch or dict(LAUNCH),
        protocol_version="2025-06-18",
        server_info={"name": "mail", "version": "1.0.0"},
        capabilities={},
        instructions=None,
        artifact=artifact,
    )
    pin.digest = pin.surface_digest()
    return pin


def test_same_surface_other_release_is_a_blocking_change_naming_both() -> None:
    (finding,) = artifact_findings("mail", server(OLD), server(NEW))
    assert finding.rule.id == "artifact-changed" and finding.blocking and finding.effective_severity == "high"
    assert "postmark-mcp@1.0.15" in finding.message and "postmark-mcp@1.0.16" in finding.message
    assert f"integrity: {OLD['integrity']} → {NEW['integrity']}" in finding.details
    assert "version: 1.0.15 → 1.0.16" in finding.details
    assert any("`postmark-mcp` is launched without an exact version" in line for line in finding.details)


def test_a_republished_version_is_a_change_too() -> None:
    republished = {**OLD, "integrity": NEW["integrity"]}
    (finding,) = artifact_findings("mail", server(OLD), server(republished))
    assert finding.rule.id == "artifact-changed"
    assert finding.details[0] == f"integrity: {OLD['integrity']} → {NEW['integrity']}"
    assert not any(line.startswith("version:") for line in finding.details)


def test_nothing_for_the_same_artifact_and_a_note_beside_a_changed_launch() -> None:
    assert artifact_findings("mail", server(OLD), server(dict(OLD))) == []
    bumped = {**LAUNCH, "args": ["-y", "postmark-mcp@1.0.16"]}
    (note,) = artifact_findings("mail", server(OLD), server(NEW, bumped))  # launch-changed blocks; this informs
    assert note.rule.id == "artifact-bumped" and not note.blocking
    assert "postmark-mcp@1.0.16" in note.message and "postmark-mcp@1.0.15" in note.message
    assert f"integrity: {OLD['integrity']} → {NEW['integrity']}" in note.details


def test_unknown_artifacts_are_notes_not_failures() -> None:
    (unread,) = artifact_findings("mail", server(OLD), server(None))
    (unrecorded,) = artifact_findings("mail", server(None), server(NEW))
    assert {unread.rule.id, unrecorded.rule.id} == {"artifact-unrecorded"}
    assert not unread.blocking and not unrecorded.blocking


def test_another_platforms_wheel_of_the_same_release_is_not_a_change() -> None:
    linux = {"type": "pypi", "name": "x", "version": "1.0", "file": "x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
             "sha256": "1" * 64}
    mac = {**linux, "file": "x-1.0-cp311-cp311-macosx_11_0_arm64.whl", "sha256": "2" * 64}
    assert artifact_findings("x", server(linux), server(mac)) == []
    assert artifact_findings("x", server(linux), server({**linux, "sha256": "3" * 64}))[0].rule.id == "artifact-changed"


def test_a_local_script_change_is_a_non_blocking_note() -> None:
    old = {"type": "file", "path": "server.py", "sha256": "1" * 64}
    (finding,) = artifact_findings("local", server(old), server({**old, "sha256": "2" * 64}))
    assert finding.rule.id == "local-code-changed" and not finding.blocking


def test_repin_notes_show_the_artifact_change_next_to_the_surface_diff() -> None:
    changes = lock_changes(Lockfile(servers={"mail": server(OLD)}), Lockfile(servers={"mail": server(NEW)}))
    (change,) = changes
    assert change.change == "artifact-changed" and change.severity == "high"
    assert "postmark-mcp@1.0.15" in change.message and "postmark-mcp@1.0.16" in change.message
    assert change.pointer == "/servers/mail/launch/artifact"


def test_the_artifact_round_trips_as_a_launch_member_and_version_2(tmp_path: Path) -> None:
    lock = Lockfile(servers={"mail": server(NEW)})
    text = render(lock)
    assert '"lockfileVersion": 2' in text and '"artifact": {' in text
    read = parse(text, canonical=True)
    assert read.servers["mail"].artifact == NEW and "artifact" not in read.servers["mail"].launch
    assert '"lockfileVersion": 1' in render(Lockfile(servers={"mail": server(None)}))
