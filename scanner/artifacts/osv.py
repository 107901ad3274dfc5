"""Advisories about pinned package versions from OSV: its API (`POST /v1/querybatch`, then `GET /v1/vulns/ID`
for each hit) or a local export (the per-ecosystem `all.zip` layout: one `<ID>.json` per advisory, zipped or not).

No address is built in: the API's base URL, or the export's directory, is the caller's setting
(`--advisories` / `MCP_LOCK_ADVISORIES`). One batch request per run, bounded by a timeout and a size cap.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.artifacts.record import NPM, PYPI, normalised

ECOSYSTEMS = {NPM: "npm", PYPI: "PyPI"}
TIMEOUT = 20.0  # seconds per request
MAX_RESPONSE = 16 * 1024 * 1024  # bytes of one answer
MAX_ADVISORIES = 100  # advisories fetched by id in one run
MAX_EXPORT_FILE = 4 * 1024 * 1024
MAX_EXPORT_FILES = 2_000_000


class AdvisoryError(Exception):
    """The advisory source could not be read; the message says why, in one line."""


@dataclass(frozen=True)
class Package:
    ecosystem: str  # OSV's spelling: npm, PyPI
    name: str
    version: str


def packages_of(artifacts: Iterable[dict[str, Any]]) -> list[Package]:
    """The npm and PyPI versions among `artifacts` (lock records), each once, in a stable order."""
    found = {
        Package(ECOSYSTEMS[a["type"]], str(a["name"]), str(a["version"]))
        for a in artifacts
        if a.get("type") in ECOSYSTEMS and isinstance(a.get("version"), str) and isinstance(a.get("name"), str)
    }
    return sorted(found, key=lambda p: (p.ecosystem, p.name, p.version))


def lookup(source: str, packages: Sequence[Package]) -> dict[Package, list[dict[str, Any]]]:
    """The advisories affecting each package: from OSV's API when `source` is an http(s) URL, else from the
    export directory it names."""
    if not packages:
        return {}
    if re.match(r"https?://", source):
        return _from_api(source, packages)
    return _from_export(Path(source), packages)


def _from_api(base: str, packages: Sequence[Package]) -> dict[Package, list[dict[str, Any]]]:
    queries = [{"package": {"name": p.name, "ecosystem": p.ecosystem}, "version": p.version} for p in packages]
    answer = _request(_url(base, "v1/querybatch"), {"queries": queries})
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list) or len(results) != len(packages):
        raise AdvisoryError("OSV's querybatch answer does not have one result per query")
    ids: dict[Package, list[str]] = {}
    for package, result in zip(packages, results, strict=True):
        if isinstance(result, dict) and result.get("next_page_token"):
            raise AdvisoryError(
                f"OSV has more advisories for {package.ecosystem} {package.name}@{package.version} than one page "
                "of its batch answer; only one request is made per run, so look it up by hand"
            )
        vulns = result.get("vulns") if isinstance(result, dict) else None
        ids[package] = [v["id"] for v in vulns or [] if isinstance(v, dict) and isinstance(v.get("id"), str)]
    wanted = sorted({i for found in ids.values() for i in found})
    if len(wanted) > MAX_ADVISORIES:
        raise AdvisoryError(f"OSV lists {len(wanted)} advisories for the pinned versions, more than {MAX_ADVISORIES}")
    details = {i: _advisory(base, i) for i in wanted}
    return {package: [details[i] for i in found] for package, found in ids.items() if found}


def _advisory(base: str, advisory_id: str) -> dict[str, Any]:
    answer = _request(_url(base, "v1/vulns/" + urllib.parse.quote(advisory_id, safe="")), None)
    if not isinstance(answer, dict) or answer.get("id") != advisory_id:
        return {"id": advisory_id}  # the id alone still names the advisory
    return answer


def _url(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + path


def _request(url: str, body: dict[str, Any] | None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            raw = response.read(MAX_RESPONSE + 1)
    except urllib.error.HTTPError as error:
        raise AdvisoryError(f"OSV's API answered HTTP {error.code} for {_shown(url)}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise AdvisoryError(f"OSV's API could not be reached at {_shown(url)}: {reason}") from None
    if len(raw) > MAX_RESPONSE:
        raise AdvisoryError(f"OSV's answer from {_shown(url)} is larger than {MAX_RESPONSE // (1024 * 1024)} MiB")
    try:
        return json.loads(raw)
    except ValueError:
        raise AdvisoryError(f"OSV's answer from {_shown(url)} is not JSON") from None


def _shown(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.hostname or "", parts.path, "", ""))


# --- a local export ---


def _from_export(folder: Path, packages: Sequence[Package]) -> dict[Package, list[dict[str, Any]]]:
    if not folder.is_dir():
        raise AdvisoryError(f"{folder}: not a directory (an OSV export: one JSON file per advisory, or all.zip)")
    needles = {n for p in packages for n in _needles(p)}
    found: dict[Package, list[dict[str, Any]]] = {}
    for raw in _documents(folder):
        lowered = raw.lower()
        if not any(needle in lowered for needle in needles):
            continue
        try:
            advisory = json.loads(raw)
        except ValueError:
            continue
        for package in packages:
            if isinstance(advisory, dict) and affects(advisory, package):
                found.setdefault(package, []).append(advisory)
    return found


def _needles(package: Package) -> set[bytes]:
    name = package.name.lower()
    return {f'"{name}"'.encode(), f'"{name.replace("-", "_")}"'.encode(), f'"{name.replace("_", "-")}"'.encode()}


def _documents(folder: Path) -> Iterator[bytes]:
    """Each advisory file's bytes: `*.json` below `folder` and the members of each `*.zip` there."""
    count = 0
    for root, _dirs, files in os.walk(folder):
        for name in sorted(files):
            count += 1
            if count > MAX_EXPORT_FILES:
                raise AdvisoryError(f"{folder}: more than {MAX_EXPORT_FILES} files; not an OSV export")
            path = Path(root, name)
            if name.endswith(".json") and path.is_file() and path.stat().st_size <= MAX_EXPORT_FILE:
                yield path.read_bytes()
            elif name.endswith(".zip") and path.is_file():
                yield from _zip_members(path)


