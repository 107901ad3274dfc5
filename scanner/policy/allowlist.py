"""Which servers a repository may declare at all: an organisation's allowlist and denylist.

Two sources, both outside the change under review. The policy file's `allow:` and `deny:` lists (under
`check --base`, the merge base's, plus what the change tightens), each entry one of

    - package: "@modelcontextprotocol/server-*"   # the npm/PyPI package (or image) a runner fetches, a glob
    - command: "python3 servers/*.py"            # the command line as declared (words joined by spaces), a glob
    - url: "https://mcp.example.com/*"           # a remote server's URL, a glob
    - name: github                               # the server's declared name (weak: the repository picks it)

and an enterprise `managed-settings.json` (GitHub Copilot's and Claude Code's format) given by the CI:
`allowedMcpServers` / `deniedMcpServers`, each entry `{"serverName": …}`, `{"serverCommand": [argv…]}` (exact)
or `{"serverUrl": "https://…/*"}` (a glob). As those clients evaluate it: a denied server is refused; with an
allowlist, a server must match an entry (an empty list allows none), and once the allowlist has any
`serverCommand` entry a stdio server must match one of those (any `serverUrl` entry: a remote server one of
those), not merely a name. A server outside either list is a blocking `server-not-allowed` finding and is
never booted.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.files.safe_read import CONFIG_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.model.transports import is_local
from scanner.policy.identity import package_identity, pypi_name, url_identity
from scanner.sources.declarations import Server
from scanner.sources.unpinned import launched

KINDS = ("package", "command", "url", "name")
MANAGED = {"serverName": "name", "serverCommand": "argv", "serverUrl": "url"}
MAX_ENTRIES = 10_000


class AllowlistError(ValueError):
    """An allow/deny list cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Entry:
    kind: str  # package, command, url, name; argv (a managed serverCommand: exact)
    value: str | tuple[str, ...]
    where: str  # "mcp-lock.yaml allow[0]", "managed-settings.json allowedMcpServers[2]"

    def matches(self, server: Server) -> bool:
        return any(self._matches(facts) for facts in _facts(server))

    def _matches(self, facts: dict[str, Any]) -> bool:
        if self.kind == "argv":
            return facts["argv"] is not None and tuple(facts["argv"]) == self.value
        if self.kind == "name":
            return str(self.value).casefold() in facts["names"]
        if self.kind == "url":
            return _url_matches(facts["url"], str(self.value))
        if self.kind == "package" and facts["ecosystem"] == "pypi":
            return facts["package"] is not None and fnmatch.fnmatchcase(facts["package"], pypi_name(str(self.value)))
        found = facts[self.kind]
        return found is not None and fnmatch.fnmatchcase(found, str(self.value))

    def unparsed(self, server: Server) -> bool:
        """A URL entry facing a URL it cannot parse: refused by a deny list, never admitted by an allowlist."""
        # The resolved URL only: a template's placeholders (`https://${env:HOST}/mcp`) are no URL yet.
        urls = [f["url"] for f in _facts(server) if f["url"] is not None and f["resolved"]]
        return self.kind == "url" and any(url_identity(url) is None for url in urls)


def _url_matches(url: str | None, pattern: str) -> bool:
    if url is None:
        return False
    found, wanted = url_identity(url), url_identity(pattern, pattern=True)
    if found is None:
        return False
    return fnmatch.fnmatchcase(found, wanted if wanted is not None else pattern)


@dataclass(frozen=True)
class Lists:
    allow: tuple[Entry, ...] | None = None  # None: any server may be declared
    deny: tuple[Entry, ...] = ()
    managed: bool = False  # the managed-settings rule: command and URL entries bind their transport

    def refusal(self, server: Server) -> str | None:
        """Why `server` may not be declared; None when it may."""
        denied = next((entry for entry in self.deny if entry.matches(server) or entry.unparsed(server)), None)
        if denied is not None:
            return f"denied by {denied.where} ({_shown(denied)})"
        if self.allow is None:
            return None
        candidates = list(self.allow)
        if self.managed:
            binding = "argv" if _local(server) else "url"
            if any(entry.kind == binding for entry in candidates):
                candidates = [entry for entry in candidates if entry.kind == binding]
        if any(entry.matches(server) for entry in candidates):
            return None
        if not self.allow:
            return "the allowlist is empty: no server may be declared"
        return f"matches no entry of the allowlist ({self.allow[0].where.rsplit('[', 1)[0]})"


def policy_lists(allow: Any, deny: Any, where: str) -> Lists:
    """The `allow:` and `deny:` of mcp-lock.yaml."""
    return Lists(
        allow=None if allow is None else _entries(allow, f"{where}: allow", f"{where} allow"),
        deny=() if deny is None else _entries(deny, f"{where}: deny", f"{where} deny"),
    )


