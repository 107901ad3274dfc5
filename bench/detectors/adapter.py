"""The one place the benchmark touches the detector engine: findings for a newly added definition.

`mcp-lock check` runs, on a definition that is new since the pin, the text detectors and the
destructive-tool check (`suspicious_findings`) and the cross-server name check
(`cross_server_findings`). This module reproduces that situation: an already pinned server gains one
definition, next to a neighbour server that owns commonly targeted tool names. A refactor of the
engine should only need this file changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scanner.detectors import register_all
from scanner.diff.suspicious import cross_server_findings, first_pinned, suspicious_findings
from scanner.lock.lockfile import ServerPin, rebuild
from scanner.lock.pin import pin_server
from scanner.model.findings import Finding
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS
from scanner.model.rule_base import Category
from scanner.model.rules import REGISTRY
from scanner.snapshot import Snapshot

CANDIDATE, NEIGHBOUR = "candidate", "neighbour"

# Tools that a second declared server typically owns (filesystem, mail, chat, code hosting, shell):
# the names attacks on other tools refer to. A definition that names one is what D021 reports.
NEIGHBOUR_TOOLS: tuple[str, ...] = (
    "read_file", "write_file", "edit_file", "list_directory", "read_text_file", "send_email", "read_email",
    "search_emails", "send_message", "slack_post_message", "get_file_contents", "create_or_update_file",
    "push_files", "create_issue", "create_pull_request", "execute_command", "run_command", "transfer_funds",
    "query_database", "execute_sql", "send_mail", "list_messages", "get_messages",
)

def category(rule_id: str) -> str:
    """The category a rule is registered with, which is the one its SARIF descriptor is tagged with."""
    register_all()
    return str(REGISTRY[rule_id].category)


def is_poisoning(rule_id: str) -> bool:
    """Whether a finding of this rule claims a definition is poisoned (not a capability or validity note)."""
    return category(rule_id) == Category.POISONING


_RULE_ID = re.compile(r"\[(MCPL-[A-Z]\d+)\]$")


@dataclass(frozen=True)
class Detection:
    rule_id: str
    severity: str
    where: str  # the finding's message: names the definition and the JSON pointer of the text
    evidence: str
    evidence_kind: str | None = None  # payload or wording (a detector's hit)
    blocking: bool = True  # whether it fails the run (wording only on first-pinned text does not)

    @property
    def blocks(self) -> bool:
        """Whether it is a poisoning finding that fails the run as graded (`detector_blocks`: what `check` fails on
        and `update` refuses; wording only on unchanged text, and anything below high there, does not)."""
        return self.blocking and is_poisoning(self.rule_id)


def server_pin(
    definitions: Mapping[str, Sequence[dict[str, Any]]], instructions: str | None = None, package: str | None = None
) -> ServerPin:
    """A pin of a server listing `definitions` ({kind: [definition, ...]}), launched from `package` if given (its
    vendor is what MCPL-D022 knows a sibling package by)."""
    snapshot = Snapshot(
        artifact={"type": "npm", "name": package} if package else None,
        protocol_version="2025-06-18",
        server_info={"name": "bench", "version": "0"},
        capabilities={kind: {} for kind in ("tools", "prompts", "resources")},
        instructions=instructions,
        definitions={kind: list(definitions.get(kind, ())) for kind in KIND_KEYS},
    )
    pin, _problems = pin_server([], {"transport": "stdio", "command": "bench"}, snapshot)
    return pin


_NEIGHBOUR = server_pin({"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in NEIGHBOUR_TOOLS]})


def detections_for_new(kind: str, definition: dict[str, Any], neighbour: bool = True) -> list[Detection]:
    """Every finding `check` gives when `definition` (of `kind`) appears in an already pinned, empty server."""
    return detections(server_pin({}), server_pin({kind: [definition]}), neighbour)


def without(server: ServerPin, kind: str, key: str) -> ServerPin:
    """`server` as pinned before its definition `key` of `kind` was added."""
    pins = {name: pin for name, pin in server.pins(kind).items() if name != key}
    return rebuild(server, **{KIND_BY_KEY[kind].attribute: pins})


def each_added(
    definitions: Mapping[str, Sequence[dict[str, Any]]], package: str | None = None
) -> Iterator[tuple[str, str, list[Detection], Callable[[], list[Detection]]]]:
    """(kind, key, detections, detections without the neighbour) for each definition of a server, as if it
    alone were new since the pin; the last is computed only when called."""
    full = server_pin(definitions, package=package)
    for kind in KIND_KEYS:
        for key in full.pins(kind):
            before = without(full, kind, key)
            yield kind, key, detections(before, full), lambda before=before: detections(before, full, False)


def detections(before: ServerPin, after: ServerPin, neighbour: bool = True) -> list[Detection]:
    """The detector findings of `check` on a server pinned as `before` and now listing `after`, declared next to
    the neighbour server or alone."""
    findings = suspicious_findings(CANDIDATE, before, after)
    others = {NEIGHBOUR: _NEIGHBOUR} if neighbour else {}
    findings += cross_server_findings({CANDIDATE: after, **others}, {CANDIDATE: before, **others})
    return _detections(findings)


def first_lock(definitions: Mapping[str, Sequence[dict[str, Any]]], package: str | None = None,
               instructions: str | None = None) -> list[Detection]:
    """Every finding `lock` gives on a server listing `definitions` (and sending `instructions`) that it pins for the
    first time, declared alone, graded as `lock` grades them (wording only: shown at most medium, not blocking)."""
    pin = server_pin(definitions, instructions, package=package)
    findings = suspicious_findings(CANDIDATE, None, pin) + cross_server_findings({CANDIDATE: pin}, {CANDIDATE: None})
    return _detections([first_pinned(finding) for finding in findings])


def _detections(findings: list[Finding]) -> list[Detection]:
    out = []
    for finding in findings:
        match = _RULE_ID.search(finding.message)
        evidence = finding.details[0].removeprefix("evidence: ") if finding.details else ""
        rule_id = match.group(1) if match else finding.rule.id
        out.append(Detection(rule_id, finding.effective_severity, finding.message, evidence, finding.evidence_kind,
                             finding.blocking))
    return out


def bump(definitions: Mapping[str, Sequence[dict[str, Any]]], package: str | None = None,
         instructions: str | None = None) -> list[Detection]:
    """Every finding `check` gives on a dependency bump that brings all of a server's text (pinned before with
    none of its definitions and no instructions, now listing `definitions` and sending `instructions`), declared
    alone, graded as a change."""
    return detections(server_pin({}, package=package), server_pin(definitions, instructions, package=package),
                      neighbour=False)
