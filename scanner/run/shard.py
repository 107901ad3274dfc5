"""`--shard I/N`: which servers one CI matrix job checks, decided the same way in every job."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from scanner.model.findings import Finding

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class ShardError(ValueError):
    pass


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as a matrix value is written
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SPEC.fullmatch(text)
        if not match:
            raise ShardError(f"{text!r}: expected I/N, e.g. 2/4")
        index, count = int(match[1]), int(match[2])
        if not 1 <= index <= count:
            raise ShardError(f"{text!r}: I must be between 1 and N")
        return cls(index, count)

    @property
    def label(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def select(self, keys: Iterable[str]) -> frozenset[str]:
        """This shard's keys: every N-th of the sorted keys, so shards differ in size by at most one.

        Every job sees the same declarations and lock, so every job computes the same split, and
        the shards together cover each key exactly once.
        """
        ordered = sorted(set(keys))
        return frozenset(ordered[self.index - 1 :: self.count])

    def category(self, base: str | None) -> str:
        """The SARIF category of this shard: each shard uploads its own analysis."""
        return f"{base or 'mcp-lock'}-{self.label}"


def in_shard(findings: list[Finding], shard: Shard | None, keys: set[str]) -> list[Finding]:
    """This shard's findings: those about its servers, and those about no server (a config file) in shard 1."""
    if shard is None:
        return findings
    owned = shard.select(keys)
    return [f for f in findings if f.server in owned or (shard.index == 1 and f.server not in keys)]
