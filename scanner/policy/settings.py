"""The optional repo policy file, `mcp-lock.yaml`: per-server settings a team commits.

    timeout: 90                 # seconds, for every server
    network: allow              # or deny: stdio servers run without network (default allow)
    sandbox: on                 # or off: stdio servers run in a bubblewrap sandbox (default on)
    tmpfs-mib: 512              # MiB of a sandboxed server's private /tmp (default 512)
    install-timeout: 600        # seconds to install one launch's package tree, apart from `timeout:` (default 600)
    store-mib: 8192             # MiB the store of installed trees may hold; least recently used go first (default 8192)
    client: {name: claude-code, version: 2.0.14}   # the clientInfo servers are shown (default: the
                                # declaring client's own, see scanner.transports.clients)
    env: [HTTPS_PROXY]          # caller variables every stdio server may see
    unpinned-launch: warn       # or error (fails check) or off: a launch fetching a package without an exact version
    build-from-source: [pkg]    # PyPI packages that may build from an sdist, in the sandbox (default: none)
    script-hosts: {puppeteer: [storage.googleapis.com]}  # hosts an npm install script may reach (default: none)
    min-release-age: 7          # days a package version new to a server must have been published (default 7; 0: off)
    inert: ["site/**"]          # more files a change may touch and keep launches reviewed (scanner.policy.inert)
    withheld-boot-failure: block   # or note: a changed server that cannot boot without its withheld secrets
    max-definitions: 10000      # per server, all kinds (default 10,000); also under servers.NAME
    max-listing-bytes: 67108864 # per listing across its pages (default 64 MiB); also under servers.NAME
    inputs:                     # values for VS Code-style ${input:ID} placeholders
      api-key: {env: MY_API_KEY}   # read from the environment (never commit secrets)
      region: eu-west-1            # or a literal
    servers:
      github:
        skip: "needs a personal token; checked in the nightly job"
        timeout: 180
        network: allow
        env: [GITHUB_TOKEN]
        inputs: {pat: {env: GITHUB_PAT}}
    ignore:                     # accepted findings, still reported as suppressed (see scanner.policy.suppression)
      - {rule: MCPL-D012, server: github, tool: create_issue, reason: "reviewed", until: 2026-12-31}
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scanner.files.safe_read import POLICY_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.files.safe_yaml import compose, load, shown
from scanner.policy.allowlist import AllowlistError, Lists, policy_lists
from scanner.policy.builds import KEY as BUILDS_KEY
from scanner.policy.builds import build_names
from scanner.policy.script_hosts import KEY as SCRIPT_HOSTS_KEY
from scanner.policy.script_hosts import script_hosts
from scanner.policy.suppression import IgnoreEntry, IgnoreError, parse_ignores
from scanner.policy.values import (
    DEFAULT_MIN_RELEASE_AGE,
    MIN_MEMORY_MIB,
    PolicyError,
    as_mapping,
    client,
    globs,
    inputs,
    known_keys,
    mib,
    min_release_age,
    names,
    network,
    sandbox,
    timeout,
    unpinned_launch,
    withheld_boot,
)
from scanner.transports.cgroup import DEFAULT_MEMORY_MIB
from scanner.transports.listing import BYTES_KEY, DEFAULT_CAPS, DEFINITIONS_KEY, ListingCaps
from scanner.transports.sandbox import DEFAULT_TMPFS_MIB

POLICY_FILE = "mcp-lock.yaml"
TOP_KEYS = {
    "version", "timeout", "network", "sandbox", "client", "env", "inputs", "servers", "ignore", "unpinned-launch",
    "inert", "withheld-boot-failure",
    "tmpfs-mib", "min-release-age", "allow", "deny", "memory-mib", "tmpfs-budget-mib",
    "install-timeout", "store-mib",
} | {DEFINITIONS_KEY, BYTES_KEY, BUILDS_KEY, SCRIPT_HOSTS_KEY}
SERVER_KEYS = {"skip", "timeout", "network", "sandbox", "client", "env", "inputs", "tmpfs-mib", "memory-mib"} | {
    DEFINITIONS_KEY,
    BYTES_KEY,
}
DEFAULT_TIMEOUT = 90.0  # seconds per server when neither --timeout nor the policy says; npx/uvx cold starts: 6-59 s


@dataclass(frozen=True)
class ServerPolicy:
    skip: str | None = None
    timeout: float | None = None
    env: tuple[str, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)
    network: str | None = None  # "allow" or "deny"; None: the file's default (from for_server: resolved)
    sandbox: str | None = None  # "on" or "off"; None: the file's default (from for_server: resolved)
    client: Mapping[str, str] | None = None  # clientInfo {name, version}; None: the declaring client's
    caps: ListingCaps | None = None  # None: the file's (from for_server: resolved, defaults filled in)
    tmpfs_mib: int | None = None  # MiB of the sandbox's private /tmp; None: the file's (or 512)
    memory_mib: int | None = None  # MiB of memory for the server's processes; None: the file's (or 2048)


@dataclass(frozen=True)
class Policy:
    path: str | None = None  # repo-relative, None when the repo has no policy file
    timeout: float | None = None
    network: str | None = None  # the default for every server; None means allow
    sandbox: str | None = None  # the default for every server; None means on
    client: Mapping[str, str] | None = None
    env: tuple[str, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)
    servers: Mapping[str, ServerPolicy] = field(default_factory=dict)
    ignores: tuple[IgnoreEntry, ...] = ()
    # Inputs mapped to an environment variable that is not set (id -> variable), anywhere in the file:
    # a missing input then names the variable to set rather than asking for the mapping already there.
    input_vars: Mapping[str, str] = field(default_factory=dict)
    unpinned_launch: str = "warn"  # one of UNPINNED_LAUNCH_MODES
    inert: tuple[str, ...] = ()  # globs added to the inert set (scanner.policy.inert)
    withheld_boot_failure: str = "block"  # one of WITHHELD_BOOT_MODES
    caps: ListingCaps = DEFAULT_CAPS
    tmpfs_mib: int | None = None  # the default for every server; None means 512
    memory_mib: int | None = None  # the default for every server; None means 2048
    tmpfs_budget_mib: int | None = None  # every sandbox booting at once, together; None means 4096
    install_timeout: float | None = None  # seconds to install one launch's tree; None means 600
    store_mib: int | None = None  # MiB the store of installed trees may hold; None means 8192
    min_release_age: int = DEFAULT_MIN_RELEASE_AGE  # days; 0 turns the release-age screen off
    lists: Lists = field(default_factory=Lists)  # `allow:` and `deny:`: which servers may be declared
    builds: tuple[str, ...] = ()  # `build-from-source:` (scanner.policy.builds)
    script_hosts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # scanner.policy.script_hosts

    def for_server(self, *names: str) -> ServerPolicy:
        """The settings of the server called `names` (its key first, then its other declared names).

        Where several of its names have an entry, the strictest of them applies to each key (`_strictest`):
        a declaration merged into a launch never loosens what another of its entries sets.
        """
        entries = [self._resolved(self.servers[name]) for name in dict.fromkeys(names) if name in self.servers]
        return _strictest(entries) if entries else self._resolved(ServerPolicy())

    def _resolved(self, own: ServerPolicy) -> ServerPolicy:
        """`own` with the file's defaults filled in."""
        return ServerPolicy(
            skip=own.skip,
            timeout=own.timeout if own.timeout is not None else self.timeout,
            env=tuple(dict.fromkeys((*self.env, *own.env))),
            inputs={**self.inputs, **own.inputs},
            network=own.network or self.network or "allow",
            sandbox=own.sandbox or self.sandbox or "on",
            client=own.client or self.client,
            caps=own.caps or self.caps,
            tmpfs_mib=own.tmpfs_mib or self.tmpfs_mib,
            memory_mib=own.memory_mib or self.memory_mib,
        )


