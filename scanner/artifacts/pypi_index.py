"""Which Python package index a uvx launch installs from, and what that index's JSON API says about a version.

The index is found the way the launch's uv finds it, and mcp-lock never names one itself: the declaration's
`UV_DEFAULT_INDEX` / `UV_INDEX_URL` (or `PIP_INDEX_URL`), else mcp-lock's own environment's, else the user's uv
configuration (`UV_CONFIG_FILE`, `$XDG_CONFIG_HOME/uv/uv.toml`, `/etc/uv/uv.toml`: `index-url`, or the
`[[index]]` marked `default = true`), else pip's (`PIP_CONFIG_FILE`, the user's and the system's `pip.conf`,
`[global] index-url`), else uv's own default, as uv itself states it (`uv pip compile --help`). The repository's
own `uv.toml` or `[tool.uv]` is not read: mcp-lock's launches never see it (scanner.transports.project_config),
and under review it is the change's to write.

An index with the JSON API (`<root>/pypi/<name>/<version>/json`: `urls` with `upload_time_iso_8601` and
`packagetype`, `info.license_expression` / `info.license`) answers there; one without falls back to the JSON
simple API (scanner.artifacts.simple_index). Every answer is bounded as the npm registry's are.
"""

from __future__ import annotations

import configparser
import dataclasses
import functools
import os
import re
import shutil
import subprocess
import time
import tomllib
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from scanner.artifacts.packument import RegistryError, Release, fetch_json, moment, stated_license
from scanner.artifacts.record import normalised
from scanner.artifacts.simple_index import INDEX_VARIABLES, pypi_releases

CONFIG_LIMIT = 256 * 1024  # bytes of one configuration file read
ASK_TIMEOUT = 10.0
UV_DEFAULT = re.compile(r"--default-index\b.*?by\s+default:\s*<(https?://[^>\s]+)>", re.DOTALL)


