"""`check --advisories`: every pinned npm and PyPI version looked up in OSV, a loopback OSV API or a local
export; a hit is a finding with the advisory's id, a failed lookup a warning."""

from __future__ import annotations

import json
import socket
import zipfile
from pathlib import Path

from fixture_repo import Repo

from artifacts.osv_server import OSV, advisory
from scanner.artifacts import osv
from scanner.lock.document import render
from scanner.lock.reader import parse

NPM = {"type": "npm", "name": "postmark-mcp", "version": "1.0.16", "integrity": "sha512-" + "Q" * 86 + "=="}
PYPI = {"type": "pypi", "name": "mcp-server-x", "version": "0.3.0"}
MALICIOUS = advisory("MAL-2026-0001", "npm", "postmark-mcp", ["1.0.16"], summary="Malicious code in postmark-mcp (npm)")
VULNERABLE = advisory("GHSA-aaaa-bbbb-cccc", "PyPI", "mcp-server-x", ["0.2.0", "0.3.0"], fixed="0.3.1",
                      summary="Path traversal in read_file", severity="MODERATE", aliases=["CVE-2026-1234"])


def pinned(repo: Repo, artifacts: dict[str, dict]) -> None:
    """Lock the fixture servers, then record `artifacts` as what their launches ran."""
    for key in artifacts:
        repo.add_stdio(key)
    assert repo.run("lock").exit_code == 0
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    for key, artifact in artifacts.items():
        lock.servers[key].artifact = artifact
    repo.lock_path.write_text(render(lock), encoding="utf-8")


def test_a_malicious_pinned_version_is_a_critical_finding_naming_the_advisory(repo: Repo, osv_api: OSV) -> None:
    osv_api.advisories += [MALICIOUS, VULNERABLE]
    pinned(repo, {"mail": NPM, "files": PYPI})
    check = repo.run("check", "--offline", "--advisories", osv_api.url)
    assert check.exit_code == 1, check.output
    assert "CRITICAL" in check.output and "MAL-2026-0001" in check.output
    assert "Malicious code in postmark-mcp (npm)" in check.output
    assert "GHSA-aaaa-bbbb-cccc" in check.output and "fixed in: 0.3.1" in check.output
    assert "CVE-2026-1234" in check.output
    (batch,) = osv_api.batches  # one request for every pinned version
    assert sorted(q["package"]["name"] for q in batch["queries"]) == ["mcp-server-x", "postmark-mcp"]
    assert {"package": {"name": "postmark-mcp", "ecosystem": "npm"}, "version": "1.0.16"} in batch["queries"]


def test_the_vulnerability_takes_the_advisorys_severity_and_an_ignore_entry_accepts_it(
    repo: Repo, osv_api: OSV, tmp_path: Path
) -> None:
    osv_api.advisories.append(VULNERABLE)
    pinned(repo, {"files": PYPI})
    report = tmp_path / "report.json"
    check = repo.run("check", "--offline", "--advisories", osv_api.url, "--format", "json", "--output", str(report))
    assert check.exit_code == 1, check.output
    (hit,) = [f for f in json.loads(report.read_text())["findings"] if f["rule"] == "known-advisory"]
    assert hit["severity"] == "medium"
    (repo.root / "mcp-lock.yaml").write_text(
        "ignore:\n  - rule: known-advisory\n    server: files\n    tool: GHSA-aaaa-bbbb-cccc\n"
        "    reason: read_file is not exposed to untrusted paths here\n",
        encoding="utf-8",
    )
    assert repo.run("check", "--offline", "--advisories", osv_api.url).exit_code == 0


def test_a_live_check_looks_up_the_pins_too_from_the_environment_setting(repo: Repo, osv_api: OSV) -> None:
    osv_api.advisories.append(MALICIOUS)
    pinned(repo, {"mail": NPM})
    check = repo.run("check", env={"MCP_LOCK_ADVISORIES": osv_api.url})
    assert check.exit_code == 1 and "MAL-2026-0001" in check.output, check.output
    assert len(osv_api.batches) == 1


