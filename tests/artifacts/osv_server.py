"""A loopback OSV API (127.0.0.1, port 0) answering as OSV's published API does: `POST /v1/querybatch`
({"queries": [{"package": {"name", "ecosystem"}, "version"}]} -> {"results": [{"vulns": [{"id", "modified"}]}]},
an empty object for a query without advisories; `next_page_token` when more remain, asked for again with the
query's `page_token`) and `GET /v1/vulns/{id}` (one advisory in the OSV schema). A test can make it hostile:
an answer given verbatim, or one given slowly."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import loopback_http


def advisory(advisory_id: str, ecosystem: str, name: str, versions: list[str], fixed: str | None = None,
             summary: str = "", severity: str | None = None, aliases: list[str] | None = None) -> dict[str, Any]:
    """An advisory in the OSV schema (1.6): affected versions listed, and a range that ends where it was fixed."""
    events: list[dict[str, str]] = [{"introduced": "0"}] + ([{"fixed": fixed}] if fixed else [])
    entry: dict[str, Any] = {
        "schema_version": "1.6.0",
        "id": advisory_id,
        "modified": "2026-11-30T12:00:00Z",
        "published": "2026-11-29T12:00:00Z",
        "aliases": aliases or [],
        "summary": summary,
        "details": summary,
        "affected": [{
            "package": {"ecosystem": ecosystem, "name": name},
            "ranges": [{"type": "SEMVER" if ecosystem == "npm" else "ECOSYSTEM", "events": events}],
            "versions": versions,
        }],
    }
    if severity:
        entry["database_specific"] = {"severity": severity}
    return entry


@dataclass
class OSV:
    url: str = ""
    advisories: list[dict[str, Any]] = field(default_factory=list)
    batches: list[dict[str, Any]] = field(default_factory=list)  # every querybatch body received
    status: int = 200  # what querybatch answers; not 200: an error
    page_size: int | None = None  # set: at most this many advisories per result, the rest on further pages
    endless: bool = False  # every result with advisories says there is another page, forever
    batch_body: bytes | None = None  # set: querybatch answers exactly these bytes
    vuln_body: bytes | None = None  # set: every advisory's details answer exactly these bytes
    delay: float = 0.0  # seconds each answer waits before its first byte
    details: list[str] = field(default_factory=list)  # every advisory id whose details were asked for

    def matching(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        package, version = query["package"], query["version"]
        return [
            a for a in self.advisories for affected in a["affected"]
            if affected["package"] == {"ecosystem": package["ecosystem"], "name": package["name"]}
            and version in affected["versions"]
        ]


def serve(osv: OSV) -> ThreadingHTTPServer:
    class Handler(loopback_http.Handler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            osv.batches.append(body)
            if self.path != "/v1/querybatch" or osv.status != 200:
                self._answer(osv.status if osv.status != 200 else 404, {"code": 5, "message": "Not Found"})
                return
            if osv.batch_body is not None:
                self._send(200, osv.batch_body)
                return
            self._answer(200, {"results": [self._page(query) for query in body["queries"]]})

        def _page(self, query: dict[str, Any]) -> dict[str, Any]:
            vulns = [{"id": a["id"], "modified": a["modified"]} for a in osv.matching(query)]
            if osv.endless:
                return {"vulns": vulns, "next_page_token": "again"} if vulns else {}
            start = int(query.get("page_token") or 0)
            end = start + osv.page_size if osv.page_size else len(vulns)
            page: dict[str, Any] = {"vulns": vulns[start:end]} if vulns[start:end] else {}
            if end < len(vulns):
                page["next_page_token"] = str(end)
            return page

        def do_GET(self) -> None:
            wanted = unquote(self.path.removeprefix("/v1/vulns/"))
            osv.details.append(wanted)
            if osv.vuln_body is not None:
                self._send(200, osv.vuln_body)
                return
            found = [a for a in osv.advisories if a["id"] == wanted]
            self._answer(200, found[0]) if found else self._answer(404, {"code": 5, "message": "Bug not found."})

        def _answer(self, status: int, document: dict[str, Any]) -> None:
            self._send(status, json.dumps(document).encode())

        def _send(self, status: int, body: bytes) -> None:
            time.sleep(osv.delay)
            self.answer(status, "application/json", body)

    server, osv.url = loopback_http.start(Handler)
    return server
