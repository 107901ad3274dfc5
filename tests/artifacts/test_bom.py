"""`mcp-lock bom`: a CycloneDX 1.6 document of every pinned server, valid against the CycloneDX schema (the
library's own copy, checked by its strict validator), listing every package with its hash and every pinned
definition's digest, from the lock alone."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from fixture_repo import Repo

from scanner.cli.main import main
from scanner.lock.canonical import digest
from scanner.lock.document import render
from scanner.lock.lockfile import Lockfile, Pin, ServerPin, rebuild

REAL_SERVERS = Path(__file__).resolve().parents[3] / "shared" / "reference" / "real-servers-28.txt"
# The 28 servers of ../shared/reference/real-servers-28.txt, copied here so the test does not depend on a file
# outside the repository: ecosystem, server name, package, version.
SERVERS_28 = """
npm filesystem @modelcontextprotocol/server-filesystem 2026.8.31
npm everything @modelcontextprotocol/server-everything 2026.8.31
npm memory @modelcontextprotocol/server-memory 2026.8.31
npm sequential-thinking @modelcontextprotocol/server-sequential-thinking 2026.8.31
npm playwright @playwright/mcp 0.0.83
npm context7 @upstash/context7-mcp 4.1.1
npm notion @notionhq/notion-mcp-server 2.5.2
npm chart @antv/mcp-server-chart 0.9.10
npm chrome-devtools chrome-devtools-mcp 1.11.0
npm desktop-commander @wonderwhy-er/desktop-commander 0.2.52
npm github @modelcontextprotocol/server-github 2025.4.8
npm puppeteer @modelcontextprotocol/server-puppeteer 2025.5.12
npm firecrawl firecrawl-mcp 3.26.0
npm ea-playwright @executeautomation/playwright-mcp-server 1.0.12
npm circleci @circleci/mcp-server-circleci 0.20.0
npm taskmanager @kazuph/mcp-taskmanager 1.1.1
npm mui @mui/mcp 0.1.6
npm git-cyanheads @cyanheads/git-mcp-server 2.15.3
pypi time mcp-server-time 2026.10.19
pypi fetch mcp-server-fetch 2026.10.24
pypi git mcp-server-git 2026.10.19
pypi aws-docs awslabs.aws-documentation-mcp-server 1.2.3
pypi calculator mcp-server-calculator 0.2.1
pypi duckduckgo duckduckgo-mcp-server 0.7.0
pypi arxiv arxiv-mcp-server 0.8.2
pypi wikipedia wikipedia-mcp 2.0.1
pypi excel excel-mcp-server 2.2.2
pypi motherduck mcp-server-motherduck 1.1.0
"""


def servers_28() -> list[tuple[str, str, str, str]]:
    rows = [tuple(line.split()) for line in SERVERS_28.strip().splitlines()]
    if REAL_SERVERS.is_file():  # the reference list, where the checkout has it: the copy above must match it
        reference = [line.split()[:4] for line in REAL_SERVERS.read_text().splitlines() if line[:1] not in "#"]
        assert [list(row) for row in rows] == [row for row in reference if row]
    return rows  # type: ignore[return-value]


def tarball_bytes(name: str, version: str) -> bytes:
    return f"{name}@{version}".encode()  # stands for the published file: only its hash is recorded


def pin_of(ecosystem: str, name: str, package: str, version: str) -> ServerPin:
    data = tarball_bytes(package, version)
    if ecosystem == "npm":
        launch = {"transport": "stdio", "command": "npx", "args": ["-y", f"{package}@{version}"], "env": {}}
        artifact = {"type": "npm", "name": package, "version": version,
                    "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
    else:
        launch = {"transport": "stdio", "command": "uvx", "args": [f"{package}=={version}"], "env": {}}
        artifact = {"type": "pypi", "name": package, "version": version, "sha256": hashlib.sha256(data).hexdigest(),
                    "file": f"{package}-{version}-py3-none-any.whl"}
    tools = {
        f"{name}_{n}": {"name": f"{name}_{n}", "description": f"Tool {n} of {name}.", "inputSchema": {"type": "object"}}
        for n in range(3)
    }
    pin = ServerPin(
        declarations=[{"file": ".mcp.json", "client": "claude-code", "name": name}],
        launch=launch,
        protocol_version="2025-06-18",
        server_info={"name": name, "version": version},
        capabilities={"tools": {}},
        instructions=None,
        tools={key: Pin(value, digest(value)) for key, value in tools.items()},
        artifact=artifact,
    )
    return rebuild(pin)


def run_bom(repo: Repo, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["bom", "--repo", str(repo.root), *args], env=env, catch_exceptions=False)


def bom_of(repo: Repo, *args: str, env: dict[str, str] | None = None) -> tuple[str, dict[str, Any]]:
    result = run_bom(repo, *args, env=env)
    assert result.exit_code == 0, result.output
    return result.output, json.loads(result.output)


def assert_valid(text: str) -> None:
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    assert error is None, error


def test_the_28_server_set_validates_and_lists_every_package_and_tool_digest(repo: Repo) -> None:
    rows = servers_28()
    lock = Lockfile(version=2, servers={name: pin_of(*row) for row in rows for name in [row[1]]})
    repo.lock_path.write_text(render(lock), encoding="utf-8")
    text, document = bom_of(repo)
    assert_valid(text)
    assert document["specVersion"] == "1.6" and document["bomFormat"] == "CycloneDX"
    servers = {c["name"]: c for c in document["components"]}
    assert set(servers) == {row[1] for row in rows}
    for ecosystem, name, package, version in rows:
        server = servers[name]
        properties = {p["name"]: p["value"] for p in server["properties"]}
        for tool, pin in lock.servers[name].tools.items():
            assert properties[f"mcp-lock:tool:{tool}"] == pin.digest
        assert properties["mcp-lock:surface-digest"] == lock.servers[name].digest
        (part,) = server["components"]
        assert (part["name"], part["version"]) == (package, version)
        data = tarball_bytes(package, version)
        if ecosystem == "npm":
            scope, _, bare = package.rpartition("/")
            expected_purl = f"pkg:npm/{scope.replace('@', '%40') + '/' if scope else ''}{bare}@{version}"
            assert part["hashes"] == [{"alg": "SHA-512", "content": hashlib.sha512(data).hexdigest()}]
        else:
            expected_purl = f"pkg:pypi/{package}@{version}"
            assert part["hashes"] == [{"alg": "SHA-256", "content": hashlib.sha256(data).hexdigest()}]
        assert part["purl"] == expected_purl
        depends = {d["ref"]: d.get("dependsOn", []) for d in document["dependencies"]}
        assert depends[server["bom-ref"]] == [part["bom-ref"]]


def test_a_booted_server_s_definitions_and_the_same_document_every_time(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    pinned = repo.lock_json()["servers"]["notes"]
    epoch = {"SOURCE_DATE_EPOCH": "1767225600"}
    text, document = bom_of(repo, env=epoch)
    assert_valid(text)
    assert document["metadata"]["timestamp"].startswith("2026-01-01T00:00:00")
    (server,) = document["components"]
    properties = {p["name"]: p["value"] for p in server["properties"]}
    for kind, word in (("tools", "tool"), ("prompts", "prompt")):
        for name, entry in pinned[kind].items():
            assert properties[f"mcp-lock:{word}:{name}"] == entry["digest"]
    assert properties["mcp-lock:transport"] == "stdio" and properties["mcp-lock:declared-in"] == ".mcp.json"
    assert properties["mcp-lock:surface-digest"] == pinned["digest"]
    again, _ = bom_of(repo, env=epoch)
    assert again == text  # serial number and references derive from the lock: the same lock, the same bytes


def test_output_file_and_a_missing_lock(repo: Repo, tmp_path: Path) -> None:
    repo.add_stdio("notes")
    missing = run_bom(repo)
    assert missing.exit_code == 2 and "mcp-lock.json" in missing.output
    assert repo.run("lock").exit_code == 0
    out = repo.root / "bom.cdx.json"
    assert run_bom(repo, "--output", str(out)).exit_code == 0
    assert_valid(out.read_text(encoding="utf-8"))


def test_without_the_bom_extra_it_says_what_to_install(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    for name in [name for name in sys.modules if name.split(".")[0] == "cyclonedx"] + ["cyclonedx"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the library were not installed
    monkeypatch.delitem(sys.modules, "scanner.artifacts.bom", raising=False)
    result = run_bom(repo)
    assert result.exit_code == 2
    # The way the README installs mcp-lock (the repository at a tag), never a name an index could answer.
    assert "pip install 'mcp-lock[bom] @ git+https://github.com/mcp-lock/mcp-lock@v" in result.output
    assert "pip install 'mcp-lock[bom]' " not in result.output


def test_the_spec_s_example_lock_with_a_remote_server_validates(repo: Repo) -> None:
    example = Path(__file__).resolve().parents[2] / "lockfile-spec" / "example" / "mcp-lock.json"
    repo.lock_path.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    text, document = bom_of(repo)
    assert_valid(text)
    pinned = json.loads(example.read_text(encoding="utf-8"))["servers"]
    servers = {c["name"]: {p["name"]: p["value"] for p in c["properties"]} for c in document["components"]}
    assert set(servers) == set(pinned)
    for key, pin in pinned.items():
        if pin["launch"]["transport"] != "stdio":
            assert servers[key]["mcp-lock:url"] == pin["launch"]["url"]
        for kind, word in (("tools", "tool"), ("prompts", "prompt"), ("resources", "resource")):
            for name, entry in pin[kind].items():
                assert servers[key][f"mcp-lock:{word}:{name}"] == entry["digest"]


def test_every_tree_package_has_its_hashes_and_the_license_its_record_states() -> None:
    """A uv package's record pins the sha256 of each file of its release (uv installs one of them with
    --require-hashes): each is in the document, never none; a license the record states is the component's."""
    from scanner.artifacts.bom import bom_json
    from scanner.install.packages import tree_record

    wheel, sdist = hashlib.sha256(b"wheel").hexdigest(), hashlib.sha256(b"sdist").hexdigest()
    uv = pin_of("pypi", "time", "mcp-server-time", "2026.10.19")
    uv.tree = tree_record("uv", [
        {"name": "mcp-server-time", "version": "2026.10.19", "sha256": sorted([wheel, sdist])},
        {"name": "tzdata", "version": "2025.2", "sha256": [hashlib.sha256(b"tz").hexdigest()]},
    ])
    npm = pin_of("npm", "memory", "@modelcontextprotocol/server-memory", "2026.8.31")
    npm.tree = tree_record("npm", [{"path": "node_modules/@modelcontextprotocol/server-memory",
                                    "name": "@modelcontextprotocol/server-memory", "version": "2026.8.31",
                                    "integrity": npm.artifact["integrity"], "license": "MIT"}])
    text = bom_json(Lockfile(servers={"time": uv, "memory": npm}), "project", {"SOURCE_DATE_EPOCH": "0"})
    assert_valid(text)
    parts = {c["name"]: c for server in json.loads(text)["components"] for c in server.get("components", [])}
    assert sorted(h["content"] for h in parts["mcp-server-time"]["hashes"]) == sorted([wheel, sdist])
    assert all(h["alg"] == "SHA-256" for h in parts["mcp-server-time"]["hashes"])
    assert parts["tzdata"]["hashes"] and all(parts[name].get("hashes") for name in parts)
    assert parts["@modelcontextprotocol/server-memory"]["licenses"] == [{"expression": "MIT"}]
