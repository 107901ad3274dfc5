"""Dump real tool descriptions from locally installed MCP servers as benign.jsonl rows.

Usage:
  python bench/detectors/dump_benign.py "PROVENANCE=COMMAND ARG..." [...] > bench/detectors/benign.jsonl

Speaks raw newline-delimited JSON-RPC over stdio (initialize, notifications/initialized,
tools/list with pagination) rather than the SDK client, because the SDK's strict result
validation rejects some real servers' schemas (e.g. server-filesystem 2025.7.1 omits
``inputSchema.type``) and we want exactly the text the server sends.
Collects every tool description and every nested ``description`` in its input schema.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys


def _rpc(proc, msg_id, method, params):
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}) + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server closed stdout during {method}")
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue  # stray log line on stdout
        if msg.get("id") == msg_id:
            if "error" in msg:
                raise RuntimeError(msg["error"])
            return msg["result"]


def _walk_schema(schema, path, out):
    if isinstance(schema, dict):
        desc = schema.get("description")
        if isinstance(desc, str) and desc.strip():
            out.append((path, desc))
        for key, val in schema.items():
            if key != "description":
                _walk_schema(val, f"{path}.{key}", out)
    elif isinstance(schema, list):
        for i, val in enumerate(schema):
            _walk_schema(val, f"{path}[{i}]", out)


def dump(provenance: str, argv: list[str]) -> list[dict]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _rpc(proc, 1, "initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp-lock-bench", "version": "0"},
        })
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        proc.stdin.flush()
        tools, cursor, n = [], None, 2
        while True:
            result = _rpc(proc, n, "tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(result.get("tools", []))
            cursor, n = result.get("nextCursor"), n + 1
            if not cursor:
                break
    finally:
        proc.kill()
        proc.wait()
    rows = []
    for tool in tools:
        name = tool.get("name", "?")
        if tool.get("description"):
            rows.append({"text": tool["description"], "source": provenance, "where": f"{name}.description"})
        found: list = []
        _walk_schema(tool.get("inputSchema", {}), f"{name}.inputSchema", found)
        rows.extend({"text": d, "source": provenance, "where": p} for p, d in found)
    return rows


def main() -> None:
    seen: set[str] = set()
    for spec in sys.argv[1:]:
        provenance, _, cmd = spec.partition("=")
        rows = dump(provenance, shlex.split(cmd))
        kept = 0
        for row in rows:
            if row["text"] not in seen:  # identical strings (e.g. shared "path" docs) count once
                seen.add(row["text"])
                kept += 1
                print(json.dumps(row, ensure_ascii=False))
        print(f"{provenance}: {len(rows)} texts, {kept} unique", file=sys.stderr)


if __name__ == "__main__":
    main()
