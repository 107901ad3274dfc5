"""The policy that judges a change under `check --base`: mcp-lock.yaml at the merge base, plus what the
change tightens.

The change under review never sets the terms of its own review. Each key of the change's mcp-lock.yaml
is compared with the base's, as it applies to each server (a server's own setting, else the file's,
else the default). Where the change's value loosens the base's, the base's stays and the difference is a
blocking `policy-loosened` finding; every other difference applies at once and is a `policy-changed` note.
After the merge, the change's file is the committed policy and judges every later run.

Loosening: a new or widened `ignore:` entry (a later or no `until:`) or `skip:`, `sandbox: off`,
`network: allow`, a new `env:` name, an `inputs:` entry newly read from the environment, a longer
`timeout`, a laxer `unpinned-launch` (error, warn, off), a larger `tmpfs-mib`, `max-definitions` or
`max-listing-bytes`, a smaller `min-release-age`, a new `inert:` glob, `withheld-boot-failure: note`, and any change
of `client:`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import POLICY_CHANGED, POLICY_LOOSENED
from scanner.policy.settings import DEFAULT_TIMEOUT, POLICY_FILE, Policy, ServerPolicy
from scanner.policy.suppression import IgnoreEntry
from scanner.transports.listing import BYTES_KEY, DEFINITIONS_KEY, ListingCaps
from scanner.transports.sandbox import DEFAULT_TMPFS_MIB

# Lower is stricter. None (not set) is the default, the first value after it in each comment.
NETWORK_RANK = {"deny": 0, "allow": 1}  # default allow
SANDBOX_RANK = {"on": 0, "off": 1}  # default on
UNPINNED_RANK = {"error": 0, "warn": 1, "off": 2}  # default warn
WITHHELD_RANK = {"block": 0, "note": 1}  # default block
Spec = tuple[str, str]  # an input: ("literal", value) or ("env", VARIABLE)
Path = tuple[str | int, ...]  # keys and indices into the file, e.g. ("servers", "mail", "skip")


@dataclass(frozen=True)
class Side:
    """One mcp-lock.yaml: what it says, and the mapping it was read from (inputs as written)."""

    policy: Policy
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Difference:
    key: str  # as written: sandbox, servers.mail.skip, ignore[0]
    path: Path  # where in the change's file
    server: str  # the server it concerns; the policy file for a setting of every server
    loosens: bool
    says: str  # the change's value, and the base's


@dataclass
class Judgement:
    policy: Policy  # what judges the run
    differences: list[Difference]

    def findings(self, line: Callable[[Path], int], label: str) -> list[Finding]:
        return [_finding(d, line(d.path), label) for d in self.differences]


def judge(base: Side, change: Side, environ: Mapping[str, str]) -> Judgement:
    """The effective policy (the change's, except where it loosens the base's) and every difference."""
    out: list[Difference] = []
    top = _Top(base, change, out)
    servers = {
        name: _server(name, base, change, top, out)
        for name in sorted(set(base.policy.servers) | set(change.policy.servers))
    }
    ignores = _ignores(base.policy.ignores, change.policy.ignores, out)
    version_b, version_c = base.data.get("version"), change.data.get("version")
    if version_b != version_c:
        out.append(Difference("version", ("version",), POLICY_FILE, False, _says(version_c, version_b)))
    top_specs = top.inputs
    server_specs = {name: specs for name, (_, specs) in servers.items()}
    policy = Policy(
        path=change.policy.path or base.policy.path,
        timeout=top.timeout,
        network=top.network,
        sandbox=top.sandbox,
        client=base.policy.client,
        env=top.env,
        inputs=_resolve(top_specs, environ),
        servers={
            name: dataclasses.replace(server, inputs=_resolve(server_specs[name], environ))
            for name, (server, _) in servers.items()
        },
        ignores=ignores,
        input_vars=_unset_vars([top_specs, *server_specs.values()], environ),
        unpinned_launch=top.unpinned_launch,
        inert=top.inert,
        withheld_boot_failure=top.withheld_boot_failure,
        caps=top.caps,
        tmpfs_mib=top.tmpfs_mib,
        min_release_age=top.min_release_age,
    )
    return Judgement(policy, out)


class _Top:
    """The file-wide settings: each the change's, unless it loosens the base's."""

    def __init__(self, base: Side, change: Side, out: list[Difference]) -> None:
        b, c = base.policy, change.policy
        where = POLICY_FILE
        self.timeout = _ordered(
            out, "timeout", (), where, b.timeout, c.timeout, lambda v: DEFAULT_TIMEOUT if v is None else v
        )
        self.network = _ordered(out, "network", (), where, b.network, c.network, lambda v: NETWORK_RANK[v or "allow"])
        self.sandbox = _ordered(out, "sandbox", (), where, b.sandbox, c.sandbox, lambda v: SANDBOX_RANK[v or "on"])
        self.unpinned_launch = _ordered(
            out, "unpinned-launch", (), where, b.unpinned_launch, c.unpinned_launch, lambda v: UNPINNED_RANK[v]
        )
        self.tmpfs_mib = _ordered(out, "tmpfs-mib", (), where, b.tmpfs_mib, c.tmpfs_mib, _tmpfs_rank)
        self.min_release_age = _ordered(
            out, "min-release-age", (), where, b.min_release_age, c.min_release_age, lambda days: -days
        )
        self.withheld_boot_failure = _ordered(
            out, "withheld-boot-failure", (), where, b.withheld_boot_failure, c.withheld_boot_failure,
            lambda v: WITHHELD_RANK[v],
        )
        # A glob the base does not have widens the inert set: fewer changes withhold secrets.
        added = [g for g in c.inert if g not in b.inert]
        if added:
            out.append(Difference("inert", ("inert",), where, True, f"adds {_json(added)} (the base does not)"))
        if [g for g in b.inert if g not in c.inert]:
            out.append(Difference("inert", ("inert",), where, False, _says(list(c.inert), list(b.inert))))
        self.inert = tuple(g for g in c.inert if g in b.inert)
        self.caps = _caps(out, "", (), where, b.caps, c.caps)
        if _client(b.client) != _client(c.client):
            out.append(Difference("client", ("client",), where, True, _says(_client(c.client), _client(b.client))))
        self.env = _names(out, "env", ("env",), where, b.env, c.env, b.env, c.env)
        base_specs, change_specs = specs_of(base.data), specs_of(change.data)
        self.inputs = _inputs(out, "inputs", ("inputs",), where, base_specs, change_specs, base_specs, change_specs)


def _server(
    name: str, base: Side, change: Side, top: _Top, out: list[Difference]
) -> tuple[ServerPolicy, dict[str, Spec]]:
    """Server `name`'s effective settings, written out in full; differences where its own entry changed."""
    own_b, own_c = base.policy.servers.get(name, ServerPolicy()), change.policy.servers.get(name, ServerPolicy())
    res_b, res_c = base.policy.for_server(name), change.policy.for_server(name)
    key = f"servers.{name}"
    path: Path = ("servers", name)
    # Each key is reported where the server's own entry changed it; a difference that comes from the
    # file-wide setting alone is reported there, once.
    records = out

    def timeout(v: float | None) -> float:
        return DEFAULT_TIMEOUT if v is None else v

    def ordered(field: str, rank: Callable[[Any], Any]) -> Any:
        log = records if getattr(own_b, field) != getattr(own_c, field) else []
        return _ordered(log, f"{key}.{field}", path, name, getattr(res_b, field), getattr(res_c, field), rank)

    skip = own_c.skip if own_b.skip is not None else None
    if own_b.skip != own_c.skip:
        says = _says(own_c.skip, own_b.skip)
        records.append(Difference(f"{key}.skip", (*path, "skip"), name, own_b.skip is None, says))
    effective_timeout = ordered("timeout", timeout)
    network = ordered("network", lambda v: NETWORK_RANK[v])
    sandbox = ordered("sandbox", lambda v: SANDBOX_RANK[v])
    if _client(own_b.client) != _client(own_c.client) and _client(res_b.client) != _client(res_c.client):
        says = _says(_client(res_c.client), _client(res_b.client))
        records.append(Difference(f"{key}.client", (*path, "client"), name, True, says))
    env_log = records if own_b.env != own_c.env else []
    env = _names(env_log, f"{key}.env", (*path, "env"), name, own_b.env, own_c.env, res_b.env, res_c.env)
    base_top, change_top = specs_of(base.data), specs_of(change.data)
    own_specs_b, own_specs_c = specs_of(base.data, name), specs_of(change.data, name)
    inputs_log = records if own_specs_b != own_specs_c else []
    specs = _inputs(
        inputs_log, f"{key}.inputs", (*path, "inputs"), name, own_specs_b, own_specs_c,
        {**base_top, **own_specs_b}, {**change_top, **own_specs_c},
    )
    own_sizes = own_b.caps != own_c.caps or own_b.tmpfs_mib != own_c.tmpfs_mib
    sizes_log = records if own_sizes else []
    caps = _caps(sizes_log, f"{key}.", path, name, res_b.caps, res_c.caps)
    tmpfs_mib = _ordered(sizes_log, f"{key}.tmpfs-mib", path, name, res_b.tmpfs_mib, res_c.tmpfs_mib, _tmpfs_rank)
    server = ServerPolicy(
        skip=skip,
        # None falls back to the file-wide timeout: right only while that is the default too.
        timeout=DEFAULT_TIMEOUT if effective_timeout is None and top.timeout is not None else effective_timeout,
        env=tuple(n for n in env if n not in top.env),
        network=network,
        sandbox=sandbox,
        client=res_b.client,
        caps=caps,
        tmpfs_mib=tmpfs_mib,
    )
    return server, specs