def _strictest(entries: list[ServerPolicy]) -> ServerPolicy:
    """One server's entries (defaults filled in) merged key by key, the strictest winning: only the
    pass-throughs every entry gives, the sandbox unless every entry turns it off, no network if one denies
    it, a skip only if every entry skips, the smallest timeout, memory and /tmp."""
    first = entries[0]
    if len(entries) == 1:
        return first
    env = [name for name in first.env if all(name in e.env for e in entries)]
    skips = [e.skip for e in entries]
    return dataclasses.replace(
        first,
        skip=skips[0] if all(skips) else None,
        env=tuple(env),
        network="deny" if any(e.network == "deny" for e in entries) else first.network,
        sandbox="off" if all(e.sandbox == "off" for e in entries) else "on",
        timeout=_least([e.timeout for e in entries], DEFAULT_TIMEOUT),
        tmpfs_mib=_least([e.tmpfs_mib for e in entries], DEFAULT_TMPFS_MIB),
        memory_mib=_least([e.memory_mib for e in entries], DEFAULT_MEMORY_MIB),
    )


def _least(values: list[Any], default: Any) -> Any:
    """The smallest of `values`, None (the default) counted as `default`; None when that is the smallest."""
    least = min(default if v is None else v for v in values)
    return None if None in values and least == default else least


