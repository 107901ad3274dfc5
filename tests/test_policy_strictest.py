"""Issue 36, item 2: policy follows the reviewed (name, launch) pair.

A server declared under several names gets, key by key, the strictest of its names' `servers:` entries; and a
launch booted without its secrets (`bare_server`) keeps the names its policy is looked up by, so a name
the merge base gave another launch lends it nothing: not its `env:`, `sandbox:`, `skip:`, `network:`, timeout or
memory. (On the old code the bare server lost `Server.bound` and was looked up by every declared name.)
"""

from __future__ import annotations

import pytest
import yaml

from scanner.policy.settings import Policy, ServerPolicy, policy_from
from scanner.run.withhold import bare_server
from scanner.sources.declarations import Declaration, LaunchTemplate, ResolvedLaunch, Server, SourceLocation

# key -> (the base's strict default for every server, the loose setting of `deploy`, what mail must get)
KEYS = {
    "env": ("env: [SHARED]", "env: [DEPLOY_SECRET]", lambda p: "DEPLOY_SECRET" not in p.env),
    "sandbox": ("sandbox: on", "sandbox: 'off'", lambda p: p.sandbox == "on"),
    "skip": ("timeout: 30", "skip: needs the VPN", lambda p: p.skip is None),
    "network": ("network: deny", "network: allow", lambda p: p.network == "deny"),
    "timeout": ("timeout: 5", "timeout: 600", lambda p: p.timeout == 5),
    "memory": ("memory-mib: 512", "memory-mib: 8192", lambda p: p.memory_mib == 512),
    "tmpfs": ("tmpfs-mib: 64", "tmpfs-mib: 2048", lambda p: p.tmpfs_mib == 64),
}


def _policy(text: str) -> Policy:
    return policy_from(yaml.safe_load(text), text, {})


def _declaration(name: str, file: str) -> Declaration:
    template = LaunchTemplate("stdio", command="python3", args=("mail.py",))
    return Declaration(name, "claude-code", SourceLocation(file, 1), template, ResolvedLaunch("stdio", "python3"))


def _mail_also_called_deploy() -> Server:
    """`mail`, which a pull request also declares as `deploy` (a name the base gave another launch)."""
    mail = Server("mail", [_declaration("mail", ".mcp.json"), _declaration("deploy", ".vscode/mcp.json")])
    mail.bound = ("mail",)  # scanner.vcs.base_views.bind_policy: `deploy` was another server's at the base
    return mail


@pytest.mark.parametrize("key", list(KEYS))
def test_a_bare_launch_borrows_no_entry_of_a_name_newly_given(key: str) -> None:
    strict, loose, holds = KEYS[key]
    policy = _policy(f"{strict}\nservers:\n  deploy:\n    {loose}\n")
    bare = bare_server(_mail_also_called_deploy())
    assert bare.policy_names == ("mail",)
    assert holds(policy.for_server(*bare.policy_names)), policy.for_server(*bare.policy_names)


@pytest.mark.parametrize("key", list(KEYS))
def test_the_strictest_entry_of_a_launchs_names_applies(key: str) -> None:
    """Both names are the launch's own (reviewed at the base): neither entry loosens the other, in either
    order."""
    strict, loose, holds = KEYS[key]
    policy = _policy(f"servers:\n  mail:\n    {strict}\n  mailer:\n    {loose}\n")
    assert holds(policy.for_server("mail", "mailer")), policy.for_server("mail", "mailer")
    assert holds(policy.for_server("mailer", "mail")), policy.for_server("mailer", "mail")


def test_one_entry_applies_as_written() -> None:
    """The control: a server with one entry gets exactly it, and one with none the file's defaults."""
    policy = _policy("timeout: 30\nservers:\n  deploy:\n    sandbox: 'off'\n    env: [DEPLOY_SECRET]\n")
    assert policy.for_server("deploy", "mail").sandbox == "off"
    assert policy.for_server("deploy").env == ("DEPLOY_SECRET",)
    assert policy.for_server("mail") == ServerPolicy(timeout=30, network="allow", sandbox="on", caps=policy.caps)
