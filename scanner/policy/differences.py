"""One difference between the change's mcp-lock.yaml and the base's, as scanner.policy.merge_base reports it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]  # keys and indices into the file, e.g. ("servers", "mail", "skip")


@dataclass(frozen=True)
class Difference:
    key: str  # as written: sandbox, servers.mail.skip, ignore[0]
    path: Path  # where in the change's file
    server: str  # the server it concerns; the policy file for a setting of every server
    loosens: bool
    says: str  # the change's value, and the base's


def change_and_base(change: Any, base: Any) -> str:
    now = "(not set)" if change is None else as_json(change)
    was = "not set" if base is None else as_json(base)
    return f"{now} (the base: {was})"


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
