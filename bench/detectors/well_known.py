"""Write scanner/detectors/well_known_tools.json: the tool names of widely installed MCP servers.

    python bench/detectors/well_known.py [--check]

An attack names the tools it hijacks, and those are the tools of the servers people install everywhere
(filesystem, git, GitHub, Slack, mail, browsers, databases), declared in the user's own client rather than in
the scanned repository. MCPL-D022 reads these names next to the declared servers' tools. They come from the
real definitions dumped in data/benign for the packages listed below; `--check` fails if the vendored file
differs from what this script writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from corpus import load_benign

TARGET = Path(__file__).resolve().parents[2] / "scanner" / "detectors" / "well_known_tools.json"

# Reference servers and the most installed ones of each kind, as dumped in data/benign.
PACKAGES = (
    "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-github",
    "@modelcontextprotocol/server-gitlab", "@modelcontextprotocol/server-slack",
    "@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-puppeteer",
    "@modelcontextprotocol/server-brave-search", "@modelcontextprotocol/server-google-maps",
    "@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-sequential-thinking",
    "mcp-server-git", "mcp-server-fetch", "mcp-server-time", "@playwright/mcp", "chrome-devtools-mcp",
    "@notionhq/notion-mcp-server", "@sentry/mcp-server", "mcp-atlassian", "@upstash/context7-mcp",
    "mcp-server-kubernetes", "mongodb-mcp-server", "firecrawl-mcp", "tavily-mcp", "exa-mcp-server",
    "workspace-mcp", "@softeria/ms-365-mcp-server", "@shinzolabs/gmail-mcp", "mcp-obsidian", "todoist-mcp",
    "redis-mcp-server", "awslabs.postgres-mcp-server", "mcp-server-commands", "mcp-shell-server",
)


def document() -> dict[str, object]:
    servers = {server.package: server for server in load_benign()}
    missing = [package for package in PACKAGES if package not in servers]
    if missing:
        raise SystemExit(f"not in data/benign: {', '.join(missing)}")
    tools = {
        f"{package}@{servers[package].version}": sorted({d["name"] for d in servers[package].definitions["tools"]})
        for package in PACKAGES
    }
    canonical = json.dumps(tools, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {
        "provenance": {
            "written_by": "bench/detectors/well_known.py",
            "source": "tool names of real servers dumped into bench/detectors/data/benign",
            "tools_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
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