def managed_lists(path: Path) -> Lists:
    """An enterprise managed-settings.json; AllowlistError when it cannot be used."""
    display = path.name
    try:
        data = json.loads(read_regular(path, path.parent, display, CONFIG_LIMIT).decode("utf-8"))
    except (MissingFile, RefusedFile) as error:
        raise AllowlistError(f"managed settings {path}: cannot be read: {error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AllowlistError(f"managed settings {path}: not JSON: {error}") from None
    if not isinstance(data, dict):
        raise AllowlistError(f"managed settings {path}: expected a JSON object")
    allow, deny = data.get("allowedMcpServers"), data.get("deniedMcpServers")
    return Lists(
        allow=None if allow is None else _managed(allow, f"{display} allowedMcpServers"),
        deny=() if deny is None else _managed(deny, f"{display} deniedMcpServers"),
        managed=True,
    )


def _entries(value: Any, where: str, label: str) -> tuple[Entry, ...]:
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        raise AllowlistError(f"{where}: must be a list (at most {MAX_ENTRIES}) of entries such as {{package: NAME}}")
    entries = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or len(item) != 1:
            raise AllowlistError(f"{where}[{index}]: one key of {', '.join(KINDS)}, e.g. {{package: pkg}}")
        ((kind, pattern),) = item.items()
        if kind not in KINDS or not isinstance(pattern, str) or not pattern:
            raise AllowlistError(f"{where}[{index}]: one key of {', '.join(KINDS)} with a non-empty string")
        entries.append(Entry(kind, pattern, f"{label}[{index}]"))
    return tuple(entries)


def _managed(value: Any, where: str) -> tuple[Entry, ...]:
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        raise AllowlistError(f"{where}: must be a list of entries")
    entries = []
    for index, item in enumerate(value):
        keys = [key for key in MANAGED if isinstance(item, dict) and key in item]
        if len(keys) != 1:
            raise AllowlistError(f"{where}[{index}]: exactly one of serverName, serverCommand, serverUrl")
        found = item[keys[0]]
        kind = MANAGED[keys[0]]
        if kind == "argv":
            if not isinstance(found, list) or not found or not all(isinstance(word, str) for word in found):
                raise AllowlistError(f"{where}[{index}]: serverCommand must be a list of strings")
            entries.append(Entry(kind, tuple(found), f"{where}[{index}]"))
        elif isinstance(found, str) and found:
            entries.append(Entry(kind, found, f"{where}[{index}]"))
        else:
            raise AllowlistError(f"{where}[{index}]: {keys[0]} must be a non-empty string")
    return tuple(entries)


def refusal(lists: Sequence[Lists], server: Server) -> str | None:
    """The first reason any of `lists` refuses `server`."""
    return next((why for found in lists if (why := found.refusal(server)) is not None), None)


def _facts(server: Server) -> list[dict[str, Any]]:
    """What each declaration launches, as written and as resolved (an entry may match either)."""
    facts = []
    for declaration in server.declarations:
        for launch in (declaration.template, declaration.resolved):
            resolved = launch is declaration.resolved
            if launch is None:
                continue
            package = launched(launch)
            argv = [launch.command, *launch.args] if launch.command else None
            facts.append(
                {
                    "package": package_identity(package) if package is not None else None,
                    "ecosystem": package.ecosystem if package is not None else None,
                    "command": " ".join(argv) if argv else None,
                    "argv": argv,
                    "url": launch.url,
                    "names": {name.casefold() for name in server.names},
                    "resolved": resolved,
                }
            )
    return facts


def _local(server: Server) -> bool:
    return server.template is not None and is_local(server.template.transport)


def _shown(entry: Entry) -> str:
    value = " ".join(entry.value) if isinstance(entry.value, tuple) else entry.value
    return f"{entry.kind}: {value}"


def tightest(base: Lists, change: Lists) -> tuple[Lists, list[tuple[str, bool, str]]]:
    """Under `check --base`: the lists that apply (the base's, with the change's tightenings: an allowlist
    where the base has none, fewer allowed entries, more denied ones) and each difference (key, loosens, says)."""
    differences: list[tuple[str, bool, str]] = []
    allow = base.allow
    if change.allow != base.allow:
        added = [e for e in change.allow or () if base.allow is not None and not _same(base.allow, e)]
        if base.allow is None:
            allow = change.allow
            differences.append(("allow", False, "an allowlist where the base has none"))
        elif change.allow is None or added:
            shown = "removed" if change.allow is None else ", ".join(_shown(e) for e in added or [])
            differences.append(("allow", True, f"allows more than the base: {shown}"))
        else:
            allow = tuple(e for e in base.allow if _same(change.allow, e))
            differences.append(("allow", False, "allows fewer servers than the base"))
    removed = [e for e in base.deny if not _same(change.deny, e)]
    new = [e for e in change.deny if not _same(base.deny, e)]
    if removed:
        differences.append(("deny", True, "denies less than the base: " + ", ".join(_shown(e) for e in removed)))
    if new:
        differences.append(("deny", False, "denies more: " + ", ".join(_shown(e) for e in new)))
    return Lists(allow=allow, deny=base.deny + tuple(new), managed=base.managed), differences


def _same(entries: Sequence[Entry], entry: Entry) -> list[Entry]:
    return [e for e in entries if (e.kind, e.value) == (entry.kind, entry.value)]
