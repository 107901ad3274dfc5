"""What an npm registry says about a package version: when it was published (the packument's `time`), whether
it runs an install script (`hasInstallScript`, or a `preinstall`/`install`/`postinstall` script in its version
document), and the `mcpName` its package.json claims (the official MCP registry's ownership proof).

The registry is the one the launch used: the `npm_config_registry` its declaration sets, else mcp-lock's own
environment's, else what `npm config get registry` answers (run from `/`, so no repository's .npmrc steers it).
Registry answers are hostile input: each is read within a time and size bound and parsed within a depth and
value bound (scanner.files.bounded_json), and a field of the wrong type counts as absent.
"""

from __future__ import annotations

import datetime
import functools
import shutil
import subprocess
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scanner.artifacts.http_body import read_body, shown_url
from scanner.files.bounded_json import AnswerError, Bounds, parse

if TYPE_CHECKING:
    from scanner.artifacts.kept_alive import Connections

REQUEST_TIMEOUT = 20.0  # seconds without an answer, per request
# A packument holds every version ever published: a popular package's runs to tens of MB.
PACKUMENT = Bounds(bytes=64 * 1024 * 1024, depth=48, values=8_000_000)
INSTALL_SCRIPTS = ("preinstall", "install", "postinstall")
REGISTRY_VARIABLES = ("npm_config_registry", "NPM_CONFIG_REGISTRY")
ASK_TIMEOUT = 10.0


class RegistryError(Exception):
    """The registry could not say; the message says why, in one line."""


@dataclass(frozen=True)
class Release:
    """One published version, as its registry describes it."""

    published: datetime.datetime | None  # UTC; None when the registry does not say
    install_script: bool
    mcp_name: str | None
    license: str | None = None  # the license the registry states for this version (SPDX, as written)
    attested: bool = False  # the registry publishes attestations for it (npm provenance, PEP 740)


def registry_for(
    launch_env: Mapping[str, Any], environ: Mapping[str, str], default: Callable[[], str | None] | None = None
) -> str | None:
    """The npm registry a launch fetched from: its declaration's setting (a literal), else the caller's (npm's
    own configuration, asked with `default`: one run's `asked_once()`)."""
    for source in (launch_env, environ):
        for name in REGISTRY_VARIABLES:
            value = source.get(name)
            if isinstance(value, str) and value.startswith(("http://", "https://")) and "${" not in value:
                return value
    return (default or _npm_default)()


def asked_once() -> Callable[[], str | None]:
    """npm's configured registry for the launches of one run, asked of npm once: `npm config get registry` is
    a Node.js start (0.47 s each under load, 13 s for the 28 real servers' launches, one after the other), and
    its answer is the same for every launch that sets no registry of its own."""
    return functools.cache(_npm_default)


def _npm_default() -> str | None:
    if shutil.which("npm") is None:
        return None
    try:
        done = subprocess.run(["npm", "config", "get", "registry"], capture_output=True, text=True,
                              timeout=ASK_TIMEOUT, cwd="/", check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and answer.startswith(("http://", "https://")) else None


def releases(
    registry: str, name: str, version: str, previous: str | None, deadline: float,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Release, Release | None]:
    """What `registry`'s packument of `name` says about `version`, and about `previous` (None when it is not
    listed any more, or not asked); RegistryError when it cannot say about `version`."""
    url = registry.rstrip("/") + "/" + urllib.parse.quote(name, safe="@")  # a scoped name as `@scope%2fname`
    document = fetch_json(url, "application/json", deadline, clock)
    if not isinstance(document, dict):
        raise RegistryError(f"the registry's answer for {name} is not a packument")
    found = release_of(document, version)
    if found is None:
        raise RegistryError(f"the registry does not list {name}@{version}")
    return found, release_of(document, previous) if previous is not None else None


def release_of(document: dict[str, Any], version: str) -> Release | None:
    """What a parsed packument says about `version` (any shape: a field of the wrong type counts as absent)."""
    versions = document.get("versions")
    entry = versions.get(version) if isinstance(versions, dict) else None
    if not isinstance(entry, dict):
        return None
    times = document.get("time")
    return Release(
        published=moment(times.get(version) if isinstance(times, dict) else None),
        install_script=_runs_install_script(entry),
        mcp_name=entry.get("mcpName") if isinstance(entry.get("mcpName"), str) else None,
        license=stated_license(entry.get("license")),
        attested=_attested(entry),
    )


MAX_LICENSE = 200  # characters of a stated license kept


def stated_license(value: Any) -> str | None:
    """A license as a registry states it: a string (npm's `license`, an SPDX expression), or the legacy
    `{"type": …}` object; None for anything else, an empty one, or one past MAX_LICENSE characters."""
    if isinstance(value, dict):
        value = value.get("type")
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text if 0 < len(text) <= MAX_LICENSE else None


def _attested(entry: dict[str, Any]) -> bool:
    """Whether a version document says the registry has provenance for it (`dist.attestations.provenance`)."""
    dist = entry.get("dist")
    attestations = dist.get("attestations") if isinstance(dist, dict) else None
    return isinstance(attestations, dict) and isinstance(attestations.get("provenance"), dict)


def _runs_install_script(entry: dict[str, Any]) -> bool:
    if entry.get("hasInstallScript") is True:
        return True
    scripts = entry.get("scripts")
    return isinstance(scripts, dict) and any(isinstance(scripts.get(s), str) for s in INSTALL_SCRIPTS)


def moment(value: Any) -> datetime.datetime | None:
    """An ISO 8601 time from a registry, in UTC; None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(datetime.UTC) if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


NOT_GIVEN: Any = object()


def fetch_json(
    url: str, accept: str, deadline: float, clock: Callable[[], float], absent: Any = NOT_GIVEN,
    connections: Connections | None = None,
) -> Any:
    """A registry's JSON answer at `url`, read and parsed within bounds; RegistryError when it cannot be had
    (HTTP 404: `absent`, when given: the registry has no such document). With `connections`, over a connection
    kept open between requests (scanner.artifacts.kept_alive)."""
    # Here, not at the top: a check that asks no registry (every stdio boot) starts its servers without loading
    # urllib's client, http.client and email (about 0.03 CPU-s that every server waited for; issue 39 item 3).
    import http.client
    import urllib.error

    from scanner.artifacts.kept_alive import opened

    shown = shown_url(url)
    left = deadline - clock()
    if left <= 0:
        raise RegistryError(f"no time was left to ask {shown}")
    try:
        with opened(url, accept, min(REQUEST_TIMEOUT, left), connections) as response:
            raw = read_body(
                response, PACKUMENT.bytes, deadline, clock, answer=f"the registry's answer from {shown}",
                late="did not arrive in time", error=RegistryError,
            )
    except urllib.error.HTTPError as error:
        if error.code == 404 and absent is not NOT_GIVEN:
            return absent
        raise RegistryError(f"the registry answered HTTP {error.code} for {shown}") from None
    except TimeoutError:
        raise RegistryError(f"the registry did not answer in time at {shown}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error
        raise RegistryError(f"the registry could not be reached at {shown}: {reason}") from None
    try:
        return parse(raw, PACKUMENT)
    except AnswerError as error:
        raise RegistryError(f"the registry's answer from {shown} is {error}") from None