def load_policy(repo: Path, environ: Mapping[str, str]) -> Policy:
    loaded = policy_source(repo)
    if loaded is None:
        return Policy()
    return policy_from(*loaded, environ)


def policy_from(data: Any, text: str, environ: Mapping[str, str]) -> Policy:
    """The policy a parsed `mcp-lock.yaml` (`data`, read from `text`) says; PolicyError when it cannot be used."""
    if data is None:
        return Policy(path=POLICY_FILE)
    where = POLICY_FILE
    mapping = as_mapping(data, where)
    known_keys(mapping, TOP_KEYS, where)
    servers = as_mapping(mapping.get("servers", {}), f"{where}: servers")
    input_vars = _unset_input_vars(mapping, environ)
    caps = _caps(mapping, where, DEFAULT_CAPS) or DEFAULT_CAPS
    return Policy(
        path=POLICY_FILE,
        timeout=timeout(mapping.get("timeout"), where),
        network=network(mapping.get("network"), where),
        sandbox=sandbox(mapping.get("sandbox"), where),
        client=client(mapping.get("client"), where),
        env=names(mapping.get("env"), where),
        inputs=inputs(mapping.get("inputs"), where, environ),
        servers={
            str(name): _server(value, f"{where}: servers.{name}", environ, caps) for name, value in servers.items()
        },
        ignores=_ignores(mapping.get("ignore"), text),
        input_vars=input_vars,
        unpinned_launch=unpinned_launch(mapping.get("unpinned-launch"), where),
        inert=globs(mapping.get("inert"), where),
        withheld_boot_failure=withheld_boot(mapping.get("withheld-boot-failure"), where),
        caps=caps,
        tmpfs_mib=mib(mapping.get("tmpfs-mib"), where, "tmpfs-mib"),
        memory_mib=mib(mapping.get("memory-mib"), where, "memory-mib", MIN_MEMORY_MIB),
        tmpfs_budget_mib=mib(mapping.get("tmpfs-budget-mib"), where, "tmpfs-budget-mib"),
        install_timeout=timeout(mapping.get("install-timeout"), f"{where}: install-timeout"),
        store_mib=mib(mapping.get("store-mib"), where, "store-mib"),
        min_release_age=min_release_age(mapping.get("min-release-age"), where),
        lists=_lists(mapping, where),
        builds=build_names(mapping.get(BUILDS_KEY), where),
        script_hosts=script_hosts(mapping.get(SCRIPT_HOSTS_KEY), where),
    )


def _lists(mapping: Mapping[str, Any], where: str) -> Lists:
    try:
        return policy_lists(mapping.get("allow"), mapping.get("deny"), where)
    except AllowlistError as error:
        raise PolicyError(str(error)) from None


# A problem quotes a character ('\t') or a tag or anchor name from the file: only the short quotes stay.
_QUOTED = re.compile(r"'<[a-z ]+>'|'[^']{5,}'")


def policy_source(repo: Path) -> tuple[Any, str] | None:
    """The parsed policy file and its text, or None when there is none."""
    try:
        data = read_regular(repo / POLICY_FILE, repo, POLICY_FILE, POLICY_LIMIT)
    except MissingFile:
        return None
    except RefusedFile as error:
        raise PolicyError(f"{POLICY_FILE}: cannot be read: {error.reason}") from None
    return parse_yaml(data, POLICY_FILE)


def parse_yaml(data: bytes, where: str) -> tuple[Any, str]:
    """The parsed policy file and its text. Errors name `where`, a position and the problem, never the
    file's text: a hostile repository can link mcp-lock.yaml to a secret, and a YAML error snippet would
    quote it."""
    import yaml  # here: a repository with no policy file never loads PyYAML (issue 39 item 2)

    try:
        text = data.decode("utf-8")
        return load(text), text
    except UnicodeDecodeError as error:
        raise PolicyError(f"{where}: not UTF-8 (byte offset {error.start})") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = _QUOTED.sub(_token_or_elided, error.problem or error.context or "")
        raise PolicyError(f"{where}: invalid YAML{at}: {problem}") from None
    except ValueError as error:  # a date like 2026-02-30
        reason = _QUOTED.sub(_token_or_elided, str(error))
        raise PolicyError(f"{where}: {_impossible_date(text) or 'cannot be read'}: {reason}") from None
    except (yaml.YAMLError, RecursionError):
        raise PolicyError(f"{where}: invalid YAML") from None


