"""`mcp-lock check --offline`: the lock against the declarations, without booting anything."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from fixture_repo import Repo

from scanner.lock.lockfile import Lockfile
from scanner.lock.pin import pin_server
from scanner.lock.writer import write
from scanner.snapshot import Snapshot
from scanner.sources.declarations import LaunchTemplate

SDK_ROOTS = ("mcp", "anyio", "httpx", "httpx_sse", "pydantic", "starlette", "sse_starlette")


def pinned(repo: Repo, *names: str) -> None:
    for name in names:
        repo.add_stdio(name)
    result = repo.run("lock")
    assert result.exit_code == 0, result.output


def rules(result_json: Path) -> list[str]:
    return sorted(f["rule"] for f in json.loads(result_json.read_text(encoding="utf-8"))["findings"])


def test_unchanged_lock_passes(repo: Repo) -> None:
    pinned(repo, "notes", "todo")
    result = repo.run("check", "--offline")
    assert result.exit_code == 0, result.output
    assert "ok: every declared server matches the lock" in result.output
    assert "nothing was booted" in result.output


def test_version_bump_without_repin_fails(repo: Repo, tmp_path: Path) -> None:
    pinned(repo, "notes")
    entry = dict(repo.servers["notes"])
    entry["args"] = [*entry["args"], "--version=1.0.17"]  # e.g. `pkg@1.0.16` -> `pkg@1.0.17`
    repo.add_entry("notes", entry)
    report = tmp_path / "out.json"
    result = repo.run("check", "--offline", "--json", str(report))
    assert result.exit_code == 1, result.output
    assert "notes: launch changed since it was pinned (args)" in result.output
    assert rules(report) == ["launch-changed"]
    # The re-pin the message points at clears it.
    assert repo.run("update", "notes").exit_code == 0
    assert repo.run("check", "--offline").exit_code == 0


def test_env_name_added_is_a_launch_change(repo: Repo) -> None:
    pinned(repo, "notes")
    repo.add_entry("notes", {**repo.servers["notes"], "env": {"EXTRA": "1"}})
    result = repo.run("check", "--offline")
    assert result.exit_code == 1, result.output
    assert "launch changed" in result.output and "env" in result.output


def test_declared_but_not_pinned_and_pinned_but_not_declared(repo: Repo, tmp_path: Path) -> None:
    pinned(repo, "notes", "todo")
    del repo.servers["todo"]
    repo.add_stdio("fresh")
    report = tmp_path / "out.json"
    result = repo.run("check", "--offline", "--json", str(report))
    assert result.exit_code == 1, result.output
    assert rules(report) == ["server-not-declared", "server-not-pinned"]
    assert "fresh: declared but not pinned" in result.output
    assert "todo: pinned, but no config file declares it any more" in result.output


def test_policy_skip_is_reported_not_blocking(repo: Repo, tmp_path: Path) -> None:
    pinned(repo, "notes")
    repo.add_stdio("github")  # not pinned, but skipped: not a finding of its own
    (repo.root / "mcp-lock.yaml").write_text("servers:\n  github:\n    skip: needs a token\n", encoding="utf-8")
    report = tmp_path / "out.json"
    result = repo.run("check", "--offline", "--json", str(report))
    assert result.exit_code == 0, result.output
    assert rules(report) == ["server-skipped"]
    assert "github: skipped: needs a token" in result.output


def test_skipped_pinned_server_launch_is_not_compared(repo: Repo) -> None:
    pinned(repo, "notes")
    repo.add_entry("notes", {**repo.servers["notes"], "args": ["changed.py"]})
    (repo.root / "mcp-lock.yaml").write_text("servers:\n  notes:\n    skip: nightly only\n", encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 0, result.output
    assert "launch changed" not in result.output


def test_missing_lock_is_a_usage_error(repo: Repo) -> None:
    repo.add_stdio("notes")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2
    assert "no lockfile" in result.output


def test_hand_edited_lock_is_refused(repo: Repo) -> None:
    pinned(repo, "notes")
    text = repo.lock_path.read_text(encoding="utf-8")
    repo.lock_path.write_text(text.replace("Add a note to the notebook.", "Add a note. BCC me."), encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2, result.output
    assert "mcp-lock.json" in result.output


def test_broken_config_is_a_config_error(repo: Repo) -> None:
    pinned(repo, "notes")
    (repo.root / ".vscode").mkdir()
    (repo.root / ".vscode" / "mcp.json").write_text('{"servers": {"x": ', encoding="utf-8")
    result = repo.run("check", "--offline")
    assert result.exit_code == 2, result.output


def test_missing_variable_is_only_a_warning_offline(repo: Repo) -> None:
    repo.add_stdio("notes", env={"TOKEN": "${MCPL_TEST_TOKEN}"})
    assert repo.run("lock", env={"MCPL_TEST_TOKEN": "x"}).exit_code == 0
    # A developer's machine without the CI secret: nothing is launched, so nothing is missing.
    offline = repo.run("check", "--offline", env={"MCPL_TEST_TOKEN": None})  # type: ignore[dict-item]
    assert offline.exit_code == 0, offline.output
    assert "MCPL_TEST_TOKEN" in offline.output
    # A live check needs it and says so.
    live = repo.run("check", env={"MCPL_TEST_TOKEN": None})  # type: ignore[dict-item]
    assert live.exit_code == 2, live.output


def test_boots_nothing(repo: Repo) -> None:
    """A pinned server whose command cannot run at all still passes offline (and fails live)."""
    pinned(repo, "notes")
    repo.servers["notes"] = {**repo.servers["notes"]}
    lock = repo.lock_json()
    missing = str(repo.root / "no-such-interpreter")
    lock["servers"]["notes"]["launch"]["command"] = missing  # launch is not part of any digest
    repo.lock_path.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    repo.add_entry("notes", {**repo.servers["notes"], "command": missing})
    assert repo.run("check", "--offline").exit_code == 0
    assert repo.run("check").exit_code == 1


def _sdk_modules_imported(args: list[str], cwd: Path) -> tuple[int, set[str], str]:
    process = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    imported = set()
    for line in process.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name.split(".")[0] in SDK_ROOTS:
                imported.add(name)
    return process.returncode, imported, process.stdout + process.stderr[-2000:]


def test_imports_no_mcp_sdk_module(repo: Repo) -> None:
    pinned(repo, "notes")
    code, imported, output = _sdk_modules_imported(["-m", "scanner", "check", "--offline"], repo.root)
    assert code == 0, output
    assert imported == set()
    # A live check of stdio servers speaks JSON-RPC itself: only anyio, no SDK module.
    code, imported, output = _sdk_modules_imported(["-m", "scanner", "check", "--quiet"], repo.root)
    assert code == 0, output
    assert "anyio" in imported
    assert {name.split(".")[0] for name in imported} == {"anyio"}, sorted(imported)


def test_remote_server_loads_the_sdk(tmp_path: Path) -> None:
    """An HTTP server goes through the SDK's client, which is imported only then."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: connecting is refused
    servers = {"remote": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    code, imported, output = _sdk_modules_imported(["-m", "scanner", "lock", "--timeout", "10"], tmp_path)
    assert code != 0 and "refused" in output, output
    assert "mcp.client.session" in imported and "mcp.client.streamable_http" in imported


def synthetic_repo(root: Path, count: int) -> None:
    """`count` declared stdio servers and a lock pinning each (written directly: nothing is booted)."""
    servers = {f"server-{i:02d}": {"command": "npx", "args": ["-y", f"@acme/mcp-{i}@1.0.{i}"]} for i in range(count)}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    lock = Lockfile()
    for name, entry in servers.items():
        launch = LaunchTemplate(transport="stdio", command=entry["command"], args=tuple(entry["args"])).spec()
        snapshot = Snapshot(
            "2025-06-18",
            {"name": name, "version": "1.0.0"},
            {"tools": {}},
            None,
            {
                "tools": [
                    {"name": f"tool_{t}", "description": f"Tool {t} of {name}.", "inputSchema": {"type": "object"}}
                    for t in range(10)
                ],
                "prompts": [],
                "resources": [],
                "resourceTemplates": [],
            },
        )
        lock.servers[name], problems = pin_server(
            [{"file": ".mcp.json", "client": "claude-code", "name": name}], launch, snapshot
        )
        assert problems == []
    write(root / "mcp-lock.json", lock)


def test_fifty_servers_offline(tmp_path: Path) -> None:
    """Fifty npx servers that do not exist: offline, nothing is launched (its speed: bench/offline.py)."""
    synthetic_repo(tmp_path, 50)
    process = subprocess.run(
        [sys.executable, "-m", "scanner", "check", "--offline", "--repo", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 0, process.stdout + process.stderr
    # And one bumped version among them is found.
    config = json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8"))
    config["mcpServers"]["server-37"]["args"][1] = "@acme/mcp-37@1.0.38"
    (tmp_path / ".mcp.json").write_text(json.dumps(config), encoding="utf-8")
    process = subprocess.run(
        [sys.executable, "-m", "scanner", "check", "--offline", "--repo", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 1, process.stdout + process.stderr
    assert "server-37: launch changed" in process.stdout


def test_lock_of_local_commands_loads_no_registry_code(repo: Repo) -> None:
    """A server launched by a local command has no package tree, so `lock` has no registry fact to record and
    need not import the registry code (urllib, the attestation and provenance modules: a tenth of a CPU-second)."""
    repo.add_stdio("notes")
    process = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "scanner", "lock", "--quiet"], cwd=repo.root, capture_output=True,
        text=True, timeout=60,
    )
    assert process.returncode == 0, process.stdout + process.stderr[-2000:]
    lines = process.stderr.splitlines()
    imported = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    assert "scanner.run.pinning" in imported  # it did boot and pin
    assert "scanner.run.registry_facts" not in imported
    assert "notes" in repo.lock_json()["servers"]