def _tmpfs_rank(mib: int | None) -> int:
    return DEFAULT_TMPFS_MIB if mib is None else mib


def _caps(out: list[Difference], prefix: str, path: Path, server: str, b: ListingCaps, c: ListingCaps) -> ListingCaps:
    """The listing caps: each count the change's, unless it is larger than the base's."""
    definitions = _ordered(out, prefix + DEFINITIONS_KEY, path, server, b.definitions, c.definitions, int)
    size = _ordered(out, prefix + BYTES_KEY, path, server, b.bytes, c.bytes, int)
    return ListingCaps(definitions=definitions, bytes=size)


def _ordered(
    out: list[Difference], key: str, path: Path, server: str, b: Any, c: Any, rank: Callable[[Any], Any]
) -> Any:
    """The change's value `c`, unless it ranks laxer than the base's `b`; a difference when they differ."""
    if b == c:
        return b
    loosens = rank(c) > rank(b)
    out.append(Difference(key, (*path, key.rsplit(".", 1)[-1]), server, loosens, _says(c, b)))
    return b if loosens else c


def _names(
    out: list[Difference], key: str, path: Path, server: str,
    own_b: Sequence[str], own_c: Sequence[str], all_b: Sequence[str], all_c: Sequence[str],
) -> tuple[str, ...]:
    """The variables passed through (`all_*`: as they apply; `own_*`: as written here): only those both allow."""
    added = [n for n in all_c if n not in all_b and n in own_c]
    removed = [n for n in own_b if n not in own_c]
    if added:
        out.append(Difference(key, path, server, True, f"passes {_json(added)} through (the base does not)"))
    if removed:
        out.append(Difference(key, path, server, False, f"no longer passes {_json(removed)} through"))
    if not added and not removed and list(own_b) != list(own_c):
        out.append(Difference(key, path, server, False, _says(list(own_c), list(own_b))))
    return tuple(n for n in all_c if n in all_b)


