"""Write scanner/detectors/well_known_tools.json: the tool names of widely installed MCP servers.

    python bench/detectors/well_known.py [--check]

An attack names the tools it hijacks, and those are the tools of the servers people install everywhere
(filesystem, git, GitHub, Slack, mail, browsers, databases, payments, analytics, maps, messaging, cloud),
declared in the user's own client rather than in the scanned repository. MCPL-D022 reads these names next to
the declared servers' tools. They are the tools of every server this project dumped itself into data/benign
(`dump_benign.py`: each package installed from npm or PyPI at a pinned version and booted for real), with
the package, version, ecosystem and date of each dump. `--check` fails if the vendored file differs from what
this script writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from corpus import DATA

TARGET = Path(__file__).resolve().parents[2] / "scanner" / "detectors" / "well_known_tools.json"


def tools_digest(servers: dict[str, list[str]]) -> str:
    """SHA-256 of the canonical JSON of {package@version: tool names}: what the vendored file's checksum is of."""
    canonical = json.dumps(servers, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _dumps(folder: Path = DATA / "benign") -> list[dict[str, Any]]:
    docs = []
    for path in sorted(folder.glob("*.json")):
        if path.name != "failures.json":
            docs.append(json.loads(path.read_text(encoding="utf-8")))
    return docs


def document() -> dict[str, object]:
    tools: dict[str, list[str]] = {}
    sources: dict[str, dict[str, str]] = {}
    for doc in _dumps():
        names = sorted({d["name"] for d in doc["tools"] if isinstance(d.get("name"), str)})
        if not names:
            continue
        label = f"{doc['package']}@{doc['version']}"
        tools[label] = names
        sources[label] = {"ecosystem": doc["ecosystem"], "dumped": doc["dumped"]}
    return {
        "provenance": {
            "written_by": "bench/detectors/well_known.py",
            "source": "tools/list of each package, installed at the version named and booted by "
                      "bench/detectors/dump_benign.py (definitions in bench/detectors/data/benign)",
            "servers": len(tools),
            "tools": sum(len(names) for names in tools.values()),
            "tools_sha256": tools_digest(tools),
            "dumps": sources,
        },
        "servers": tools,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the vendored file differs")
    text = json.dumps(document(), indent=1, ensure_ascii=False) + "\n"
    if parser.parse_args().check:
        same = TARGET.read_text(encoding="utf-8") == text
        print(f"{TARGET.name} is {'up to date' if same else 'NOT what this script writes'}")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