def test_no_setting_no_lookup(repo: Repo, osv_api: OSV) -> None:
    osv_api.advisories.append(MALICIOUS)
    pinned(repo, {"mail": NPM})
    assert repo.run("check", "--offline").exit_code == 0
    assert osv_api.batches == []


def test_a_failed_lookup_is_a_blocking_finding_that_says_why(repo: Repo, osv_api: OSV) -> None:
    pinned(repo, {"mail": NPM})
    osv_api.status = 503
    check = repo.run("check", "--offline", "--advisories", osv_api.url)
    assert check.exit_code == 1, check.output
    assert "advisory-lookup-failed" in check.output and "HTTP 503" in check.output
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    check = repo.run("check", "--offline", "--advisories", closed)
    assert check.exit_code == 1, check.output
    assert "advisory-lookup-failed" in check.output and "could not be reached" in check.output


def test_osv_names_the_public_api_at_its_documented_address(repo: Repo, osv_api: OSV, monkeypatch) -> None:
    assert osv.DEFAULT_API == "https://api.osv.dev"  # OSV's documented base URL; tests never contact it
    monkeypatch.setattr(osv, "DEFAULT_API", osv_api.url)  # the keyword's address, pointed at the loopback OSV
    osv_api.advisories.append(MALICIOUS)
    pinned(repo, {"mail": NPM})
    check = repo.run("check", "--offline", "--advisories", "osv")
    assert check.exit_code == 1 and "MAL-2026-0001" in check.output, check.output
    assert len(osv_api.batches) == 1


def test_an_offline_osv_export_directory(repo: Repo, tmp_path: Path) -> None:
    export = tmp_path / "osv"
    (export / "npm").mkdir(parents=True)
    (export / "npm" / "MAL-2026-0001.json").write_text(json.dumps(MALICIOUS))
    (export / "npm" / "GHSA-other.json").write_text(json.dumps(advisory("GHSA-other", "npm", "other", ["1.0.16"])))
    (export / "PyPI").mkdir()
    with zipfile.ZipFile(export / "PyPI" / "all.zip", "w") as archive:
        archive.writestr("GHSA-aaaa-bbbb-cccc.json", json.dumps(VULNERABLE))
    pinned(repo, {"mail": NPM, "files": PYPI})
    check = repo.run("check", "--offline", "--advisories", str(export))
    assert check.exit_code == 1, check.output
    assert "MAL-2026-0001" in check.output and "GHSA-aaaa-bbbb-cccc" in check.output
    assert "GHSA-other" not in check.output
    safe = {**PYPI, "version": "0.3.1"}
    pinned(repo, {"files": safe})
    assert "GHSA-aaaa" not in repo.run("check", "--offline", "--advisories", str(export)).output


def test_a_hostile_export_file_is_skipped_not_a_traceback(repo: Repo, tmp_path: Path) -> None:
    export = tmp_path / "osv"
    export.mkdir()
    (export / "MAL-2026-0001.json").write_text(json.dumps(MALICIOUS))
    (export / "deep.json").write_bytes(b'["postmark-mcp", ' + b"[" * 200_000 + b"]" * 200_000 + b"]")
    wrong = {**MALICIOUS, "id": "MAL-2026-0002", "affected": [{"package": {"ecosystem": "npm", "name": "postmark-mcp"},
                                                               "ranges": [{"type": "SEMVER", "events": 7}]}]}
    (export / "wrong.json").write_text(json.dumps(wrong))
    pinned(repo, {"mail": NPM})
    check = repo.run("check", "--offline", "--advisories", str(export))
    assert check.exit_code == 1, check.output  # repo.run lets a traceback through: none was raised
    assert "MAL-2026-0001" in check.output and "MAL-2026-0002" not in check.output
