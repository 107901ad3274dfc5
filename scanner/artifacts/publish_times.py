"""When a registry says each recorded release was published: the clock a re-pin is reproduced by
(scanner.vcs.repin_cutoff).

npm: the packument's `time[version]`, the very field `npm install --before` compares. PyPI: the PEP 700
`upload-time` of each of the release's files on the JSON simple API (PEP 691), the very field
`uv --exclude-newer` compares, and only of the files the record holds (one release's files can be uploaded
hours apart; a wheel added after the record was made is not the record's). Asking the field the package
manager itself compares puts the cutoff and the resolution on one clock, the registry's: the runner's clock,
and its skew against the registry, never enter.

Registry answers are hostile input, read within the bounds of scanner.artifacts.packument; every document is
asked once per name, a few at once, within one deadline. A release the registry does not list, or lists
without a time, is a RegistryError: a resolution "as of" a time cannot be reproduced for it (npm would even
count a version without a time as older than any cutoff; uv never picks a file without one).
"""

from __future__ import annotations

import datetime
import time
import urllib.parse
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.packument import RegistryError, fetch_json, moment
from scanner.artifacts.record import normalised
from scanner.artifacts.simple_index import SIMPLE_JSON, file_version

NPM, UV = "npm", "uv"
CONCURRENT = 8  # registry documents asked at once


@dataclass(frozen=True)
class Recorded:
    """One release a tree record pins, as its registry knows it."""

    name: str  # the registry's name (an npm alias's real package)
    version: str
    files: frozenset[str] = frozenset()  # uv: the sha256 of each file the record holds

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"


def publish_times(
    manager: str, source: str, releases: Iterable[Recorded], deadline: float,
    clock: Callable[[], float] = time.monotonic,
) -> dict[Recorded, datetime.datetime]:
    """When `source` (an npm registry, or a PyPI simple index for uv) says each release was published (uv: the
    latest upload among its recorded files). RegistryError for the first it cannot say about."""
    wanted = sorted(set(releases), key=str)
    names = sorted({r.name for r in wanted})
    ask = _packument if manager == NPM else _project_files
    with ThreadPoolExecutor(max_workers=min(CONCURRENT, max(1, len(names)))) as pool:
        documents = dict(zip(names, pool.map(lambda name: ask(source, name, deadline, clock), names), strict=True))
    read = _npm_time if manager == NPM else _uv_time
    return {release: read(documents[release.name], release) for release in wanted}


def _packument(registry: str, name: str, deadline: float, clock: Callable[[], float]) -> Any:
    url = registry.rstrip("/") + "/" + urllib.parse.quote(name, safe="@")  # a scoped name as `@scope%2fname`
    return fetch_json(url, "application/json", deadline, clock, absent=None)


def _project_files(index: str, name: str, deadline: float, clock: Callable[[], float]) -> Any:
    url = index.rstrip("/") + "/" + normalised(name) + "/"
    return fetch_json(url, SIMPLE_JSON, deadline, clock, absent=None)


def _npm_time(document: Any, release: Recorded) -> datetime.datetime:
    if not isinstance(document, dict):
        raise RegistryError(f"the registry has no packument of {release.name}")
    versions, times = document.get("versions"), document.get("time")
    if not isinstance(versions, dict) or not isinstance(versions.get(release.version), dict):
        raise RegistryError(f"the registry does not list {release}")
    published = moment(times.get(release.version) if isinstance(times, dict) else None)
    if published is None:
        raise RegistryError(f"the registry states no publish time for {release}")
    return published


def _uv_time(document: Any, release: Recorded) -> datetime.datetime:
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, list):
        raise RegistryError(f"the index has no JSON simple-API page of {release.name}")
    uploaded: dict[str, datetime.datetime | None] = {}
    for entry in files:
        if not isinstance(entry, dict) or file_version(str(entry.get("filename", "")), release.name) != release.version:
            continue
        hashes = entry.get("hashes")
        digest = hashes.get("sha256") if isinstance(hashes, dict) else None
        if isinstance(digest, str) and digest in release.files:
            uploaded[digest] = moment(entry.get("upload-time"))
    missing = release.files - uploaded.keys()
    if missing or not release.files:
        raise RegistryError(f"the index lists no file of {release} with the digest the record holds")
    times = [at for at in uploaded.values() if at is not None]
    if len(times) != len(uploaded):
        raise RegistryError(f"the index states no upload time (PEP 700 `upload-time`) for a file of {release}")
    return max(times)
