"""What `lock` and `update` recorded of the registry's facts (scanner.run.registry_facts), without importing it."""

from __future__ import annotations

from dataclasses import dataclass, field

from scanner.model.findings import Finding


@dataclass
class Recorded:
    """What recording found: findings about the new versions, and messages for the run to print."""

    findings: list[Finding] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
