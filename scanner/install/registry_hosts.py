"""Which hosts a package-manager step may reach: the registry (npm) or index (uv) configured for the launch, read
by mcp-lock from the step's own settings, never from what the step fetches.

npm: every `registry` and `@scope:registry` the step's environment (`npm_config_*`, the declaration's registry
included) and its copy of the user's `.npmrc` set, else npm's own default (`npm config get registry`, asked
once). npm fetches packuments and tarballs from there; a tarball on another host (a packument whose
`dist.tarball` points elsewhere) is never fetched: the install writes each tarball's URL from the registry
(scanner.install.npm_record.npm_files), and a resolution that needs another host (a tarball-URL dependency)
fails at the gate, naming it (`dependency-source-refused`).

uv: every index the environment (`UV_DEFAULT_INDEX`, `UV_INDEX_URL`, `UV_INDEX`, `UV_EXTRA_INDEX_URL`,
`UV_FIND_LINKS`) and the copy of the user's `uv.toml` name, else uv's own stated default. An index may serve
its files from another host (the public index does): the hosts the index itself names for the launch's
first package's files are allowed too, learned here by one bounded request of mcp-lock's own (cached per
index and package). uv checks every file it downloads against the sha256 the index states (and, installing,
against the lock's), so such a host can serve only the files the index vouches for.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from scanner.artifacts.packument import registry_for
from scanner.artifacts.pypi_index import uv_default_index
from scanner.install.netgate import Destination, destination_of
from scanner.install.upstream_proxy import NO_UPSTREAM, Upstream

CONFIG_LIMIT = 256 * 1024  # bytes of a user configuration file copied into a step
PAGE_LIMIT = 8 * 1024 * 1024  # bytes of an index page read to learn its file hosts
PAGE_SECONDS = 15.0
MAX_FILE_HOSTS = 8
UV_LIST_VARIABLES = ("UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS")
UV_DEFAULT_VARIABLES = ("UV_DEFAULT_INDEX", "UV_INDEX_URL")
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
_NPMRC_LINE = re.compile(r"^\s*(@[^:=\s]+:)?registry\s*=\s*[\"']?([^\"'\s]+)", re.MULTILINE)
_HREF = re.compile(r"""href\s*=\s*["']([^"']{1,2000})["']""", re.IGNORECASE)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", re.MULTILINE)


def npm_destinations(env: Mapping[str, str], npmrc: str | None) -> set[Destination]:
    """The registries an npm step with `env` and the user's `.npmrc` text may fetch from."""
    urls = [v for k, v in env.items() if k.lower().startswith("npm_config_") and k.lower().endswith("registry")]
    found = [(scope, url) for scope, url in _NPMRC_LINE.findall(npmrc or "")]
    urls += [url for _, url in found]
    has_default = any(k.lower() == "npm_config_registry" for k in env) or any(not s for s, _ in found)
    if not has_default:
        urls += [u for u in [_npm_default()] if u]
    return {d for d in map(destination_of, urls) if d is not None}


@functools.cache
def _npm_default() -> str | None:
    return registry_for({}, {})


def uv_indexes(env: Mapping[str, str], uv_toml: str | None) -> list[str]:
    """The index (and find-links) URLs a uv step with `env` and the user's `uv.toml` text uses, the default first."""
    defaults = [env[name] for name in UV_DEFAULT_VARIABLES if env.get(name)]
    listed = [word.rpartition("=")[2] if "=" in word.split("://", 1)[0] else word
              for name in UV_LIST_VARIABLES for word in env.get(name, "").split()]
    settings = _toml(uv_toml)
    indexes = settings.get("index") if isinstance(settings.get("index"), list) else []
    for entry in indexes:
        if isinstance(entry, dict) and isinstance(entry.get("url"), str):
            (defaults if entry.get("default") is True else listed).append(entry["url"])
    for key in ("index-url",):
        if isinstance(settings.get(key), str):
            defaults.append(settings[key])
    for key in ("extra-index-url", "find-links"):
        value = settings.get(key)
        listed += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    if not defaults:
        defaults = [u for u in [uv_default_index(env.get("PATH", ""))] if u]
    return [u for u in [*defaults, *listed] if u.startswith(("http://", "https://"))]


def uv_destinations(
    env: Mapping[str, str], uv_toml: str | None, project: str | None, upstream: Upstream = NO_UPSTREAM
) -> set[Destination]:
    """The hosts a uv step may fetch from: its indexes, and the file hosts they name for `project`'s files
    (asked through the runner's proxy, `upstream`, where it has one)."""
    indexes = uv_indexes(env, uv_toml)
    allowed = {d for d in map(destination_of, indexes) if d is not None}
    if project:
        for index in indexes:
            allowed |= file_hosts(index, project, upstream)
    return allowed


@functools.cache
def file_hosts(index: str, project: str, upstream: Upstream = NO_UPSTREAM) -> frozenset[Destination]:
    """The hosts `index`'s page of `project` serves files from (at most MAX_FILE_HOSTS); none when it cannot say."""
    from urllib.request import ProxyHandler, Request, build_opener  # here, as in scanner.artifacts.packument

    page = index.rstrip("/") + "/" + urllib.parse.quote(_normalised(project)) + "/"
    request = Request(page, headers={"Accept": f"{JSON_TYPE}, text/html;q=0.1"})
    where = destination_of(page)
    proxy = upstream.proxy_for(where, page.startswith("https:")) if where is not None else None
    if proxy is not None and proxy.scheme != "http":
        return frozenset()  # a proxy the gate does not speak to either
    if proxy is not None and proxy.authorization:
        request.add_header("Proxy-Authorization", proxy.authorization)  # urllib sends it to the proxy only
    routes = {"http": proxy.url, "https": proxy.url} if proxy is not None else {}
    opener = build_opener(ProxyHandler(routes))
    try:
        with opener.open(request, timeout=PAGE_SECONDS) as answer:
            body = answer.read(PAGE_LIMIT + 1)
            kind = answer.headers.get("Content-Type", "")
            final = answer.geturl()
    except (OSError, ValueError):
        return frozenset()
    if len(body) > PAGE_LIMIT:
        return frozenset()
    links = _json_links(body) if JSON_TYPE in kind else _HREF.findall(body.decode("utf-8", "replace"))
    hosts = {destination_of(urllib.parse.urljoin(final, link)) for link in links}
    return frozenset(sorted(h for h in hosts if h is not None)[:MAX_FILE_HOSTS])


def _json_links(body: bytes) -> list[str]:
    try:
        document = json.loads(body)
    except ValueError:
        return []
    files = document.get("files") if isinstance(document, dict) else None
    return [f["url"] for f in files if isinstance(f, dict) and isinstance(f.get("url"), str)] if isinstance(
        files, list
    ) else []


def first_project(text: str | None) -> str | None:
    """The first requirement's name in requirements text (uv's stdin, or a requirements file)."""
    for line in (text or "").splitlines():
        if line.strip().startswith(("#", "-")):
            continue
        found = _REQUIREMENT.match(line)
        if found:
            return found[1]
    return None


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _toml(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def described(allowed: Iterable[Destination]) -> str:
    return ", ".join(f"{host}:{port}" for host, port in sorted(allowed)) or "no host"