def _zip_members(path: Path) -> Iterator[bytes]:
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                if member.filename.endswith(".json") and 0 <= member.file_size <= MAX_EXPORT_FILE:
                    with archive.open(member) as handle:
                        yield handle.read(MAX_EXPORT_FILE + 1)[:MAX_EXPORT_FILE]
    except (zipfile.BadZipFile, OSError) as error:
        raise AdvisoryError(f"{path}: not a readable zip archive ({error})") from None


def affects(advisory: dict[str, Any], package: Package) -> bool:
    """Whether one of the advisory's `affected` entries is `package`'s name and covers its version
    (listed in `versions`, or inside an ECOSYSTEM or SEMVER range)."""
    for affected in advisory.get("affected") or []:
        named = affected.get("package") if isinstance(affected, dict) else None
        if not isinstance(named, dict) or named.get("ecosystem") != package.ecosystem:
            continue
        if _name(named.get("name"), package.ecosystem) != _name(package.name, package.ecosystem):
            continue
        if package.version in (affected.get("versions") or []):
            return True
        if any(_in_range(r, package.version) for r in affected.get("ranges") or [] if isinstance(r, dict)):
            return True
    return False


def _name(name: Any, ecosystem: str) -> str:
    text = str(name)
    return normalised(text) if ecosystem == "PyPI" else text


def _in_range(version_range: dict[str, Any], version: str) -> bool:
    if version_range.get("type") not in ("SEMVER", "ECOSYSTEM"):
        return False
    key = version_key(version)
    affected = False
    for event in version_range.get("events") or []:
        if not isinstance(event, dict):
            continue
        if "introduced" in event:
            introduced = str(event["introduced"])
            affected = introduced == "0" or key >= version_key(introduced)
        elif affected and _ends(event, key):
            affected = False
    return affected


def _ends(event: dict[str, Any], key: tuple[tuple[int, Any], ...]) -> bool:
    """Whether a `fixed` or `last_affected` event ends the affected range before `key`."""
    if "fixed" in event:
        return key >= version_key(str(event["fixed"]))
    return "last_affected" in event and key > version_key(str(event["last_affected"]))


def version_key(version: str) -> tuple[tuple[int, Any], ...]:
    """An ordering of npm (SemVer) and PyPI (PEP 440) version strings good enough for advisory ranges:
    numbers compare as numbers, a pre-release (`-rc.1`, `a1`, `.dev0`) sorts before its release, `.post1` after."""
    parts: list[tuple[int, Any]] = []
    for word in re.findall(r"\d+|[a-z]+", version.lower().split("+", 1)[0].lstrip("v")):
        if word.isdigit():
            parts.append((3, int(word)))
        elif word in ("post", "rev", "r"):
            parts.append((2, word))  # after the release it follows, before the next number
        else:
            parts.append((0, word))
    return (*parts, (1, ""))
