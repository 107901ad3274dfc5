"""What a rule is: its severity scale, its category, and the rule record every finding is filed under."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
HELP_BASE = "https://github.com/mcp-lock/mcp-lock/blob/main/docs/rules.md#"


class Category(StrEnum):
    """What a rule is about; a closed set, so every rule answers the same question."""

    POISONING = "poisoning"  # text aimed at the model rather than the user
    CAPABILITY = "capability"  # what a tool can do
    CORRECTNESS = "correctness"  # what a server sends is malformed or odd
    DRIFT = "drift"  # what the servers say differs from the lock
    CONFIG = "config"  # configuration files and repo policy
    AVAILABILITY = "availability"  # a server could not be checked at all
    REVIEW = "review"  # `check --base`: what a pull request changed, for its reviewer
    RELEASE = "release"  # `semver`: whether a release's version number says what changed
    SUPPLY_CHAIN = "supply-chain"  # the package, image or script behind a launch


@dataclass(frozen=True)
class Rule:
    id: str
    category: Category
    severity: Severity  # the default; a finding may carry its own (graded drift, detector hits)
    summary: str
    help: str
    # A blocking finding fails `check`: the lock no longer describes what the servers say.
    blocking: bool = True
    # For a check: the id of the reported rule its findings are filed under.
    reported_as: str | None = None

    @property
    def anchor(self) -> str:
        """The heading anchor in docs/rules.md (GitHub lower-cases headings)."""
        return self.id.lower()

    @property
    def help_uri(self) -> str:
        return HELP_BASE + self.anchor


def severity_rank(severity: Severity) -> int:
    """0 for critical, growing as severity falls; for sorting and thresholds."""
    return SEVERITIES.index(severity)
