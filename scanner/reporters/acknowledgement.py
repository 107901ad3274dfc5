"""What an `ignore:` entry in mcp-lock.yaml acknowledges, and the entry that acknowledges a finding.

An acknowledgement binds to content. A finding about a definition is about that definition as it stands
(its digest, the one mcp-lock.json pins it under); any other finding is about what it says (its rule,
message and details, hashed). An entry records the digest of each thing it accepted: new or changed
text under it has another digest and is judged afresh, so a reviewed false positive on one tool cannot
cover a poison added to it, or to another tool, later.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from scanner.lock.canonical import digest
from scanner.model.findings import Finding

# The reason a suggested entry carries: empty, which the policy refuses, so that nobody pastes an entry
# without writing down why the finding is harmless and who reviewed it.
REASON_PROMPT = 'reason: ""                   # required: why it is harmless, who reviewed it, when'


def content_digest(finding: Finding) -> str:
    """What `finding` is about: its definition's digest, else its own text hashed (`sha256:` + hex)."""
    if finding.digest is not None:
        return finding.digest
    return digest({"rule": finding.rule.id, "message": finding.message, "details": list(finding.details)})


def entry_rule(finding: Finding) -> str:
    """The rule an entry names for `finding`: the detector's own id for a detector hit (narrower), else the rule's."""
    return finding.check_tag or finding.rule.id  # what scanner.policy.suppression matches an entry's rule against


def suggested_entries(findings: Iterable[Finding]) -> list[str]:
    """The YAML lines of one `ignore:` entry per distinct (rule, server, definition, digest), to paste."""
    lines: list[str] = []
    seen: set[tuple[str, str, str | None, str]] = set()
    for finding in findings:
        key = (entry_rule(finding), finding.server, finding.subject, content_digest(finding))
        if key in seen:
            continue
        seen.add(key)
        rule, server, subject, accepted = key
        lines.append(f"  - rule: {rule}")
        lines.append(f"    server: {_scalar(server)}")
        if subject is not None:
            lines.append(f"    tool: {_scalar(subject)}")
        lines.append(f"    digest: {accepted}")
        lines.append(f"    {REASON_PROMPT}")
    return lines


def _scalar(value: str) -> str:
    """A YAML scalar that reads back as `value` whatever it holds: JSON's string form is valid YAML."""
    return json.dumps(value, ensure_ascii=False)
