"""`check --fresh --boot`: boot the tree each moving launch would install today and diff its definitions
against the lock.

Today's tree is unreviewed code: it is booted as a changed launch is (scanner.run.withhold), with every value
from outside the repository left out of its launch (`bare_server`), none of the policy's pass-through
variables, and in the sandbox whatever the policy's `sandbox:` says. It is installed from the record the
fresh resolution made (scanner.install.install.install_tree, in the sandbox), so what boots is exactly what
was listed and screened. Its definitions are compared with the pin and run through the detectors as `check`
compares a live server; a boot that fails without the secrets blocks unless the base policy says
`withheld-boot-failure: note`, as for any withheld launch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scanner.diff.compare import compare_server
from scanner.diff.schema_validity import schema_findings
from scanner.diff.suspicious import suspicious_findings
from scanner.lock.lockfile import Lockfile, ServerPin
from scanner.model.findings import Finding
from scanner.run.pinning import boot_and_pin
from scanner.run.withhold import fresh_plan, settle
from scanner.run.workspace import Options, Workspace
from scanner.sources.declarations import Server


@dataclass
class Booted:
    findings: list[Finding] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def boot_today(
    workspace: Workspace,
    servers: Sequence[Server],
    trees: Mapping[str, dict[str, Any]],
    lockfile: Lockfile,
    options: Options,
) -> Booted:
    """Boot each of `servers` from its tree in `trees` (today's resolution), without secrets, in the sandbox;
    the differences of its definitions from its pin, graded, and the detectors' findings on them."""
    plan = fresh_plan(workspace, servers)
    keys = frozenset(s.key for s in servers)
    terms = dataclasses.replace(options, bare=keys, confined=keys, pinned_trees=dict(trees), base_trees={})

    def against_pin(key: str, live: ServerPin) -> list[Finding]:
        pinned = lockfile.servers[key]
        return (
            compare_server(key, pinned, live, grouped=True)
            + suspicious_findings(key, pinned, live)
            + schema_findings(key, pinned, live)
        )

    live, found = boot_and_pin(workspace, plan.servers, terms, against_pin, lockfile.servers)
    findings = settle(plan, found, block=workspace.policy.withheld_boot_failure == "block")
    messages = [
        f"--fresh --boot: booted today's tree of {', '.join(sorted(live)) or 'no server'} in the sandbox, "
        "without secrets; what it lists was compared with the lock"
    ]
    return Booted(findings, messages)