def configured_index(launch_env: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    """The index a uvx launch with `launch_env` installs from (see the module's docstring for the order)."""
    for source in (launch_env, environ):
        for name in INDEX_VARIABLES:
            value = source.get(name)
            if _url(value):
                return str(value)
    return _uv_config(environ) or _pip_config(environ) or uv_default_index(_path(environ))


def _url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://")) and "${" not in value


def _home(environ: Mapping[str, str]) -> Path | None:
    home = environ.get("HOME")
    return Path(home) if home else None


def _uv_config(environ: Mapping[str, str]) -> str | None:
    if environ.get("UV_NO_CONFIG", "").lower() in ("1", "true", "yes"):
        return None
    home = _home(environ)
    xdg = environ.get("XDG_CONFIG_HOME") or (str(home / ".config") if home else "")
    candidates = [environ.get("UV_CONFIG_FILE", ""), f"{xdg}/uv/uv.toml" if xdg else "", "/etc/uv/uv.toml"]
    for candidate in filter(None, candidates):
        text = _read(Path(candidate))
        if text is None:
            continue
        try:
            settings = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            continue
        found = uv_index(settings)
        if found:
            return found
    return None


def uv_index(settings: Mapping[str, Any]) -> str | None:
    """The default index a uv.toml (or a `[tool.uv]` table) sets: the `[[index]]` marked default, else `index-url`."""
    indexes = settings.get("index")
    for entry in indexes if isinstance(indexes, list) else []:
        if isinstance(entry, dict) and entry.get("default") is True and _url(entry.get("url")):
            return str(entry["url"])
    value = settings.get("index-url")
    return str(value) if _url(value) else None


def _pip_config(environ: Mapping[str, str]) -> str | None:
    home = _home(environ)
    xdg = environ.get("XDG_CONFIG_HOME") or (str(home / ".config") if home else "")
    candidates = [environ.get("PIP_CONFIG_FILE", ""), f"{xdg}/pip/pip.conf" if xdg else "",
                  str(home / ".pip" / "pip.conf") if home else "", "/etc/pip.conf"]
    for candidate in filter(None, candidates):
        text = _read(Path(candidate))
        if text is None:
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        value = parser.get("global", "index-url", fallback=None) or parser.get("install", "index-url", fallback=None)
        if _url(value):
            return str(value).strip()
    return None


def _read(path: Path) -> str | None:
    """A configuration file's text, within CONFIG_LIMIT; None when it is absent, unreadable or too large."""
    try:
        with path.open("rb") as handle:
            data = handle.read(CONFIG_LIMIT + 1)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if len(data) <= CONFIG_LIMIT else None


def _path(environ: Mapping[str, str]) -> str:
    return environ.get("PATH", os.defpath)


@functools.cache
def uv_default_index(path: str) -> str | None:
    """uv's own default index, as `uv pip compile --help` states it; None when no uv on `path` says."""
    uv = shutil.which("uv", path=path)
    if uv is None:
        return None
    try:
        done = subprocess.run([uv, "pip", "compile", "--help"], capture_output=True, text=True, timeout=ASK_TIMEOUT,
                              cwd="/", check=False, env={"PATH": path, "NO_COLOR": "1"})
    except (OSError, subprocess.SubprocessError):
        return None
    found = UV_DEFAULT.search(done.stdout[:200_000]) if done.returncode == 0 else None
    return found[1] if found else None


def json_api(index: str, name: str, version: str) -> str:
    """Where an index whose simple API is at `index` answers its JSON API about `name` `version`."""
    root = index.rstrip("/")
    root = root[: -len("/simple")] if root.endswith("/simple") else root
    return f"{root}/pypi/{urllib.parse.quote(normalised(name))}/{urllib.parse.quote(version, safe='')}/json"


def index_releases(
    index: str, name: str, version: str, previous: str | None, deadline: float,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Release, Release | None]:
    """What `index` says about `name` `version` and `previous`: from its JSON API, else its simple API."""
    try:
        found = _json_release(index, name, version, deadline, clock)
    except RegistryError:
        found = None
    if found is None:
        return pypi_releases(index, name, version, previous, deadline, clock)
    before = None
    if previous is not None:
        try:
            before = _json_release(index, name, previous, deadline, clock)
        except RegistryError:
            before = None  # the version it replaces may be gone: nothing to compare against
    return _attested(index, name, version, previous, deadline, clock, found, before)


def _attested(
    index: str, name: str, version: str, previous: str | None, deadline: float, clock: Callable[[], float],
    found: Release, before: Release | None,
) -> tuple[Release, Release | None]:
    """`found` and `before` as the JSON API gave them, with whether each has PEP 740 attestations: the JSON API
    does not say, the JSON simple API does (a file's `provenance`). An index whose simple API cannot say has
    none to verify: the screen then sees no provenance, as it would on an index that publishes none."""
    try:
        simple, simple_before = pypi_releases(index, name, version, previous, deadline, clock)
    except RegistryError:
        return found, before
    found = dataclasses.replace(found, attested=simple.attested)
    if before is not None and simple_before is not None:
        before = dataclasses.replace(before, attested=simple_before.attested)
    return found, before


def _json_release(index: str, name: str, version: str, deadline: float, clock: Callable[[], float]) -> Release | None:
    document = fetch_json(json_api(index, name, version), "application/json", deadline, clock)
    return json_release(document)


def json_release(document: Any) -> Release | None:
    """What a JSON API answer for one version says (any shape: a field of the wrong type counts as absent);
    None when it lists no file of the version."""
    files = document.get("urls") if isinstance(document, dict) else None
    if not isinstance(files, list):
        return None
    wheels, uploaded = 0, []
    for entry in files:
        if not isinstance(entry, dict):
            continue
        if entry.get("packagetype") == "bdist_wheel" or str(entry.get("filename", "")).endswith(".whl"):
            wheels += 1
        at = moment(entry.get("upload_time_iso_8601"))
        if at is not None:
            uploaded.append(at)
    if not files:
        return None
    info = document.get("info")
    return Release(published=min(uploaded) if uploaded else None, install_script=not wheels, mcp_name=None,
                   license=info_license(info) if isinstance(info, dict) else None)


def info_license(info: Mapping[str, Any]) -> str | None:
    """The license a release's metadata states: its SPDX `license_expression`, else a short `license`, else the
    license its trove classifier names."""
    stated = stated_license(info.get("license_expression")) or stated_license(info.get("license"))
    if stated:
        return stated
    classifiers = info.get("classifiers")
    for classifier in classifiers if isinstance(classifiers, list) else []:
        if isinstance(classifier, str) and classifier.startswith("License ::"):
            return stated_license(classifier.rsplit("::", 1)[-1])
    return None
