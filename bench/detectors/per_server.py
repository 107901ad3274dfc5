"""Per-server precision: the share of real servers that a first `mcp-lock lock` blocks on a poisoning finding.

A user meets the false-positive rate per server, not per definition: one flagged tool in forty fails the first
`lock` and every `check` after it. Each benign server is pinned for the first time, declared alone (`adapter.
first_lock`), and counts as blocked when a poisoning finding fails the run at blocking severity (high or above;
wording only on first-pinned text is shown, not blocking). Attack definitions are scored the same way, each as a
server of its own: what a poisoned server's first pin shows, beside the recall at `check` on a change.

The servers are split once, by a hash of the package name fixed before any figure was read: half are held out
(`held_out`), never looked at one by one while tuning; the servers the issue named are tuning servers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from adapter import Detection, bump, first_lock
from corpus import BenignServer, Example, wilson

# Named in issue 30 as blocked on day one; tuned on by necessity, so never in the held-out half.
NAMED: frozenset[str] = frozenset({
    "@notionhq/notion-mcp-server", "arxiv-mcp-server", "firecrawl-mcp", "@wonderwhy-er/desktop-commander",
})


# The re-split, announced 2026-12-07 before any of these servers was read one by one: the held-out parts of the
# folders dumped before fresh8 (384 servers with a tool; all eleven servers a first lock blocked among the 734 held out,
# and 19 of the 26 a bump blocked) are tuning from here on, so that what they show can be fixed where it generalises.
# Their earlier figures stay in the README as history; a held-out figure from here on counts only the parts kept
# (fresh8 onward, and every batch after), which no tuning has read.
RETIRED: frozenset[str] = frozenset({"benign", "benign_fresh", *(f"benign_fresh{n}" for n in range(2, 8))})


def held_out(package: str) -> bool:
    """Whether a server is in the held-out half: the first hex digit of its name's SHA-256 is 0-7."""
    return package not in NAMED and hashlib.sha256(package.encode("utf-8")).hexdigest()[0] in "01234567"


def kept_held_out(folder: str, package: str) -> bool:
    """Whether a server is held out now: in the held-out half, and of a folder the re-split kept held out."""
    return folder not in RETIRED and held_out(package)


@dataclass
class ServerTally:
    n: int = 0
    blocked: int = 0
    rules: dict[str, int] = field(default_factory=dict)  # servers blocked per rule
    labels: list[tuple[str, list[Detection]]] = field(default_factory=list)  # (server, blocking detections)

    def add(self, label: str, found: list[Detection]) -> None:
        self.n += 1
        blocking = [d for d in found if d.blocks]
        if blocking:
            self.blocked += 1
            self.labels.append((label, blocking))
            for rule_id in sorted({d.rule_id for d in blocking}):
                self.rules[rule_id] = self.rules.get(rule_id, 0) + 1

    def summary(self) -> dict[str, Any]:
        low, high = wilson(self.blocked, self.n)
        return {"n": self.n, "blocked": self.blocked, "rate": self.blocked / self.n if self.n else 0.0,
                "ci95": [low, high], "per_rule": dict(sorted(self.rules.items()))}


def score_servers(servers: list[BenignServer]) -> tuple[ServerTally, ServerTally]:
    """(tuning half, held-out half): each server's first `lock` (its definitions and instructions), declared alone."""
    tuning, held = ServerTally(), ServerTally()
    for server in servers:
        (held if held_out(server.package) else tuning).add(
            server.label, first_lock(server.definitions, server.package, server.instructions))
    return tuning, held


def score_bumps(servers: list[BenignServer]) -> tuple[ServerTally, ServerTally]:
    """(tuning half, held-out half): a dependency bump that brings all of each server's text (instructions too),
    declared alone
    (`adapter.bump`), graded as `check` grades a change."""
    tuning, held = ServerTally(), ServerTally()
    for server in servers:
        (held if held_out(server.package) else tuning).add(
            server.label, bump(server.definitions, server.package, server.instructions))
    return tuning, held


def blocked_at_first_lock(examples: list[Example]) -> int:
    """How many attack definitions, each a server of its own, a first `lock` blocks."""
    return sum(any(d.blocks for d in first_lock({"tools": [example.definition]})) for example in examples)


def line(name: str, tally: ServerTally) -> str:
    summary = tally.summary()
    low, high = summary["ci95"]
    rules = ", ".join(f"{rule} {count}" for rule, count in summary["per_rule"].items()) or "none"
    return (f"  {name:22s} {tally.blocked:3d}/{tally.n:<4d} {summary['rate']:7.2%}  [{low:6.2%}, {high:6.2%}]   "
            f"by rule: {rules}")
