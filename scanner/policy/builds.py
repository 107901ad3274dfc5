"""`build-from-source:` — the PyPI packages mcp-lock may build from an sdist (in the sandbox); none by default.

    build-from-source: [some-sdist-only-package]

Building runs the package's build backend, so the list is judged from the base under `check --base`: a name
the base does not list is `policy-loosened` and stays refused until merged; a name removed applies at once.
"""

from __future__ import annotations

import re
from typing import Any

from scanner.policy.differences import Difference, as_json
from scanner.policy.values import PolicyError

KEY = "build-from-source"
NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,198}[A-Za-z0-9])?")
MAX_NAMES = 1000


def build_names(value: Any, where: str) -> tuple[str, ...]:
    """The normalised (PEP 503) package names of `build-from-source:`."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_NAMES or not all(
        isinstance(v, str) and NAME.fullmatch(v) for v in value
    ):
        raise PolicyError(f"{where}: {KEY} must be a list of PyPI package names, e.g. {KEY}: [some-package]")
    return tuple(dict.fromkeys(re.sub(r"[-_.]+", "-", v).lower() for v in value))


def judge_builds(base: tuple[str, ...], change: tuple[str, ...], where: str, out: list[Difference]) -> tuple[str, ...]:
    """The names both allow; a name only the change adds loosens the policy."""
    added = [n for n in change if n not in base]
    if added:
        out.append(Difference(KEY, (KEY,), where, True, f"lets {as_json(added)} build from source (the base does not)"))
    removed = [n for n in base if n not in change]
    if removed:
        out.append(Difference(KEY, (KEY,), where, False, f"no longer lets {as_json(removed)} build from source"))
    return tuple(n for n in change if n in base)
