"""scanner.policy.merge_base: the change's mcp-lock.yaml applies except where it loosens the base's."""

from __future__ import annotations

import pytest
import yaml

from scanner.policy.merge_base import Judgement, Side, judge
from scanner.policy.settings import policy_from

ENV = {"SECRET": "s3cret", "OTHER": "o", "HOME": "/root"}


def side(text: str) -> Side:
    data = yaml.safe_load(text) if text else None
    return Side(policy_from(data, text, ENV), data or {})


def judged(base: str, change: str) -> Judgement:
    return judge(side(base), side(change), ENV)


def loosened(judgement: Judgement) -> dict[str, str]:
    return {d.key: d.says for d in judgement.differences if d.loosens}


def noted(judgement: Judgement) -> dict[str, str]:
    return {d.key: d.says for d in judgement.differences if not d.loosens}


@pytest.mark.parametrize(
    ("base", "change", "key", "quoted"),
    [
        ("network: deny\n", "network: allow\n", "network", '"allow"'),
        ("", "sandbox: off\n", "sandbox", '"off"'),
        ("timeout: 30\n", "timeout: 86400\n", "timeout", "86400"),
        ("", "timeout: 120\n", "timeout", "120"),  # longer than the default
        ("unpinned-launch: error\n", "unpinned-launch: warn\n", "unpinned-launch", '"warn"'),
        ("", "unpinned-launch: off\n", "unpinned-launch", '"off"'),
        ("", "client: {name: claude-code, version: '2.0'}\n", "client", '"claude-code"'),
        ("env: [HOME]\n", "env: [HOME, SECRET]\n", "env", '"SECRET"'),
        ("", "inputs: {key: {env: SECRET}}\n", "inputs.key", '"SECRET"'),
        ("inputs: {key: literal}\n", "inputs: {key: {env: SECRET}}\n", "inputs.key", '"SECRET"'),
        ("", "servers: {a: {skip: later}}\n", "servers.a.skip", '"later"'),
        ("", "tmpfs-mib: 4096\n", "tmpfs-mib", "4096"),
        ("tmpfs-mib: 256\n", "tmpfs-mib: 512\n", "tmpfs-mib", "512"),
        ("", "max-definitions: 100000\n", "max-definitions", "100000"),
        ("", "servers: {a: {max-listing-bytes: 1000000000}}\n", "servers.a.max-listing-bytes", "1000000000"),
        ("", "servers: {a: {tmpfs-mib: 2048}}\n", "servers.a.tmpfs-mib", "2048"),
        ("", "memory-mib: 4096\n", "memory-mib", "4096"),  # more than the default 2048
        ("", "tmpfs-budget-mib: 65536\n", "tmpfs-budget-mib", "65536"),
        ("", "install-timeout: 3600\n", "install-timeout", "3600"),  # longer than the default 600
        ("", "script-hosts: {puppeteer: [dl.example]}\n", "script-hosts.puppeteer", '"dl.example:443"'),
        ("script-hosts: {p: [a.example]}\n", "script-hosts: {p: [a.example, 'B.Example.:8443']}\n", "script-hosts.p",
         '"b.example:8443"'),
        ("store-mib: 1024\n", "store-mib: 65536\n", "store-mib", "65536"),
        ("memory-mib: 512\n", "memory-mib: 1024\n", "memory-mib", "1024"),
        ("", "servers: {a: {memory-mib: 8192}}\n", "servers.a.memory-mib", "8192"),
        ("", "servers: {a: {timeout: 600}}\n", "servers.a.timeout", "600"),
        ("", "servers: {a: {env: [OTHER]}}\n", "servers.a.env", '"OTHER"'),
        ("servers: {a: {inputs: {k: {env: UNSET_A}}}}\n", "servers: {a: {inputs: {k: {env: UNSET_B}}}}\n",
         "servers.a.inputs.k", '"UNSET_B"'),
        ("sandbox: off\nservers: {a: {sandbox: on}}\n", "sandbox: off\n", "servers.a.sandbox", '"off"'),
        ("", "ignore: [{rule: tool-changed, server: a, reason: fine}]\n", "ignore[0]", '"reason": "fine"'),
        (
            "ignore: [{rule: tool-changed, server: a, tool: t, reason: ok}]\n",
            "ignore: [{rule: tool-changed, server: a, reason: ok}]\n",  # widened: every tool
            "ignore[0]",
            "new entry",
        ),
        (
            "ignore: [{rule: tool-changed, server: a, reason: ok, until: 2030-01-01}]\n",
            "ignore: [{rule: tool-changed, server: a, reason: ok, until: 2099-01-01}]\n",
            "ignore[0]",
            "2099-01-01",
        ),
    ],
)
def test_each_loosening_is_named_with_its_new_value_and_does_not_apply(
    base: str, change: str, key: str, quoted: str
) -> None:
    judgement = judged(base, change)
    found = loosened(judgement)
    assert key in found and quoted in found[key], judgement.differences
    assert judgement.policy.for_server("a") == side(base).policy.for_server("a")
    assert judgement.policy.for_server("z") == side(base).policy.for_server("z")
    expected = side(base).policy.ignores
    assert [(e.rule, e.server, e.tool, e.until) for e in judgement.policy.ignores] == [
        (e.rule, e.server, e.tool, e.until) for e in expected
    ]


