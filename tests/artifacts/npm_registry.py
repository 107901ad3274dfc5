"""A minimal npm registry on 127.0.0.1: one packument per package (`GET /<name>`) and its tarballs, in the
registry's published format (name, dist-tags, versions with dist.tarball/shasum/integrity, `time` with each
version's publish time). A version document can carry more (`scripts`, `hasInstallScript`, `mcpName`), and a
test can make a packument hostile (its bytes given verbatim)."""

from __future__ import annotations

import base64
import datetime
import hashlib
import io
import json
import tarfile
import time
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import loopback_http

# A stdio MCP server without dependencies: newline-delimited JSON-RPC, one tool. `{marker}` is the code
# change between releases; the tool surface stays the same, unless a prelude sets `globalThis.TOOL_DESCRIPTION`
# (from a dependency it requires, say).
SERVER_JS = """#!/usr/bin/env node
// {marker}
{prelude}
const readline = require("readline");
const tool = {{name: "echo", description: globalThis.TOOL_DESCRIPTION || "Echo the text back.",
  inputSchema: {{type: "object", properties: {{text: {{type: "string"}}}}, required: ["text"]}}}};
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({{input: process.stdin}}).on("line", (line) => {{
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === "initialize") {{
    send({{jsonrpc: "2.0", id: request.id, result: {{protocolVersion: request.params.protocolVersion,
      capabilities: {{tools: {{}}}}, serverInfo: {{name: "demo", version: "{reported}"}}}}}});
  }} else if (request.method === "tools/list") {{
    send({{jsonrpc: "2.0", id: request.id, result: {{tools: [tool]}}}});
  }} else {{
    send({{jsonrpc: "2.0", id: request.id, error: {{code: -32601, message: "Method not found"}}}});
  }}
}});
"""


def tarball(
    name: str,
    version: str,
    marker: str,
    reported: str = "0.0.1",
    dependencies: dict[str, str] | None = None,
    prelude: str = "",
    scripts: dict[str, str] | None = None,
) -> bytes:
    """An npm package tarball (`package/…`) whose bin is the demo server; `reported` is its serverInfo.version,
    `prelude` code the server runs first."""
    manifest: dict[str, Any] = {"name": name, "version": version, "bin": {name.rsplit("/", 1)[-1]: "server.js"}}
    if dependencies:
        manifest["dependencies"] = dependencies
    if scripts:
        manifest["scripts"] = scripts
    files = {
        "package/package.json": json.dumps(manifest).encode(),
        "package/server.js": SERVER_JS.replace("{prelude}", prelude.replace("{", "{{").replace("}", "}}"))
        .format(marker=marker, reported=reported)
        .encode(),
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode, info.mtime = len(data), 0o755, 0
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@dataclass
class Registry:
    url: str = ""
    packages: dict[str, dict[str, bytes]] = field(default_factory=dict)  # name -> version -> tarball
    latest: dict[str, str] = field(default_factory=dict)
    published: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> version -> ISO 8601 time
    manifest: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # more of a version document
    raw: dict[str, bytes] = field(default_factory=dict)  # name -> the packument's bytes, verbatim
    served: list[str] = field(default_factory=list)  # every path answered, in order
    delay: float = 0.0  # seconds before each tarball is sent
    # (name, version) -> the body of `/-/npm/v1/attestations/<name>@<version>`, verbatim; the version's
    # `dist.attestations` then points there and names SLSA provenance
    attestations: dict[tuple[str, str], bytes] = field(default_factory=dict)

    def publish(
        self,
        name: str,
        version: str,
        marker: str,
        reported: str = "0.0.1",
        days_ago: float = 0.0,
        dependencies: dict[str, str] | None = None,
        prelude: str = "",
        **manifest: Any,
    ) -> str:
        """Publish a release `days_ago` (again, for a re-publish under the same version) and make it `latest`;
        returns its integrity. `manifest` adds to its version document (e.g. `scripts={"postinstall": "node
        x.js"}`, `mcpName="io.github.x/y"`); `dependencies` and `scripts` go into the tarball's package.json too,
        and `prelude` is code the server runs first."""
        data = tarball(name, version, marker, reported, dependencies, prelude, manifest.get("scripts"))
        if dependencies:
            manifest = {**manifest, "dependencies": dependencies}
        self.packages.setdefault(name, {})[version] = data
        self.latest[name] = version
        moment = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days_ago)
        self.published.setdefault(name, {})[version] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.manifest[name, version] = manifest
        return integrity(data)

    def packument(self, name: str) -> dict[str, Any]:
        base = name.rsplit("/", 1)[-1]
        versions = {
            version: {
                "name": name,
                "version": version,
                "bin": {base: "server.js"},
                "dist": {
                    "tarball": f"{self.url}{name}/-/{base}-{version}.tgz",
                    "shasum": hashlib.sha1(data).hexdigest(),
                    "integrity": integrity(data),
                },
                **self.manifest.get((name, version), {}),
            }
            for version, data in self.packages[name].items()
        }
        for version, entry in versions.items():
            if (name, version) in self.attestations:
                entry["dist"]["attestations"] = {"url": f"{self.url}-/npm/v1/attestations/{name}@{version}",
                                                 "provenance": {"predicateType": "https://slsa.dev/provenance/v1"}}
        times = dict(self.published.get(name, {}))
        return {"name": name, "dist-tags": {"latest": self.latest[name]}, "versions": versions, "time": times}


def serve(registry: Registry) -> ThreadingHTTPServer:
    class Handler(loopback_http.Handler):
        def do_GET(self) -> None:
            path = unquote(self.path.split("?", 1)[0]).lstrip("/")
            registry.served.append(path)
            if path.startswith("-/npm/v1/attestations/"):
                name, _, version = path[len("-/npm/v1/attestations/") :].rpartition("@")
                body = registry.attestations.get((name, version))
                kind = "application/json"
            elif "/-/" in path:
                time.sleep(registry.delay)
                name, _, file = path.partition("/-/")
                version = file[len(name.rsplit("/", 1)[-1]) + 1 : -len(".tgz")]
                body = registry.packages.get(name, {}).get(version)
                kind = "application/octet-stream"
            else:
                body = registry.raw.get(path) or (
                    json.dumps(registry.packument(path)).encode() if path in registry.packages else None
                )
                kind = "application/json"
            if body is None:
                self.send_error(404)
                return
            self.answer(200, kind, body, ("Cache-Control", "no-cache"))

    server, address = loopback_http.start(Handler)
    registry.url = f"{address}/"
    return server
