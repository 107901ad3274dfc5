"""The policy that judges a change under `check --base`: mcp-lock.yaml at the merge base, plus what the
change tightens.

The change under review never sets the terms of its own review. Each key of the change's mcp-lock.yaml
is compared with the base's, as it applies to each server (a server's own setting, else the file's,
else the default). Where the change's value loosens the base's, the base's stays and the difference is a
blocking `policy-loosened` finding; every other difference applies at once and is a `policy-changed` note.
After the merge, the change's file is the committed policy and judges every later run.

Loosening: a new or widened `ignore:` entry (a later or no `until:`, a digest the base's entry does not
list) or `skip:`, `sandbox: off`,
`network: allow`, a new `env:` name, an `inputs:` entry newly read from the environment, a longer
`timeout`, a laxer `unpinned-launch` (error, warn, off), a larger `tmpfs-mib`, `memory-mib`,
`tmpfs-budget-mib`, `install-timeout`, `store-mib`, `max-definitions` or `max-listing-bytes`, a smaller
`min-release-age`, a new `inert:` glob, `withheld-boot-failure: note`, a new `build-from-source:` name, a new
`script-hosts:` host, and any change of `client:`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scanner.install.runner import DEFAULT_INSTALL_TIMEOUT
from scanner.install.store import DEFAULT_STORE_MIB
from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import POLICY_CHANGED, POLICY_LOOSENED
from scanner.policy.allowlist import tightest
from scanner.policy.builds import judge_builds
from scanner.policy.differences import Difference, Path, as_json, change_and_base
from scanner.policy.ignore_review import judge_ignores
from scanner.policy.script_hosts import judge_script_hosts
from scanner.policy.settings import DEFAULT_TIMEOUT, POLICY_FILE, Policy, ServerPolicy
from scanner.transports.cgroup import DEFAULT_MEMORY_MIB
from scanner.transports.listing import BYTES_KEY, DEFINITIONS_KEY, ListingCaps
from scanner.transports.sandbox import DEFAULT_TMPFS_BUDGET_MIB, DEFAULT_TMPFS_MIB

# Lower is stricter. None (not set) is the default, the first value after it in each comment.
NETWORK_RANK = {"deny": 0, "allow": 1}  # default allow
SANDBOX_RANK = {"on": 0, "off": 1}  # default on
UNPINNED_RANK = {"error": 0, "warn": 1, "off": 2}  # default warn
WITHHELD_RANK = {"block": 0, "note": 1}  # default block
Spec = tuple[str, str]  # an input: ("literal", value) or ("env", VARIABLE)


@dataclass(frozen=True)
class Side:
    """One mcp-lock.yaml: what it says, and the mapping it was read from (inputs as written)."""

    policy: Policy
    data: Mapping[str, Any]


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
    ignores = judge_ignores(base.policy.ignores, change.policy.ignores, out)
    lists, changes = tightest(base.policy.lists, change.policy.lists)
    out += [Difference(key, (key,), POLICY_FILE, loosens, says) for key, loosens, says in changes]
    version_b, version_c = base.data.get("version"), change.data.get("version")
    if version_b != version_c:
        out.append(Difference("version", ("version",), POLICY_FILE, False, change_and_base(version_c, version_b)))
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
        memory_mib=top.memory_mib,
        tmpfs_budget_mib=top.tmpfs_budget_mib,
        install_timeout=top.install_timeout,
        store_mib=top.store_mib,
        min_release_age=top.min_release_age,
        lists=lists,
        builds=judge_builds(base.policy.builds, change.policy.builds, POLICY_FILE, out),
        script_hosts=judge_script_hosts(base.policy.script_hosts, change.policy.script_hosts, POLICY_FILE, out),
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
        self.memory_mib = _ordered(out, "memory-mib", (), where, b.memory_mib, c.memory_mib, _or(DEFAULT_MEMORY_MIB))
        self.tmpfs_budget_mib = _ordered(
            out, "tmpfs-budget-mib", (), where, b.tmpfs_budget_mib, c.tmpfs_budget_mib, _or(DEFAULT_TMPFS_BUDGET_MIB)
        )
        # A longer install bound or a larger store lets a pull request spend more of the runner.
        self.install_timeout = _ordered(
            out, "install-timeout", (), where, b.install_timeout, c.install_timeout, _or(DEFAULT_INSTALL_TIMEOUT)
        )
        self.store_mib = _ordered(out, "store-mib", (), where, b.store_mib, c.store_mib, _or(DEFAULT_STORE_MIB))
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
            out.append(Difference("inert", ("inert",), where, True, f"adds {as_json(added)} (the base does not)"))
        if [g for g in b.inert if g not in c.inert]:
            out.append(Difference("inert", ("inert",), where, False, change_and_base(list(c.inert), list(b.inert))))
        self.inert = tuple(g for g in c.inert if g in b.inert)
        self.caps = _caps(out, "", (), where, b.caps, c.caps)
        if _client(b.client) != _client(c.client):
            described = change_and_base(_client(c.client), _client(b.client))
            out.append(Difference("client", ("client",), where, True, described))
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
        says = change_and_base(own_c.skip, own_b.skip)
        records.append(Difference(f"{key}.skip", (*path, "skip"), name, own_b.skip is None, says))
    effective_timeout = ordered("timeout", timeout)
    network = ordered("network", lambda v: NETWORK_RANK[v])
    sandbox = ordered("sandbox", lambda v: SANDBOX_RANK[v])
    if _client(own_b.client) != _client(own_c.client) and _client(res_b.client) != _client(res_c.client):
        says = change_and_base(_client(res_c.client), _client(res_b.client))
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
    own_sizes = (own_b.caps, own_b.tmpfs_mib, own_b.memory_mib) != (own_c.caps, own_c.tmpfs_mib, own_c.memory_mib)
    sizes_log = records if own_sizes else []
    caps = _caps(sizes_log, f"{key}.", path, name, res_b.caps, res_c.caps)
    tmpfs_mib = _ordered(sizes_log, f"{key}.tmpfs-mib", path, name, res_b.tmpfs_mib, res_c.tmpfs_mib, _tmpfs_rank)
    memory_rank = _or(DEFAULT_MEMORY_MIB)
    memory_mib = _ordered(sizes_log, f"{key}.memory-mib", path, name, res_b.memory_mib, res_c.memory_mib, memory_rank)
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
        memory_mib=memory_mib,
    )
    return server, specs


def _tmpfs_rank(mib: int | None) -> int:
    return DEFAULT_TMPFS_MIB if mib is None else mib


def _or(default: int) -> Callable[[int | None], int]:
    """The rank of a size: its value, or `default` where the file does not set it."""
    return lambda mib: default if mib is None else mib


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
    out.append(Difference(key, (*path, key.rsplit(".", 1)[-1]), server, loosens, change_and_base(c, b)))
    return b if loosens else c


def _names(
    out: list[Difference], key: str, path: Path, server: str,
    own_b: Sequence[str], own_c: Sequence[str], all_b: Sequence[str], all_c: Sequence[str],
) -> tuple[str, ...]:
    """The variables passed through (`all_*`: as they apply; `own_*`: as written here): only those both allow."""
    added = [n for n in all_c if n not in all_b and n in own_c]
    removed = [n for n in own_b if n not in own_c]
    if added:
        out.append(Difference(key, path, server, True, f"passes {as_json(added)} through (the base does not)"))
    if removed:
        out.append(Difference(key, path, server, False, f"no longer passes {as_json(removed)} through"))
    if not added and not removed and list(own_b) != list(own_c):
        out.append(Difference(key, path, server, False, change_and_base(list(own_c), list(own_b))))
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
            out.append(Difference(f"{key}.{name}", (*path, name), server, loosens, change_and_base(_spec(c), _spec(b))))
        kept = b if loosens else c
        if kept is not None:
            effective[name] = kept
    return effective


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
