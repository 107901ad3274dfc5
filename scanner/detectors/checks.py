"""The structural checks: each is one module that registers its rule and function here, once.

A server check sees one server (what was pinned, None when unpinned, and what it says now); a
workspace check sees every server at once. Each returns findings filed under its rule's
`reported_as` rule. `scanner.detectors` imports every check module, which is what runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import WORDING, EvidenceKind, Finding, LockLocation, evidence_kind_line
from scanner.model.pointer import pointer
from scanner.model.rule_base import Severity
from scanner.model.rules import SUSPICIOUS_TEXT, Rule, kind_label, register_check

ServerCheck = Callable[[str, ServerPin | None, ServerPin], list[Finding]]
WorkspaceCheck = Callable[[Mapping[str, ServerPin], Mapping[str, ServerPin | None]], list[Finding]]

# True when a workspace check can find nothing in this definition, whatever the other servers list: the part of
# the check that reads one definition alone, whose "nothing here" the verdict cache may keep (`verdict_cache`).
Screen = Callable[[Pin], bool]

SERVER_CHECKS: list[tuple[Rule, ServerCheck]] = []
WORKSPACE_CHECKS: list[tuple[Rule, WorkspaceCheck]] = []
# The workspace checks that have a screen, each with the name of its verdict part: a definition the cache holds
# clean of that part is shown to the check as pinned already (nothing in it is new), the rest are read in full.
SCREENED: dict[WorkspaceCheck, tuple[str, Screen]] = {}


def server_check(rule: Rule) -> Callable[[ServerCheck], ServerCheck]:
    """Register `rule` and the decorated function as a check of one server."""
    register_check(rule)

    def add(check: ServerCheck) -> ServerCheck:
        SERVER_CHECKS.append((rule, check))
        return check

    return add


def workspace_check(rule: Rule, *, screen: Screen | None = None) -> Callable[[WorkspaceCheck], WorkspaceCheck]:
    """Register `rule` and the decorated function as a check across every server (`screen`: see SCREENED)."""
    register_check(rule)

    def add(check: WorkspaceCheck) -> WorkspaceCheck:
        WORKSPACE_CHECKS.append((rule, check))
        if screen is not None:
            SCREENED[check] = (screen_part(rule), screen)
        return check

    return add


def run_server_checks(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    return [finding for _, check in SERVER_CHECKS for finding in check(key, pinned, live)]


def screen_part(rule: Rule) -> str:
    """The verdict part a screened check's "nothing here" is kept under."""
    return f"no-{rule.id}"


def run_workspace_checks(
    live: Mapping[str, ServerPin],
    baseline: Mapping[str, ServerPin | None],
    screened: Mapping[str, Mapping[str, ServerPin | None]] | None = None,
) -> list[Finding]:
    """`screened`, when given: for each SCREENED part, `baseline` plus the definitions known clean of it, which
    that check reads as pinned before (nothing new in them)."""
    return [
        finding
        for _, check in WORKSPACE_CHECKS
        for finding in check(live, screened[SCREENED[check][0]] if screened is not None and check in SCREENED
                             else baseline)
    ]


def definition_finding(
    key: str, kind: str, name: str, message: str, details: list[str], severity: Severity,
    evidence_kind: EvidenceKind | None = None,
) -> Finding:
    """A structural check's finding about `key`'s definition `name` of `kind`, located at its pin in the lock."""
    return Finding(
        SUSPICIOUS_TEXT,
        key,
        message,
        LockLocation(pointer("servers", key, kind, name)),
        subject=name,
        kind=kind,
        details=[*details, evidence_kind_line(evidence_kind)] if evidence_kind else details,
        severity=severity,
        evidence_kind=evidence_kind,
    )


def tool_mention(
    rule: Rule, key: str, kind: str | None, name: str | None, path: str, says: str, whose: str, evidence: str,
    evidence_kind: EvidenceKind = WORDING,
) -> Finding:
    """A finding that new text of `key`'s definition `name` (at `path`) `says` something about a tool (`whose`:
    "a tool of server X", or the candidates when several servers list the name); `kind` None: of its instructions."""
    if kind is None or name is None:  # the server's instructions (`texts.changed_texts`): located at the server
        message = f"{key}: instructions: {says}, {whose} [{rule.id}]"
        details = [f"evidence: {evidence}", evidence_kind_line(evidence_kind)]
        return Finding(SUSPICIOUS_TEXT, key, message, LockLocation(pointer("servers", key)), details=details,
                       severity="high", evidence_kind=evidence_kind)
    message = f"{key}: {kind_label(kind)} `{name}` {path}: {says}, {whose} [{rule.id}]"
    return definition_finding(key, kind, name, message, [f"evidence: {evidence}"], "high", evidence_kind)
