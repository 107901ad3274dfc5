"""Advisories about package versions from OSV: its API (scanner.artifacts.osv_api) or a local export (the
per-ecosystem `all.zip` layout: one `<ID>.json` per advisory, zipped or not), and whether an advisory's
ranges cover a version.

The source is the caller's setting (`--advisories` / `MCP_LOCK_ADVISORIES`): `osv` for OSV's public API, another
API's base URL (a mirror), or an export directory for a runner without network.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from scanner.artifacts.inventory import Package
from scanner.artifacts.osv_api import DETAIL_ANSWER, AdvisoryError, Found, query_api
from scanner.artifacts.record import normalised
from scanner.files.bounded_json import AnswerError, parse

KEYWORD = "osv"  # `--advisories osv`: OSV's public API, at its documented address
DEFAULT_API = "https://api.osv.dev"
MAX_EXPORT_FILE = DETAIL_ANSWER.bytes
MAX_EXPORT_FILES = 2_000_000


def lookup(source: str, packages: Sequence[Package]) -> Found:
    """The advisories affecting each package: from OSV's API when `source` is `osv` (its public API) or an
    http(s) URL, else from the export directory it names."""
    if not packages:
        return Found()
    if source == KEYWORD:
        return query_api(DEFAULT_API, packages)
    if re.match(r"https?://", source):
        return query_api(source, packages)
    return Found(_from_export(Path(source), packages))


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
            advisory = parse(raw, DETAIL_ANSWER)
        except AnswerError:
            continue  # not an advisory this reader can use; the export's other files still count
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
    for affected in listed(advisory.get("affected")):
        named = affected.get("package") if isinstance(affected, dict) else None
        if not isinstance(named, dict) or named.get("ecosystem") != package.ecosystem:
            continue
        if _name(named.get("name"), package.ecosystem) != _name(package.name, package.ecosystem):
            continue
        if package.version in listed(affected.get("versions")):
            return True
        if any(_in_range(r, package.version) for r in listed(affected.get("ranges")) if isinstance(r, dict)):
            return True
    return False


def listed(value: Any) -> list[Any]:
    """`value` when it is a list, else nothing: an advisory's fields are read as the schema says or not at all."""
    return value if isinstance(value, list) else []


def _name(name: Any, ecosystem: str) -> str:
    text = str(name)
    return normalised(text) if ecosystem == "PyPI" else text


def _in_range(version_range: dict[str, Any], version: str) -> bool:
    if version_range.get("type") not in ("SEMVER", "ECOSYSTEM"):
        return False
    key = version_key(version)
    affected = False
    for event in listed(version_range.get("events")):
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