def test_tightenings_and_neutral_edits_apply_at_once() -> None:
    base = (
        "timeout: 120\nenv: [HOME, OTHER]\ninputs: {key: {env: SECRET}, region: eu}\n"
        "servers: {a: {skip: vpn}, b: {skip: vpn}}\n"
        "ignore:\n  - {rule: tool-changed, server: a, reason: ok}\n  - {rule: tool-changed, server: b, reason: ok}\n"
    )
    change = (
        "timeout: 30\nnetwork: deny\nenv: [HOME]\ninputs: {key: fixed, region: us}\nunpinned-launch: error\n"
        "memory-mib: 512\nservers: {a: {skip: 'needs the VPN'}}\n"
        "ignore:\n  - {rule: tool-changed, server: a, tool: t, reason: narrower, until: 2030-01-01}\n"
    )
    judgement = judged(base, change)
    assert not loosened(judgement)
    policy = judgement.policy
    a, b, z = policy.for_server("a"), policy.for_server("b"), policy.for_server("z")
    assert (z.timeout, z.network, z.env, dict(z.inputs)) == (30.0, "deny", ("HOME",), {"key": "fixed", "region": "us"})
    assert a.skip == "needs the VPN" and b.skip is None and a.timeout == 30.0 and a.network == "deny"
    assert policy.unpinned_launch == "error" and z.memory_mib == 512
    [entry] = policy.ignores
    assert (entry.server, entry.tool, entry.reason, str(entry.until)) == ("a", "t", "narrower", "2030-01-01")
    notes = noted(judgement)
    changed = {"timeout", "network", "env", "inputs.key", "inputs.region", "unpinned-launch", "servers.b.skip",
               "memory-mib"}
    assert changed <= set(notes)
    assert any("entry removed" in says and '"server": "b"' in says for says in notes.values())


def test_a_loosening_beside_a_tightening_keeps_the_stricter_of_each() -> None:
    judgement = judged("timeout: 60\nnetwork: allow\n", "timeout: 600\nnetwork: deny\n")
    assert set(loosened(judgement)) == {"timeout"} and set(noted(judgement)) == {"network"}
    assert (judgement.policy.for_server("a").timeout, judgement.policy.for_server("a").network) == (60.0, "deny")


def test_identical_files_have_no_difference_and_the_same_policy() -> None:
    text = (
        "timeout: 45\nsandbox: on\nenv: [HOME]\ninputs: {key: {env: SECRET}}\n"
        "servers: {a: {network: deny, env: [OTHER]}}\nignore: [{rule: tool-changed, server: a, reason: ok}]\n"
    )
    judgement = judged(text, text)
    assert judgement.differences == []
    for name in ("a", "z"):
        assert judgement.policy.for_server(name) == side(text).policy.for_server(name)
    assert judgement.policy.ignores == side(text).policy.ignores


def test_an_input_whose_variable_is_unset_still_names_it() -> None:
    judgement = judge(side(""), side("inputs: {pat: literal}\n"), {})
    assert judgement.policy.input_vars == {}
    base = "inputs: {pat: {env: UNSET_VAR}}\n"
    judgement = judge(side(base), side(base), {})
    assert judgement.policy.input_vars == {"pat": "UNSET_VAR"} and "pat" not in judgement.policy.inputs


@pytest.mark.parametrize(("change", "definitions", "tmpfs"), [("max-definitions: 50\ntmpfs-mib: 128\n", 50, 128),
                                                           ("max-definitions: 500\ntmpfs-mib: 1024\n", 100, 256)])
def test_sizes_judge_by_the_stricter_of_base_and_change(change: str, definitions: int, tmpfs: int) -> None:
    judgement = judged("max-definitions: 100\ntmpfs-mib: 256\n", change)
    assert judgement.policy.caps.definitions == definitions
    assert judgement.policy.tmpfs_mib == tmpfs
    assert judgement.policy.for_server("any").caps.definitions == definitions


def test_a_script_host_the_change_adds_does_not_apply_and_one_spelled_otherwise_is_no_difference() -> None:
    added = judged("script-hosts: {p: [a.example]}\n", "script-hosts: {p: [a.example, b.example], q: [c.example]}\n")
    assert added.policy.script_hosts == {"p": ("a.example:443",)}
    assert sorted(loosened(added)) == ["script-hosts.p", "script-hosts.q"]
    same = judged("script-hosts: {p: ['localhost:443']}\n", "script-hosts: {p: [127.0.0.1]}\n")
    assert same.differences == [] and same.policy.script_hosts == {"p": ("127.0.0.1:443",)}
    removed = judged("script-hosts: {p: [a.example, b.example]}\n", "script-hosts: {p: [b.example]}\n")
    assert removed.policy.script_hosts == {"p": ("b.example:443",)} and list(noted(removed)) == ["script-hosts.p"]
