"""What `uvx` ran: the tool environment uv built (its `*.dist-info`) and uv's record of the wheel it installed.

The environment is read from the running server's command line (`…/archive-v0/<id>/bin/python …`). Its
dist-info gives the package's version and wheel tag; uv's wheel cache entry for that version and tag
(`wheels-v*/…/<name>/<version>-<tag>.http`) starts with a MessagePack header holding the wheel's file name and
the sha256 the index published for it. A wheel uv built from an sdist has no such entry: version only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

from scanner.artifacts.msgpack import MsgpackError, first_value
from scanner.artifacts.record import PYPI, normalised
from scanner.artifacts.view import View
from scanner.files.safe_read import MiB, RefusedFile

ENVIRONMENT = re.compile(r"(/[^\0]*?/archive-v\d+/[A-Za-z0-9_-]+)/bin/")
HEADER_LIMIT = 1 * MiB
SHA256 = re.compile(r"[0-9a-f]{64}")


def pypi_artifact(
    name: str, command_lines: Sequence[Sequence[str]], cache: str | None, view: View
) -> dict[str, Any] | None:
    """The PyPI record of `name` in the uv tool environment the server runs from, if that lies in uv's `cache`
    (a process can name any path on its command line), its paths as `view` sees them; None when none is named."""
    root = view.resolve(cache) if cache else None
    if root is None:
        return None
    named = dict.fromkeys(m.group(1) for line in command_lines for w in line if (m := ENVIRONMENT.search(w)))
    for environment in named:
        resolved = view.resolve(environment)
        if resolved is None or os.path.dirname(os.path.dirname(resolved)) != root:
            continue
        record = environment_record(view, resolved, root, name)
        if record is not None:
            return record
    return None


def environment_record(view: View, environment: str, cache: str, name: str) -> dict[str, Any] | None:
    """The record of `name` in the resolved `environment` (`<cache>/archive-v0/<id>`) of uv's resolved `cache`."""
    found = _dist_info(view, environment, name)
    if found is None:
        return None
    dist_info, version = found
    record: dict[str, Any] = {"type": PYPI, "name": normalised(name), "version": version}
    tags = _wheel_tags(view, dist_info, environment)
    wheel = _cached_wheel(view, cache, normalised(name), version, tags)
    if wheel is not None:
        record["file"], record["sha256"] = wheel
    return record


def _dist_info(view: View, environment: str, name: str) -> tuple[str, str] | None:
    wanted = normalised(name)
    sites = [*view.glob(environment, "lib/python*/site-packages", environment), f"{environment}/Lib/site-packages"]
    for site in sites:
        for candidate in view.glob(site, "*.dist-info", environment):
            stem, _, version = os.path.basename(candidate)[: -len(".dist-info")].rpartition("-")
            if normalised(stem) == wanted and version:
                return candidate, version
    return None


def _wheel_tags(view: View, dist_info: str, environment: str) -> set[str]:
    try:
        text = view.read(f"{dist_info}/WHEEL", environment, HEADER_LIMIT).decode("utf-8", "replace")
    except (RefusedFile, OSError):
        return set()
    return {line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")}


def _cached_wheel(view: View, cache: str, name: str, version: str, tags: set[str]) -> tuple[str, str] | None:
    """(file name, sha256) of the one cached wheel of `name` `version` whose tags are the installed ones."""
    entries = [
        *view.glob(cache, f"wheels-v*/pypi/{name}/{version}-*.http", cache),
        *view.glob(cache, f"wheels-v*/index/*/{name}/{version}-*.http", cache),
    ]
    found = {wheel for wheel in _headers(view, entries, cache) if not tags or _tags_of(wheel[0]) == tags}
    return found.pop() if len(found) == 1 else None


def _headers(view: View, entries: Iterable[str], cache: str) -> list[tuple[str, str]]:
    wheels: list[tuple[str, str]] = []
    for entry in entries:
        try:
            header = first_value(view.read(entry, cache, HEADER_LIMIT))
        except (RefusedFile, OSError, MsgpackError):
            continue
        strings = list(_strings(header))
        files = [s for s in strings if s.endswith(".whl")]
        digests = [s for s in strings if SHA256.fullmatch(s)]
        if len(files) == 1 and len(digests) == 1:
            wheels.append((files[0], digests[0]))
    return wheels


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _tags_of(wheel: str) -> set[str]:
    """The tags a wheel file name stands for (`py2.py3-none-any` is two)."""
    parts = wheel[: -len(".whl")].split("-")
    if len(parts) < 5:
        return set()
    python, abi, platform = parts[-3:]
    return {f"{p}-{a}-{q}" for p in python.split(".") for a in abi.split(".") for q in platform.split(".")}
