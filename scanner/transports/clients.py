"""What mcp-lock presents in `initialize`: the declaring client's own clientInfo, protocol version and capabilities.

A server that serves clean definitions to a scanner and poisoned ones to real clients must not be
able to tell them apart by the handshake. The policy's `client: {name, version}` overrides the name;
the protocol version and capabilities stay the declaring client's (client_handshakes.json, with sources).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HANDSHAKES = Path(__file__).with_name("client_handshakes.json")

# Declaration.client -> the clientInfo that client sends in `initialize` (recent releases).
CLIENT_INFO_BY_CLIENT: dict[str, dict[str, str]] = {
    "claude-code": {"name": "claude-code", "version": "2.0.14"},
    "vscode": {"name": "Visual Studio Code", "version": "1.106.0"},
    "cursor": {"name": "cursor-vscode", "version": "1.0.0"},
    "windsurf": {"name": "windsurf-client", "version": "1.12.0"},
    "gemini": {"name": "gemini-cli-mcp-client", "version": "0.10.0"},
    "codex": {"name": "codex-mcp-client", "version": "0.46.0"},
    "copilot-cli": {"name": "github-copilot-cli", "version": "0.0.340"},
    "zed": {"name": "Zed", "version": "0.208.0"},
    "continue": {"name": "continue-client", "version": "1.0.0"},
}
DEFAULT_CLIENT = "claude-code"  # for formats whose client is not in the table (and for tools that need one)
# The second listing's clientInfo (scanner.run.faces): what a checker looks like, the MCP Inspector's own
# (modelcontextprotocol/inspector names its client "mcp-inspector" with its package version). The first listing
# shows an agent (the declaring client), so a server that tells checkers from agents shows each its face.
CHECKER_INFO: dict[str, str] = {"name": "mcp-inspector", "version": "0.17.2"}


def client_info(client: str | None, override: Mapping[str, str] | None = None) -> dict[str, str]:
    """The clientInfo to send for a server declared by `client`; the policy's `override` wins."""
    if override is not None:
        return {"name": str(override["name"]), "version": str(override["version"])}
    return dict(CLIENT_INFO_BY_CLIENT.get(client or DEFAULT_CLIENT, CLIENT_INFO_BY_CLIENT[DEFAULT_CLIENT]))


def second_face(shown: Mapping[str, str]) -> dict[str, str]:
    """The clientInfo of the second listing: the checker's, or (if the first already shows one) an agent's."""
    if shown.get("name") != CHECKER_INFO["name"]:
        return dict(CHECKER_INFO)
    return client_info(DEFAULT_CLIENT)


@functools.cache
def _handshakes() -> dict[str, Any]:
    return dict(json.loads(HANDSHAKES.read_text(encoding="utf-8")))


def client_hello(client: str | None) -> tuple[str, dict[str, Any]]:
    """The protocol version and client capabilities the declaring `client` sends in `initialize`."""
    table = _handshakes()
    entry = table.get(client or DEFAULT_CLIENT) or table[DEFAULT_CLIENT]
    return str(entry["protocolVersion"]), json.loads(json.dumps(entry["capabilities"]))
