"""Every rule mcp-lock reports, defined once: id, severity, summary and help feed every reporter and the docs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scanner.model.kinds import KIND_BY_KEY, KINDS

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
HELP_BASE = "https://github.com/mcp-lock/mcp-lock/blob/main/docs/rules.md#"


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str
    help: str
    # A blocking finding fails `check`: the lock no longer describes what the servers say.
    blocking: bool = True

    @property
    def help_uri(self) -> str:
        return HELP_BASE + self.id


def severity_rank(severity: Severity) -> int:
    """0 for critical, growing as severity falls; for sorting and thresholds."""
    return SEVERITIES.index(severity)




def _definition_rules() -> list[Rule]:
    rules: list[Rule] = []
    for word, label in ((kind.word, kind.noun) for kind in KINDS):
        rules += [
            Rule(
                f"{word}-added",
                "high",
                f"A {label} was added that is not in the lock",
                f"The server now offers a {label} that nobody reviewed. Read its definition in the "
                f"lockfile diff after `mcp-lock update`, then commit the re-pin.",
            ),
            Rule(
                f"{word}-removed",
                "medium",
                f"A pinned {label} is no longer offered",
                f"The server stopped offering a pinned {label}. Re-pin with `mcp-lock update` once the "
                f"removal is expected. A rename (same schema, near-identical description) is reported as one "
                f"`{word}-changed` finding instead.",
            ),
            Rule(
                f"{word}-changed",
                "high",
                f"A pinned {label}'s definition changed",
                f"The text or schema the model receives for this {label} differs from the pinned one. "
                f"Read the before/after, then re-pin with `mcp-lock update` if the change is expected.",
            ),
        ]
    return rules


RULES: tuple[Rule, ...] = (
    Rule(
        "boot-failed",
        "high",
        "A declared server could not be booted",
        "mcp-lock could not start the server or list its definitions, so nothing about it can be "
        "verified. Fix the cause shown, or skip the server with a reason in mcp-lock.yaml.",
    ),
    Rule(
        "config-error",
        "high",
        "A config file or server declaration cannot be used",
        "The file does not parse, or the declaration is missing a field, uses an unknown transport "
        "or names a variable or input that is not set. The message says what to supply.",
    ),
    Rule(
        "server-not-pinned",
        "high",
        "A declared server is not in the lock",
        "Run `mcp-lock lock` to pin the new server and commit mcp-lock.json.",
    ),
    Rule(
        "server-not-declared",
        "medium",
        "A pinned server is no longer declared",
        "The lock pins a server that no config file declares. Run `mcp-lock update` to drop it.",
    ),
    Rule(
        "launch-changed",
        "high",
        "A server's launch command changed since it was pinned",
        "The command, arguments, URL or environment names differ from the pin (a version bump, for "
        "example). Run `mcp-lock update SERVER` to boot the new launch and review what it offers.",
    ),
    Rule(
        "instructions-changed",
        "high",
        "The server's instructions to the model changed",
        "Server instructions are sent to the model with every session. Review the new text, then "
        "re-pin with `mcp-lock update`.",
    ),
    Rule(
        "definition-invalid",
        "high",
        "The server listed definitions that cannot be pinned unambiguously",
        "The server listed two definitions under one name, or one without a name. Clients disagree "
        "on which one wins, so the pin would not say what the model sees.",
    ),
    # Not drift: the definition is pinned exactly as sent, so the lock still describes the server.
    Rule(
        "schema-invalid",
        "medium",
        "A tool's inputSchema or outputSchema is not a valid JSON Schema",
        "Checked against the draft the schema's `$schema` names, else 2020-12; references are never "
        "fetched. A client may reject or drop the tool, or let the model call it with arguments nobody "
        "validated. The tool is pinned as sent, so this does not fail `check`; reported by `lock` for "
        "every pinned tool and by `check` only for schemas new or changed since the pin. Tell the "
        "server's maintainers.",
        blocking=False,
    ),
    Rule(
        "suspicious-text",
        "high",
        "Text the model will read looks like an instruction aimed at it",
        "A detector from the versioned catalogue (scanner/detectors/catalogue.yaml) matched text that is "
        "new in this server's definitions: invisible or look-alike characters, instructions hidden from the "
        "user, exfiltration, secret-file reads, instruction overrides or tool shadowing. The finding quotes "
        "the evidence with invisible characters made visible. Its severity is the detector's own.",
    ),
    *_definition_rules(),
    Rule(
        "server-info-changed",
        "low",
        "The server reports a different name, version, protocol or capabilities",
        "Informational: the definitions the model sees are unchanged. `mcp-lock update` records the "
        "new values.",
        blocking=False,
    ),
    Rule(
        "server-note",
        "info",
        "The server did something a strict client may not tolerate",
        "Informational: mcp-lock noticed an oddity while listing, such as lines on stdout that are not "
        "JSON-RPC (a banner or log output). mcp-lock ignores them; a client that does not may fail to "
        "connect. Nothing is pinned from them.",
        blocking=False,
    ),
    Rule(
        "server-skipped",
        "info",
        "A server was skipped by the repo policy",
        "mcp-lock.yaml says to skip this server; it is neither booted nor verified.",
        blocking=False,
    ),
    # `check --base REF`: notes for the reviewer on what the pull request changed; they never fail a run.
    Rule(
        "changed-since-base",
        "info",
        "A server was declared, or its launch changed, since the base",
        "Reported by `check --base REF` against the merge base of REF and HEAD, at the server's "
        "declaration. `--changed-only` boots only servers with a note like this one.",
        blocking=False,
    ),
    Rule(
        "dependency-changed",
        "info",
        "A package manifest a server runs from changed since the base",
        "A package.json, lockfile, pyproject.toml, requirements*.txt or similar changed in the directory "
        "the server runs from (its cwd, the repository by default) or in a directory holding its script: "
        "a dependency bump can change what the server offers even though its launch did not.",
        blocking=False,
    ),
    Rule(
        "repin-accepted",
        "info",
        "The change re-pinned a server; this is what was accepted",
        "Reported by `check --base REF` for each difference between mcp-lock.json at the merge base and "
        "now, quoting added text, so the reviewer sees what the re-pin accepted. The grade in brackets "
        "is what the change would have been while unpinned.",
        blocking=False,
    ),
    Rule(
        "newly-pinned",
        "info",
        "The change pinned a new server",
        "Reported by `check --base REF` for a server in mcp-lock.json that the merge base did not pin, "
        "listing what was pinned.",
        blocking=False,
    ),
    Rule(
        "base-lock-invalid",
        "medium",
        "The lockfile at the base cannot be read",
        "mcp-lock.json at the merge base does not parse or verify, so the re-pins made since cannot be "
        "shown. Review the lockfile diff by hand.",
        blocking=False,
    ),
    Rule(
        "config-warning",
        "info",
        "A config file has something a client may reject",
        "For example comments or trailing commas in a file that a strict-JSON client reads, or a "
        "deprecated location. The server is still discovered.",
        blocking=False,
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    return RULES_BY_ID[rule_id]


def definition_rule(kind: str, change: str) -> Rule:
    """The rule for a definition of `kind` (a lock key such as "tools") being added/removed/changed."""
    return RULES_BY_ID[f"{KIND_BY_KEY[kind].word}-{change}"]


def kind_label(kind: str) -> str:
    return KIND_BY_KEY[kind].noun
