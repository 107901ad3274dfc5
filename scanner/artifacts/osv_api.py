"""OSV's API: `POST /v1/querybatch` for every package at once, following each query's `next_page_token` as OSV
pages, then `GET /v1/vulns/{id}` for the advisories it names, `MAL-` ones first.

Every answer is hostile input: each is read within a time and a size bound and parsed within a depth and value
bound (scanner.files.bounded_json), and its shape is checked before it is used. The whole lookup has one
deadline. What cannot be looked up is said (`Found.problems`, `Found.unfetched`), never silently dropped: an
advisory id the batch named is reported even when its details were not fetched.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from scanner.artifacts.http_body import read_body, shown_url
from scanner.artifacts.inventory import Package
from scanner.files.bounded_json import AnswerError, Bounds, parse

REQUEST_TIMEOUT = 20.0  # seconds without an answer, per request
DEADLINE = 180.0  # seconds for the whole lookup: every page and every advisory's details
BATCH = 1000  # queries per querybatch request, OSV's own limit
MAX_PAGES = 50  # pages followed per query; OSV pages at 1,000 advisories (querybatch) or fewer
MAX_DETAILS = 300  # advisories whose details are fetched; `MAL-` ones first, the rest reported by id
WORKERS = 4  # detail requests in flight at once
BATCH_ANSWER = Bounds(bytes=16 * 1024 * 1024, depth=16, values=2_000_000)
DETAIL_ANSWER = Bounds(bytes=4 * 1024 * 1024, depth=32, values=500_000)
MAX_TOKEN = 4096  # characters of a page token sent back
ADVISORY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")


class AdvisoryError(Exception):
    """The advisory source could not be read; the message says why, in one line."""


@dataclass
class Found:
    """What a lookup found: advisories per package (a document, or `{"id"}` alone when its details are missing),
    why some details are missing, and why the lookup as a whole is incomplete."""

    advisories: dict[Package, list[dict[str, Any]]] = field(default_factory=dict)
    unfetched: dict[str, str] = field(default_factory=dict)  # advisory id -> why its details are missing
    problems: list[str] = field(default_factory=list)


def is_malicious(advisory_id: str) -> bool:
    """Whether an id is one of OSV's malicious-packages database (`MAL-2025-1234`)."""
    return advisory_id.startswith("MAL-")


def query_api(base: str, packages: Sequence[Package], clock: Callable[[], float] = time.monotonic) -> Found:
    """Every advisory OSV's API at `base` names for `packages`. A failure part-way keeps what was found."""
    deadline = clock() + DEADLINE
    ids: dict[Package, list[str]] = {}
    problems: list[str] = []
    try:
        _collect(base, packages, ids, deadline, clock)
    except AdvisoryError as error:
        problems.append(str(error))
    named = sorted({i for found in ids.values() for i in found}, key=lambda i: (not is_malicious(i), i))
    details, unfetched = _details(base, named, deadline, clock)
    advisories = {p: [details.get(i) or {"id": i} for i in found] for p, found in ids.items() if found}
    return Found(advisories, unfetched, problems)


def _collect(
    base: str, packages: Sequence[Package], ids: dict[Package, list[str]], deadline: float, clock: Callable[[], float]
) -> None:
    """The ids OSV names for each package, into `ids`, page after page."""
    pending: list[tuple[Package, str | None]] = [(p, None) for p in packages]
    pages: dict[Package, int] = {}
    while pending:
        batch, pending = pending[:BATCH], pending[BATCH:]
        queries = [_query(package, token) for package, token in batch]
        answer = _request(_url(base, "v1/querybatch"), {"queries": queries}, BATCH_ANSWER, deadline, clock)
        for (package, _token), (found, token) in zip(batch, batch_results(answer, len(batch)), strict=True):
            known = ids.setdefault(package, [])
            known += [i for i in found if i not in known]
            if token is not None:
                pages[package] = pages.get(package, 1) + 1
                if pages[package] > MAX_PAGES:
                    raise AdvisoryError(f"OSV has more than {MAX_PAGES} pages of advisories for {package}")
                pending.append((package, token))


def _query(package: Package, token: str | None) -> dict[str, Any]:
    named = {"name": package.name, "ecosystem": package.ecosystem}
    query: dict[str, Any] = {"package": named, "version": package.version}
    if token is not None:
        query["page_token"] = token
    return query


