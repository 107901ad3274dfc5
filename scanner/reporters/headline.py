"""A finding said in one line that names its specific change, for alert titles and summary rows.

A drift finding's message lists the fields that changed ("tool `search_notes` changed: inputSchema");
its first detail line is its most severe graded change ("inputSchema /properties/owner: new optional
parameter (low)", see `scanner.diff.change.Change.line`). The headline leads with that change.
"""

from __future__ import annotations

import re

from scanner.model.findings import Finding
from scanner.model.kinds import KIND_BY_KEY
from scanner.model.rules import SEVERITIES, Category

_GRADED = re.compile(r"^(?P<where>[^:\n]*?): (?P<what>.+) \((?P<severity>" + "|".join(SEVERITIES) + r")\)$")
_PARAMETER = re.compile(r"^(?:/properties/[^/]+)+$")


def subject_label(finding: Finding) -> str:
    """`tool \\`search_notes\\``, or `server` for a server-level finding."""
    if not finding.subject:
        return "server"
    kind = KIND_BY_KEY.get(finding.kind or "")
    return f"{kind.noun if kind else 'definition'} `{finding.subject}`"


def change_summary(finding: Finding) -> str:
    """What happened, without the server or subject: the most severe graded change, else the message."""
    graded = _graded_change(finding)
    if graded is not None:
        return graded
    text = finding.message.strip() or finding.rule.summary
    for prefix in (f"{finding.server}: ", f"{subject_label(finding)} " if finding.subject else None):
        if prefix and text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix) :]
    return text


def headline(finding: Finding) -> str:
    """One line naming server, subject and the specific change, e.g.
    "notes: tool `search_notes`: new optional parameter `owner` in inputSchema (low)"."""
    summary = change_summary(finding)
    if _graded_change(finding) is None:
        return finding.message.strip() or finding.rule.summary
    subject = f" {subject_label(finding)}" if finding.subject else ""
    more = len([d for d in finding.details if _GRADED.match(d)]) - 1
    extra = f" (+{more} more change{'s' if more > 1 else ''})" if more > 0 else ""
    where = f"{finding.server}:{subject}" if subject else finding.server  # not `notes:: instructions`
    return f"{where}: {summary}{extra}"


def _graded_change(finding: Finding) -> str | None:
    if finding.rule.category != Category.DRIFT or not finding.details:
        return None
    match = _GRADED.match(finding.details[0])
    if match is None or match["severity"] != finding.effective_severity:
        return None
    where, what, severity = match["where"], match["what"], match["severity"]
    field, _, path = where.partition(" ")
    if _PARAMETER.match(path):
        name = ".".join(path.split("/")[2::2])
        return f"{what} `{name}` in {field} ({severity})"
    return f"{where}: {what} ({severity})" if where else f"{what} ({severity})"
