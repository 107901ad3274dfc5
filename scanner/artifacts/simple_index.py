"""What a Python package index says about a version, from its JSON simple API (PEP 691, with PEP 700's
`upload-time`): when its files were uploaded, and whether it has a wheel at all. A version with only an sdist is
installed by building it, which runs the package's own build code on the installing machine: PyPI's install script.

The index is the one the launch's uv or pip is configured with (`UV_DEFAULT_INDEX`, `UV_INDEX_URL`,
`PIP_INDEX_URL`: the declaration's, else mcp-lock's environment's). mcp-lock names no index itself, so without
one of these a PyPI package is not screened (docs/advisories.md says so).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from scanner.artifacts.packument import RegistryError, Release, fetch_json, moment
from scanner.artifacts.record import normalised

INDEX_VARIABLES = ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SDIST_SUFFIXES = (".tar.gz", ".zip")


def index_for(launch_env: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    """The package index a launch installs from, when one is configured."""
    for source in (launch_env, environ):
        for name in INDEX_VARIABLES:
            value = source.get(name)
            if isinstance(value, str) and value.startswith(("http://", "https://")) and "${" not in value:
                return value
    return None


def pypi_releases(
    index: str, name: str, version: str, previous: str | None, deadline: float,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Release, Release | None]:
    """What `index` says about `name` `version` and `previous`; RegistryError when it cannot say about `version`."""
    url = index.rstrip("/") + "/" + normalised(name) + "/"
    document = fetch_json(url, SIMPLE_JSON, deadline, clock)
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, list):
        raise RegistryError(f"the index's answer for {name} is not a JSON simple-API page")
    found = release_of(files, name, version)
    if found is None:
        raise RegistryError(f"the index lists no file of {name} {version}")
    return found, release_of(files, name, previous) if previous is not None else None


def release_of(files: list[Any], name: str, version: str) -> Release | None:
    """What a simple-API page's `files` say about `version` (any shape: an entry of the wrong type is skipped)."""
    wanted = normalised(name)
    return _release(entry for entry in files if _version_of(entry, wanted) == version)


def releases_of(files: list[Any], name: str) -> dict[str, Release]:
    """What a simple-API page's `files` say about each version they hold: `release_of` of each, in one pass (a
    popular package's page lists thousands of files, and a first lock of many servers reads one page for each
    server that installs the package)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    wanted = normalised(name)
    for entry in files:
        version = _version_of(entry, wanted)
        if version is not None:
            grouped.setdefault(version, []).append(entry)
    return {version: found for version, entries in grouped.items() if (found := _release(entries)) is not None}


def _version_of(entry: Any, wanted: str) -> str | None:
    filename = entry.get("filename") if isinstance(entry, dict) else None
    return _file_version(filename, wanted) if isinstance(filename, str) else None


def _release(entries: Iterable[dict[str, Any]]) -> Release | None:
    wheels, sdists, uploaded, attested = 0, 0, [], False
    for entry in entries:
        filename = entry["filename"]
        if filename.endswith(".whl"):
            wheels += 1
        elif filename.endswith(SDIST_SUFFIXES):
            sdists += 1
        attested = attested or (isinstance(entry.get("provenance"), str) and bool(entry["provenance"]))
        at = moment(entry.get("upload-time"))
        if at is not None:
            uploaded.append(at)
    if not wheels and not sdists:
        return None
    return Release(published=min(uploaded) if uploaded else None, install_script=not wheels, mcp_name=None,
                   attested=attested)


def file_version(filename: str, name: str) -> str | None:
    """The version a wheel's or sdist's file name says, if the file is of `name`."""
    return _file_version(filename, normalised(name))


def _file_version(filename: str, wanted: str) -> str | None:
    """file_version, of the name normalised as `wanted`."""
    if filename.endswith(".whl"):
        parts = filename[: -len(".whl")].split("-")
        return parts[1] if len(parts) >= 5 and normalised(parts[0]) == wanted else None
    for suffix in SDIST_SUFFIXES:
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            match = re.fullmatch(r"(.+)-([^-]+)", stem)
            return match[2] if match and normalised(match[1]) == wanted else None
    return None