def _inputs(
    out: list[Difference], key: str, path: Path, server: str,
    own_b: Mapping[str, Spec], own_c: Mapping[str, Spec], all_b: Mapping[str, Spec], all_c: Mapping[str, Spec],
) -> dict[str, Spec]:
    """The input specs as they apply: the change's, except a value newly read from the environment."""
    effective: dict[str, Spec] = {}
    for name in sorted(set(all_b) | set(all_c)):
        b, c = all_b.get(name), all_c.get(name)
        loosens = c is not None and c[0] == "env" and c != b
        if b != c and (own_b.get(name) != own_c.get(name)):
            out.append(Difference(f"{key}.{name}", (*path, name), server, loosens, _says(_spec(c), _spec(b))))
        kept = b if loosens else c
        if kept is not None:
            effective[name] = kept
    return effective


def _ignores(
    base: Sequence[IgnoreEntry], change: Sequence[IgnoreEntry], out: list[Difference]
) -> tuple[IgnoreEntry, ...]:
    """The change's entries as far as the base has them: one the base has (its `until:` no later), one that
    narrows one of the base's, or, for an entry that widens the base's, the base's narrower ones."""
    by_target: dict[tuple[str, str], list[IgnoreEntry]] = {}  # entries can only cover one another within one
    for entry in base:
        by_target.setdefault((entry.rule, entry.server), []).append(entry)
    covered: set[int] = set()  # base entries (by position in `base`) that some change entry still covers
    position = {id(entry): index for index, entry in enumerate(base)}
    kept: list[IgnoreEntry] = []
    for index, entry in enumerate(change):
        key, path = f"ignore[{index}]", ("ignore", index)
        near = by_target.get((entry.rule, entry.server), [])
        covered.update(position[id(b)] for b in near if _covers(entry, b))
        same = next((b for b in near if _same(b, entry)), None)
        covering = same or next((b for b in near if _covers(b, entry)), None)
        if covering is None:
            out.append(Difference(key, path, entry.server, True, f"new entry {_entry(entry)}"))
            kept += [dataclasses.replace(b, location=entry.location) for b in near if _covers(entry, b)]
            continue
        until = _earliest(covering.until, entry.until)
        if until != entry.until:
            says = f"{_entry(entry)}, later than the base's until {covering.until}"
            out.append(Difference(key, path, entry.server, True, says))
        elif same is None or same.reason != entry.reason or same.until != entry.until:
            out.append(Difference(key, path, entry.server, False, f"{_entry(entry)} (the base: {_entry(covering)})"))
        kept.append(dataclasses.replace(entry, until=until))
    for index, entry in enumerate(base):
        if index not in covered:
            out.append(Difference("ignore", ("ignore",), entry.server, False, f"entry removed: {_entry(entry)}"))
    return tuple(kept)