def batch_results(answer: Any, count: int) -> list[tuple[list[str], str | None]]:
    """Each result of a parsed querybatch answer to `count` queries: its advisory ids and its next page's token.
    AdvisoryError when the answer is not OSV's shape."""
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list) or len(results) != count:
        raise AdvisoryError("OSV's querybatch answer does not have one result per query")
    return [_result(result, f"results[{index}]") for index, result in enumerate(results)]


def _result(result: Any, where: str) -> tuple[list[str], str | None]:
    """The advisory ids of one querybatch result and its next page's token; AdvisoryError when malformed."""
    if not isinstance(result, dict):
        raise AdvisoryError(f"OSV's querybatch answer is malformed: {where} is not an object")
    vulns = result.get("vulns", [])
    if not isinstance(vulns, list):
        raise AdvisoryError(f"OSV's querybatch answer is malformed: {where}.vulns is not a list")
    found: list[str] = []
    for position, vuln in enumerate(vulns):
        advisory_id = vuln.get("id") if isinstance(vuln, dict) else None
        if not isinstance(advisory_id, str) or not ADVISORY_ID.fullmatch(advisory_id):
            raise AdvisoryError(f"OSV's querybatch answer is malformed: {where}.vulns[{position}] has no valid id")
        found.append(advisory_id)
    token = result.get("next_page_token")
    if token in (None, ""):
        return found, None
    if not isinstance(token, str) or len(token) > MAX_TOKEN:
        raise AdvisoryError(f"OSV's querybatch answer is malformed: {where}.next_page_token is not a page token")
    return found, token


def _details(
    base: str, named: list[str], deadline: float, clock: Callable[[], float]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Each named advisory's document, the first MAX_DETAILS of them; and why the others have none."""
    wanted, skipped = named[:MAX_DETAILS], named[MAX_DETAILS:]
    unfetched = {i: f"details not fetched: more than {MAX_DETAILS} advisories were named" for i in skipped}
    details: dict[str, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for advisory_id, got in zip(wanted, pool.map(lambda i: _advisory(base, i, deadline, clock), wanted),
                                    strict=True):
            if isinstance(got, dict):
                details[advisory_id] = got
            else:
                unfetched[advisory_id] = got
    return details, unfetched


def _advisory(base: str, advisory_id: str, deadline: float, clock: Callable[[], float]) -> dict[str, Any] | str:
    """One advisory's document, or why it could not be had."""
    url = _url(base, "v1/vulns/" + urllib.parse.quote(advisory_id, safe=""))
    try:
        answer = _request(url, None, DETAIL_ANSWER, deadline, clock)
    except AdvisoryError as error:
        return f"details not fetched: {error}"
    if not isinstance(answer, dict) or answer.get("id") != advisory_id:
        return "details not fetched: OSV's answer is not this advisory"
    return answer


def _url(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + path


def _request(url: str, body: dict[str, Any] | None, bounds: Bounds, deadline: float, clock: Callable[[], float]) -> Any:
    left = deadline - clock()
    if left <= 0:
        raise AdvisoryError(f"the lookup took longer than {DEADLINE:.0f} s in all; stopped before {shown_url(url)}")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=min(REQUEST_TIMEOUT, left)) as response:
            raw = read_body(
                response, bounds.bytes, deadline, clock, answer=f"OSV's answer from {shown_url(url)}",
                late=f"took longer than the lookup's {DEADLINE:.0f} s", error=AdvisoryError,
            )
    except urllib.error.HTTPError as error:
        raise AdvisoryError(f"OSV's API answered HTTP {error.code} for {shown_url(url)}") from None
    except TimeoutError:
        raise AdvisoryError(
            f"OSV's API timed out at {shown_url(url)} (no answer within {REQUEST_TIMEOUT:.0f} s, or the "
            f"lookup's {DEADLINE:.0f} s were up)"
        ) from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error
        raise AdvisoryError(f"OSV's API could not be reached at {shown_url(url)}: {reason}") from None
    try:
        return parse(raw, bounds)
    except AnswerError as error:
        raise AdvisoryError(f"OSV's answer from {shown_url(url)} is {error}") from None