def _impossible_date(text: str) -> str | None:
    """Where the date YAML could not construct is: `line 5, column 12: 2027-02-30 is not a day of the calendar`.

    Composing builds no values, so the walk finds the scalar the loader failed on. The scalar is quoted only
    because it has a date's form (digits and dashes), which quotes nothing a linked secret could be.
    """
    import yaml

    try:
        stack = [compose(text)]
    except (yaml.YAMLError, RecursionError):
        return None
    constructor = yaml.SafeLoader("")
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack += [part for pair in reversed(node.value) for part in reversed(pair)]
        elif isinstance(node, yaml.SequenceNode):
            stack += reversed(node.value)
        elif isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:timestamp":
            try:
                constructor.construct_yaml_timestamp(node)
            except ValueError:
                mark = node.start_mark
                shown = node.value if re.fullmatch(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", node.value) else "the date"
                return f"line {mark.line + 1}, column {mark.column + 1}: {shown} is not a day of the calendar"
    return None


def _token_or_elided(match: re.Match[str]) -> str:
    return match[0] if match[0].startswith("'<") else "'…'"


def _unset_input_vars(mapping: dict[str, Any], environ: Mapping[str, str]) -> dict[str, str]:
    sections = [mapping, *(v for v in (mapping.get("servers") or {}).values() if isinstance(v, dict))]
    found: dict[str, str] = {}
    for section in sections:
        inputs = section.get("inputs")
        for key, spec in (inputs.items() if isinstance(inputs, dict) else ()):
            if isinstance(spec, dict) and isinstance(spec.get("env"), str) and spec["env"] not in environ:
                found.setdefault(str(key), spec["env"])
    return found


def _ignores(value: Any, text: str) -> tuple[IgnoreEntry, ...]:
    try:
        return parse_ignores(value, POLICY_FILE, _entry_lines(compose(text)))
    except IgnoreError as error:
        raise PolicyError(str(error)) from None


def _entry_lines(root: Any) -> list[int]:
    """The 1-based line of each `ignore:` entry, for findings about an entry to point at."""
    for key, value in getattr(root, "value", None) or ():
        if getattr(key, "value", None) == "ignore" and getattr(value, "id", None) == "sequence":
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _server(value: Any, where: str, environ: Mapping[str, str], defaults: ListingCaps = DEFAULT_CAPS) -> ServerPolicy:
    mapping = as_mapping(value, where)
    known_keys(mapping, SERVER_KEYS, where)
    skip = mapping.get("skip")
    if skip is not None and (not isinstance(skip, str) or not skip.strip()):
        raise PolicyError(f"{where}: skip must be a non-empty reason, e.g. skip: \"needs VPN\"")
    return ServerPolicy(
        skip=skip,
        timeout=timeout(mapping.get("timeout"), where),
        env=names(mapping.get("env"), where),
        inputs=inputs(mapping.get("inputs"), where, environ),
        network=network(mapping.get("network"), where),
        sandbox=sandbox(mapping.get("sandbox"), where),
        client=client(mapping.get("client"), where),
        caps=_caps(mapping, where, defaults),
        tmpfs_mib=mib(mapping.get("tmpfs-mib"), where, "tmpfs-mib"),
        memory_mib=mib(mapping.get("memory-mib"), where, "memory-mib", MIN_MEMORY_MIB),
    )


def _caps(mapping: dict[str, Any], where: str, defaults: ListingCaps) -> ListingCaps | None:
    """The listing caps a section sets (unset ones from `defaults`), or None when it sets neither."""
    if DEFINITIONS_KEY not in mapping and BYTES_KEY not in mapping:
        return None
    counts = {}
    for key in (DEFINITIONS_KEY, BYTES_KEY):
        value = mapping.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise PolicyError(f"{where}: {key} must be a positive whole number, got {shown(value)}")
        counts[key] = value
    return ListingCaps(
        definitions=counts[DEFINITIONS_KEY] or defaults.definitions, bytes=counts[BYTES_KEY] or defaults.bytes
    )