def _same(a: IgnoreEntry, b: IgnoreEntry) -> bool:
    return (a.rule, a.server, a.tool) == (b.rule, b.server, b.tool)


def _covers(wide: IgnoreEntry, narrow: IgnoreEntry) -> bool:
    """Whether `wide` accepts every finding `narrow` does (its `until:` aside)."""
    return (wide.rule, wide.server) == (narrow.rule, narrow.server) and wide.tool in (None, narrow.tool)


def _earliest(a: date | None, b: date | None) -> date | None:
    return b if a is None else a if b is None else min(a, b)


def specs_of(data: Mapping[str, Any], server: str | None = None) -> dict[str, Spec]:
    """The `inputs:` of the file (or of `server`'s entry) as written: a literal or a variable to read."""
    section: Any = data
    if server is not None:
        servers = data.get("servers")
        section = servers.get(server) if isinstance(servers, dict) else None
    inputs = section.get("inputs") if isinstance(section, dict) else None
    specs: dict[str, Spec] = {}
    for name, spec in (inputs.items() if isinstance(inputs, dict) else ()):
        specs[str(name)] = ("env", spec["env"]) if isinstance(spec, dict) else ("literal", str(spec))
    return specs


def _resolve(specs: Mapping[str, Spec], environ: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value if kind == "literal" else environ[value]
        for name, (kind, value) in specs.items()
        if kind == "literal" or value in environ
    }


def _unset_vars(sections: Sequence[Mapping[str, Spec]], environ: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for specs in sections:
        for name, (kind, value) in specs.items():
            if kind == "env" and value not in environ:
                found.setdefault(name, value)
    return found


def _client(value: Mapping[str, str] | None) -> dict[str, str] | None:
    return dict(value) if value is not None else None


def _spec(spec: Spec | None) -> Any:
    if spec is None:
        return None
    return {"env": spec[1]} if spec[0] == "env" else spec[1]


def _entry(entry: IgnoreEntry) -> str:
    fields = {"rule": entry.rule, "server": entry.server}
    if entry.tool is not None:
        fields["tool"] = entry.tool
    fields["reason"] = entry.reason
    if entry.until is not None:
        fields["until"] = entry.until.isoformat()
    return _json(fields)


def _says(change: Any, base: Any) -> str:
    now = "(not set)" if change is None else _json(change)
    was = "not set" if base is None else _json(base)
    return f"{now} (the base: {was})"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _finding(difference: Difference, line: int, label: str) -> Finding:
    if difference.loosens:
        message = (
            f"{POLICY_FILE}: {difference.key}: {difference.says}: the change loosens the policy that judges it; "
            f"the base's ({label}) applies until it is merged"
        )
        rule = POLICY_LOOSENED
    else:
        message = f"{POLICY_FILE}: {difference.key}: {difference.says}: applies to this run"
        rule = POLICY_CHANGED
    return Finding(rule, difference.server, message, SourceLocation(POLICY_FILE, line))


def key_lines(text: str | None) -> Callable[[Path], int]:
    """The 1-based line of the deepest node of a key path in a YAML text (1 when there is none)."""
    if not text:
        return lambda _path: 1
    import yaml

    try:
        root = yaml.compose(text)
    except (yaml.YAMLError, RecursionError):
        return lambda _path: 1

    def line(path: Path) -> int:
        node, found = root, 1
        for step in path:
            child = None
            if isinstance(node, yaml.MappingNode):
                child = next((v for k, v in node.value if getattr(k, "value", None) == str(step)), None)
                key = next((k for k, _ in node.value if getattr(k, "value", None) == str(step)), None)
                if key is not None:
                    found = key.start_mark.line + 1
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
                child = node.value[step]
                found = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return found

    return line
