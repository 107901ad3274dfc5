"""OSV's answers are hostile input: paged, capped, malformed, deep, huge or slow, each gives findings (a `MAL-`
hit is never lost, a failed lookup blocks), never a traceback and never a silent pass."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from fixture_repo import Repo

from artifacts.osv_server import OSV, advisory
from artifacts.test_advisories import MALICIOUS, NPM, pinned
from scanner.artifacts import osv_api as client
from scanner.files.bounded_json import Bounds


def report(repo: Repo, osv: OSV, tmp_path: Path) -> tuple[int, list[dict]]:
    """`check --offline --advisories` against the loopback OSV: its exit code and its findings (JSON report)."""
    out = tmp_path / "report.json"
    check = repo.run("check", "--offline", "--advisories", osv.url, "--format", "json", "--output", str(out))
    # repo.run lets a traceback through, so reaching the report means there was none.
    return check.exit_code, json.loads(out.read_text())["findings"]


def vulnerabilities(count: int) -> list[dict]:
    return [
        advisory(f"GHSA-{n:04d}-aaaa-bbbb", "npm", "postmark-mcp", ["1.0.16"], severity="LOW") for n in range(count)
    ]


def test_101_advisories_and_one_mal_still_report_the_mal_as_critical(
    repo: Repo, osv_api: OSV, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    osv_api.advisories += [*vulnerabilities(101), MALICIOUS]
    osv_api.page_size = 40  # three pages for the one package, as OSV pages
    monkeypatch.setattr(client, "MAX_DETAILS", 50)  # fewer details than advisories: the cap bites
    pinned(repo, {"mail": NPM})
    code, findings = report(repo, osv_api, tmp_path)
    assert code == 1
    hits = {f["subject"]: f for f in findings if f["rule"] == "known-advisory"}
    assert len(hits) == 102  # every advisory named is reported, fetched or not
    assert hits["MAL-2026-0001"]["severity"] == "critical"
    assert "Malicious code in postmark-mcp" in hits["MAL-2026-0001"]["message"]  # its details came first
    # Fetched although it sorts after every GHSA id: MAL- ids come first (requests run 4 at a time, so the
    # server's arrival order is not asserted).
    assert "MAL-2026-0001" in osv_api.details and len(osv_api.details) == 50
    unfetched = [f for f in hits.values() if any("details not fetched" in d for d in f["details"])]
    assert len(unfetched) == 52
    tokens = [q.get("page_token") for batch in osv_api.batches for q in batch["queries"]]
    assert tokens == [None, "40", "80"]
    assert not [f for f in findings if f["rule"] == "advisory-lookup-failed"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[" * 200_000 + b"]" * 200_000, "nested deeper than"),
        (b'{"results": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", "nested deeper than"),
        (b'{"results": [' + b"{}," * 2_500_000 + b"{}]}", "more than"),
        (b'{"results": {"vulns": []}}', "one result per query"),
        (b'{"results": [{"vulns": {"id": "MAL-1"}}]}', "vulns is not a list"),
        (b'{"results": [{"vulns": [{"id": 7}]}]}', "has no valid id"),
        (b'{"results": [{"vulns": [{"id": "../../etc/passwd"}]}]}', "has no valid id"),
        (b'{"results": [{"next_page_token": 12}]}', "not a page token"),
        (b'{"results": ["MAL-2026-0001"]}', "not an object"),
        (b"<html>busy</html>", "not JSON"),
        (b'{"results": [{"vulns": [{"id": "MAL-1"}]}]', "not JSON"),
    ],
)
def test_a_hostile_batch_answer_is_a_blocking_finding_not_a_traceback(
    repo: Repo, osv_api: OSV, tmp_path: Path, body: bytes, said: str
) -> None:
    pinned(repo, {"mail": NPM})
    osv_api.batch_body = body
    code, findings = report(repo, osv_api, tmp_path)
    assert code == 1
    (failed,) = [f for f in findings if f["rule"] == "advisory-lookup-failed"]
    assert said in failed["message"] and failed["severity"] == "high"


def test_a_huge_answer_is_refused_at_the_cap(
    repo: Repo, osv_api: OSV, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned(repo, {"mail": NPM})
    osv_api.batch_body = b'{"results": [{"vulns": [], "pad": "' + b"x" * 300_000 + b'"}]}'
    monkeypatch.setattr(client, "BATCH_ANSWER", Bounds(100_000, 16, 1000))
    code, findings = report(repo, osv_api, tmp_path)
    (failed,) = [f for f in findings if f["rule"] == "advisory-lookup-failed"]
    assert code == 1 and "larger than" in failed["message"]


def test_hostile_details_still_report_the_advisory_by_its_id(repo: Repo, osv_api: OSV, tmp_path: Path) -> None:
    osv_api.advisories.append(MALICIOUS)
    pinned(repo, {"mail": NPM})
    for body in (b"[" * 100_000, b'{"id": "MAL-2026-0001", "affected": 5, "aliases": {"a": 1}, "summary": []}'):
        osv_api.vuln_body = body
        code, findings = report(repo, osv_api, tmp_path)
        (hit,) = [f for f in findings if f["rule"] == "known-advisory"]
        assert code == 1 and hit["subject"] == "MAL-2026-0001" and hit["severity"] == "critical"


def test_a_slow_answer_ends_at_the_deadline_with_a_finding(
    repo: Repo, osv_api: OSV, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    osv_api.advisories.append(MALICIOUS)
    pinned(repo, {"mail": NPM})
    osv_api.delay = 3.0
    monkeypatch.setattr(client, "DEADLINE", 0.5)
    code, findings = report(repo, osv_api, tmp_path)
    (failed,) = [f for f in findings if f["rule"] == "advisory-lookup-failed"]
    assert code == 1 and "timed out" in failed["message"]


def test_endless_pages_stop_at_the_page_cap_and_keep_what_was_found(
    repo: Repo, osv_api: OSV, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    osv_api.advisories.append(MALICIOUS)
    osv_api.endless = True
    monkeypatch.setattr(client, "MAX_PAGES", 3)
    pinned(repo, {"mail": NPM})
    code, findings = report(repo, osv_api, tmp_path)
    rules = sorted(f["rule"] for f in findings)
    assert code == 1 and rules == ["advisory-lookup-failed", "known-advisory"]
    assert len(osv_api.batches) == 3


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (b"garbage\r\n\r\n", "could not be reached"),  # not an HTTP status line
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"results\": [", "cut off"),  # short of its length
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "could not be reached"),  # no chunk size
    ],
)
def test_a_broken_http_answer_is_a_finding(repo: Repo, tmp_path: Path, answer: bytes, said: str) -> None:
    pinned(repo, {"mail": NPM})
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def answer_once() -> None:
            connection, _ = listener.accept()
            with connection:
                _read_request(connection)
                connection.sendall(answer)
                # Half-close, then drain: closing with unread bytes would reset the connection, which the client
                # reports as unreachable instead of as the broken answer under test.
                connection.shutdown(socket.SHUT_WR)
                connection.settimeout(10)
                while connection.recv(65536):
                    pass

        thread = threading.Thread(target=answer_once, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        out = tmp_path / "report.json"
        check = repo.run("check", "--offline", "--advisories", url, "--format", "json", "--output", str(out))
        thread.join(timeout=10)
    (failed,) = [f for f in json.loads(out.read_text())["findings"] if f["rule"] == "advisory-lookup-failed"]
    assert check.exit_code == 1 and said in failed["message"]


def _read_request(connection: socket.socket) -> None:
    """The whole HTTP request: its head, then as many body bytes as its Content-Length says."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return
        body += chunk
