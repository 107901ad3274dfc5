"""uv's universal hashed requirements as the lock records them (`launch.tree`, lockfile-spec/SPEC.md 1.2.2),
and back.

Reading keeps each package once per version, with the sha256 of every file the index published for it and
the environment markers under which the universal resolution installs it. Writing gives the requirements
`uv pip install --require-hashes --no-deps` installs exactly: each pinned line, its markers, its hashes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from scanner.install.packages import MAX_FIELD, MAX_PACKAGES, UV, TreeError, field, normalised, tree_record

# `name==version ; markers \` then one `--hash=sha256:…` per published file (on that line or the next ones).
REQUIREMENT = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)\s*(?:;\s*([^\\]*?))?\s*(?:\\|--|$)"
)
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
# What a marker may hold: names, quoted values, comparisons, parentheses (PEP 508), and nothing that ends a line.
MARKER = re.compile(r"[A-Za-z0-9_.'\" ()<>=!~,*+-]+")


def uv_tree(requirements: str) -> dict[str, Any]:
    """The tree of uv's hashed requirements (`uv pip compile --universal --generate-hashes`): each package once
    per version, with the sha256 of every file the index published for it and its markers."""
    records: dict[tuple[str, str], dict[str, Any]] = {}
    everywhere: set[tuple[str, str]] = set()  # listed once without markers: installed on every platform
    current: dict[str, Any] | None = None
    for line in requirements.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        found = REQUIREMENT.match(stripped)
        if found:
            key = (normalised(field(found[1])), field(found[2]))
            current = records.setdefault(key, {"name": key[0], "version": key[1], "sha256": []})
            markers = _markers(found[3], key[0])
            if not markers:
                everywhere.add(key)
            elif "markers" not in current:
                current["markers"] = markers
            elif markers != current["markers"]:  # two forks of the resolution: either installs it
                current["markers"] = f"({current['markers']}) or ({markers})"
        if current is None:
            raise TreeError(f"uv's requirements have a line this reader does not know: {stripped[:80]!r}")
        current["sha256"] += HASH.findall(stripped)
        if len(records) > MAX_PACKAGES or len(current["sha256"]) > MAX_PACKAGES:
            raise TreeError(f"uv resolved more than {MAX_PACKAGES} packages or files")
    for key, record in records.items():
        if not record["sha256"]:
            raise TreeError(f"uv gave no sha256 for {record['name']}=={record['version']}")
        record["sha256"] = sorted(set(record["sha256"]))
        if key in everywhere:
            record.pop("markers", None)
        elif len(record.get("markers", "")) > MAX_FIELD:
            raise TreeError(f"uv's markers for {record['name']} are longer than {MAX_FIELD} characters")
    return tree_record(UV, list(records.values()))


def _markers(text: str | None, name: str) -> str:
    markers = (text or "").strip()
    if markers and (not MARKER.fullmatch(markers) or len(markers) > MAX_FIELD):
        raise TreeError(f"uv's markers for {name} are not ones this reader knows: {markers[:80]!r}")
    return markers


def requirements_text(tree: Mapping[str, Any]) -> str:
    """The hashed requirements that install exactly `tree` (its markers choose this platform's packages)."""
    lines = []
    for package in tree["packages"]:
        markers = f" ; {package['markers']}" if package.get("markers") else ""
        hashes = "".join(f" \\\n    --hash=sha256:{digest}" for digest in package["sha256"])
        lines.append(f"{package['name']}=={package['version']}{markers}{hashes}\n")
    return "".join(lines)
