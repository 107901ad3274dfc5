"""renovate/mcp-servers.json: its regexes, run the way Renovate runs them, find exactly the pinned launches
in our client-format fixtures, and nothing unpinned."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scanner.sources import continuedev, discover

ROOT = Path(__file__).resolve().parent.parent
PRESET = ROOT / "renovate" / "mcp-servers.json"
FIXTURES = (ROOT / "tests" / "renovate_data", ROOT / "tests" / "sources" / "data", ROOT / "examples")
MANAGER_KEYS = {
    "customType",
    "description",
    "managerFilePatterns",
    "matchStringsStrategy",
    "matchStrings",
    "datasourceTemplate",
}
# Renovate runs the regexes with RE2 in JavaScript syntax: no lookaround, no backreferences.
UNSUPPORTED = re.compile(r"\(\?<[=!]|\(\?[=!]|\\[1-9]|\\k<|\(\?P")

Dep = tuple[str, str, str | None, str]  # depName, currentValue, currentDigest, datasource
DIGEST = "sha256:0c8f6b8a3d2e4f7a9b1c3d5e7f9a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a"
OCI_DIGEST = "sha256:1f2e3d4c5b6a79880f1e2d3c4b5a69788f9e0d1c2b3a49586f7e8d9c0b1a2f3e"

EXPECTED: dict[str, list[Dep]] = {
    "tests/renovate_data/pinned/.mcp.json": [
        ("@modelcontextprotocol/server-filesystem", "2025.8.21", None, "npm"),
        ("postmark-mcp", "1.0.16", None, "npm"),
        ("@playwright/mcp", "0.0.41-alpha.1", None, "npm"),
        ("mcp-server-fetch", "2025.4.7", None, "pypi"),
        ("mcp-server-time", "0.6.2", None, "pypi"),
        ("mcp-server-git", "0.6.2", None, "pypi"),
        ("ghcr.io/github/github-mcp-server", "v0.13.0", DIGEST, "docker"),
        ("mcp/postgres", "0.6.2", None, "docker"),
    ],
    "tests/renovate_data/pinned/.vscode/mcp.json": [
        ("@acme/search-mcp", "2.1.0", None, "npm"),
        ("mcp", "1.9.4", None, "pypi"),
    ],
    "tests/renovate_data/pinned/.codex/config.toml": [
        ("@upstash/context7-mcp", "1.0.14", None, "npm"),
        ("@playwright/mcp", "0.0.41", None, "npm"),
        ("mcp-server-time", "0.6.2", None, "pypi"),
        ("ghcr.io/github/github-mcp-server", "0.13.0", None, "docker"),
    ],
    "tests/renovate_data/pinned/.continue/mcpServers/pinned.yaml": [
        ("@playwright/mcp", "0.0.41", None, "npm"),
        ("server-memory", "0.6.3", None, "npm"),
        ("mcp-server-fetch", "2025.4.7", None, "pypi"),
        ("mcp/filesystem", "1.0.2", None, "docker"),
    ],
    "tests/renovate_data/pinned/opencode.json": [
        ("@playwright/mcp", "0.0.41", None, "npm"),
        ("mcp-server-fetch", "2025.4.7", None, "pypi"),
        ("mcp/time", "0.6.2", None, "docker"),
    ],
    "tests/renovate_data/pinned/.zed/settings.json": [
        ("@modelcontextprotocol/server-postgres", "0.6.2", None, "npm"),
        ("mcp-server-git", "0.6.2", None, "pypi"),
    ],
    "tests/renovate_data/pinned/publish/server.json": [
        ("@acme/files-mcp", "3.0.0", None, "npm"),
        ("acme-files-mcp", "3.0.1", None, "pypi"),
        ("docker.io/acme/files-mcp", "3.0.0", OCI_DIGEST, "docker"),
    ],
    "tests/sources/data/fudi/.codex/config.toml": [("@playwright/mcp", "0.0.41", None, "npm")],
    "tests/sources/data/fudi/.zed/settings.json": [("@playwright/mcp", "0.0.41", None, "npm")],
    "tests/sources/data/fudi/opencode.json": [("@playwright/mcp", "0.0.41", None, "npm")],
    "tests/sources/data/registry/.mcp/server.json": [
        ("Acme.WeatherMcp", "0.4.0", None, "nuget"),
        ("acme-weather-mcp", "0.4.0", None, "pypi"),
        ("ghcr.io/acme/weather-mcp", "0.4.0", None, "docker"),
    ],
}


def preset() -> dict:
    return json.loads(PRESET.read_text(encoding="utf-8"))


def managers() -> list[dict]:
    return preset()["customManagers"]


def python_regex(js: str) -> re.Pattern[str]:
    """A Renovate (RE2, JavaScript syntax) regex as Python's: `(?<name>` becomes `(?P<name>`, and `$`
    outside a class becomes `\\Z` (JavaScript's `$` without the m flag never matches before a final
    newline; Python's does). ASCII, as JavaScript's `\\d`, `\\w` and `\\b` are."""
    out, in_class, i = [], False, 0
    while i < len(js):
        char = js[i]
        if char == "\\":
            out.append(js[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        elif js.startswith("(?<", i):
            char = "(?P"
            i += 1
        out.append(char)
        i += 1
    return re.compile("".join(out), re.ASCII)


def file_patterns(manager: dict) -> list[re.Pattern[str]]:
    return [python_regex(p[1:-1]) for p in manager["managerFilePatterns"]]


def handles(manager: dict, path: str) -> bool:
    return any(p.search(path) for p in file_patterns(manager))


def extract(manager: dict, content: str) -> list[tuple[Dep, str]]:
    """Renovate's `recursive` strategy: each regex runs over every match of the one before; the named
    groups of all levels merge; the last level's match is the text the bump rewrites."""
    regexes = [python_regex(r) for r in manager["matchStrings"]]
    found: list[tuple[Dep, str]] = []

    def walk(text: str, level: int, groups: dict[str, str]) -> None:
        if level == len(regexes):
            datasource = manager.get("datasourceTemplate") or groups.get("datasource")
            # Renovate drops a dependency without a name or a version (isValidDependency).
            if groups.get("depName") and (groups.get("currentValue") or groups.get("currentDigest")):
                dep = (groups["depName"], groups.get("currentValue", ""), groups.get("currentDigest"), datasource)
                found.append((dep, text))
            return
        for match in regexes[level].finditer(text):
            named = {k: v for k, v in match.groupdict().items() if v is not None}
            walk(match.group(0), level + 1, groups | named)

    walk(content, 0, {})
    return found


def extract_file(path: Path) -> list[tuple[Dep, str]]:
    rel = path.relative_to(ROOT).as_posix()
    text = path.read_text(encoding="utf-8")
    return [hit for m in managers() if handles(m, rel) for hit in extract(m, text)]


def fixture_files() -> list[Path]:
    return sorted(p for base in FIXTURES for p in base.rglob("*") if p.is_file())


# --- structure ---------------------------------------------------------------------------------


def test_preset_is_a_renovate_config_of_regex_custom_managers() -> None:
    config = preset()
    assert set(config) == {"$schema", "description", "customManagers", "packageRules"}
    assert "Renovate" in config["description"] and "maxMajorIncrement" in config["description"]
    assert len(config["customManagers"]) == 5
    for manager in config["customManagers"]:
        assert set(manager) <= MANAGER_KEYS, manager["description"]
        assert manager["customType"] == "regex"
        assert manager["matchStringsStrategy"] == "recursive"
        assert manager["managerFilePatterns"] and manager["matchStrings"]
        # managerFilePatterns: a value between slashes is a regex, anything else a glob.
        for pattern in manager["managerFilePatterns"]:
            assert pattern.startswith("/") and pattern.endswith("$/"), pattern
        for regex in manager["matchStrings"] + manager["managerFilePatterns"]:
            assert not UNSUPPORTED.search(regex), regex
            python_regex(regex)
        final = manager["matchStrings"][-1]
        assert "(?<currentValue>" in final  # the text a bump rewrites holds the version
        names = set(re.findall(r"\(\?<(\w+)>", "".join(manager["matchStrings"])))
        assert names <= {"depName", "currentValue", "currentDigest", "datasource"}
        assert "depName" in names
        assert ("datasource" in names) != ("datasourceTemplate" in manager), manager["description"]
    templates = {m.get("datasourceTemplate") for m in config["customManagers"]}
    assert templates == {"npm", "pypi", "docker", None}


def test_the_preset_is_what_build_preset_writes() -> None:
    spec = importlib.util.spec_from_file_location("build_preset", ROOT / "renovate" / "build_preset.py")
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    assert PRESET.read_text(encoding="utf-8") == builder.render(), "run `python renovate/build_preset.py`"


def test_every_client_file_mcp_lock_discovers_is_handled() -> None:
    registry = [m for m in managers() if handles(m, "server.json")]
    launchers = [m for m in managers() if m not in registry]
    assert len(registry) == 2 and len(launchers) == 3
    paths = [*discover.FIXED, *(n for n in discover.WALKED if n != "server.json")]
    paths += [f"{continuedev.FOLDER}/servers{suffix}" for suffix in continuedev.SUFFIXES]
    for manager in launchers:
        for path in paths:
            assert handles(manager, path) and handles(manager, f"apps/web/{path}"), (manager["description"], path)
    assert all(handles(m, "pkg/.mcp/server.json") and not handles(m, ".mcp.json") for m in registry)
    assert not any(handles(m, "src/mcp.json.bak") or handles(m, "notes.md") for m in managers())


# --- the fixtures ------------------------------------------------------------------------------


def test_the_fixtures_give_exactly_the_pinned_launches() -> None:
    found = {}
    for path in fixture_files():
        if hits := extract_file(path):
            found[path.relative_to(ROOT).as_posix()] = sorted(dep for dep, _ in hits)
    assert found == {name: sorted(deps) for name, deps in EXPECTED.items()}


def test_a_bump_rewrites_only_the_version() -> None:
    """Renovate replaces the version inside the last level's match: it must be there exactly once."""
    hits = [hit for path in fixture_files() for hit in extract_file(path)]
    assert len(hits) == sum(map(len, EXPECTED.values()))
    for (_, version, digest, _), text in hits:
        assert text.count(version) == 1, text
        assert digest is None or text.count(digest) == 1
        assert len(text) < 200, text


# Renovate's extraction (recursive strategy) in JavaScript, with JavaScript's own regex engine. The u flag:
# RE2 always works on Unicode, and with it JavaScript also rejects escapes its lenient mode lets pass.
JS_EXTRACT = r"""
const fs = require("fs");
const [presetPath, root, ...files] = process.argv.slice(1);
const managers = JSON.parse(fs.readFileSync(presetPath, "utf8")).customManagers;
const out = [];
function walk(manager, regexes, text, level, groups, file) {
  if (level === regexes.length) {
    const datasource = manager.datasourceTemplate || groups.datasource;
    if (groups.depName && (groups.currentValue || groups.currentDigest)) {
      out.push([file, groups.depName, groups.currentValue || "", groups.currentDigest || null, datasource, text]);
    }
    return;
  }
  for (const match of text.matchAll(regexes[level])) {
    const named = Object.fromEntries(Object.entries(match.groups || {}).filter(([, v]) => v !== undefined));
    walk(manager, regexes, match[0], level + 1, { ...groups, ...named }, file);
  }
}
for (const file of files) {
  const text = fs.readFileSync(root + "/" + file, "utf8");
  for (const manager of managers) {
    if (!manager.managerFilePatterns.some((p) => new RegExp(p.slice(1, -1), "u").test(file))) continue;
    walk(manager, manager.matchStrings.map((m) => new RegExp(m, "gu")), text, 0, {}, file);
  }
}
console.log(JSON.stringify(out));
"""


def test_javascript_regexes_extract_what_the_python_translation_does() -> None:
    """The translation to Python must not hide a difference: JavaScript finds the very same."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; Node.js is needed for npx servers and this check")
    files = [p.relative_to(ROOT).as_posix() for p in fixture_files()]
    result = subprocess.run(
        [node, "-e", JS_EXTRACT, str(PRESET), str(ROOT), *files], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    in_js = sorted(tuple(hit) for hit in json.loads(result.stdout))
    in_python = sorted(
        (path.relative_to(ROOT).as_posix(), *dep, text) for path in fixture_files() for dep, text in extract_file(path)
    )
    assert in_js == in_python
    assert len(in_js) == sum(map(len, EXPECTED.values()))


# --- unpinned launches and look-alikes are left alone ------------------------------------------

NPM_JSON = '{"servers": {"s": {"command": "npx", "args": ["-y", %s]}}}'
UVX_JSON = '{"servers": {"s": {"command": "uvx", "args": [%s]}}}'
DOCKER_JSON = '{"servers": {"s": {"command": "docker", "args": ["run", "-i", "--rm", %s]}}}'


def launched(text: str) -> list[Dep]:
    return [dep for m in managers() if handles(m, ".mcp.json") for dep, _ in extract(m, text)]


@pytest.mark.parametrize(
    ("template", "argument"),
    [
        (NPM_JSON, '"pkg"'),
        (NPM_JSON, '"pkg@latest"'),
        (NPM_JSON, '"@scope/pkg@next"'),
        (NPM_JSON, '"pkg@^1.2.3"'),
        (NPM_JSON, '"pkg@1"'),
        (NPM_JSON, '"--registry=x@1.2.3"'),
        (NPM_JSON, '"${PKG}@1.2.3"'),
        (UVX_JSON, '"mcp-server-fetch"'),
        (UVX_JSON, '"mcp-server-fetch@latest"'),
        (UVX_JSON, '"mcp-server-fetch>=1.0"'),
        (UVX_JSON, '"--from", "git+https://example.com/x.git@1.2.3"'),
        (DOCKER_JSON, '"mcp/fetch"'),
        (DOCKER_JSON, '"mcp/fetch:latest"'),
        (DOCKER_JSON, '"-p", "8080:80", "-v", "/data:/data", "mcp/fetch"'),
    ],
)
def test_unpinned_launches_are_not_matched(template: str, argument: str) -> None:
    assert launched(template % argument) == []


def test_a_pinned_value_outside_a_launch_is_not_matched() -> None:
    assert launched('{"servers": {"s": {"command": "node", "args": ["pkg@1.2.3"]}}}') == []
    assert launched('{"servers": {"s": {"url": "https://x.example/pkg@1.2.3"}}}') == []
    # The launcher of one server does not reach into the next one's arguments.
    text = '{"a": {"args": ["-y"], "command": "npx"}, "b": {"command": "node", "args": ["pkg@1.2.3"]}}'
    assert launched(text) == []


def test_the_same_launches_are_matched_once_pinned() -> None:
    assert launched(NPM_JSON % '"@scope/pkg@1.2.3"') == [("@scope/pkg", "1.2.3", None, "npm")]
    assert launched(UVX_JSON % '"--from", "mcp-server-fetch==1.2", "mcp-server-fetch"') == [
        ("mcp-server-fetch", "1.2", None, "pypi")
    ]
    assert launched(DOCKER_JSON % f'"mcp/fetch:1.2@{DIGEST}"') == [("mcp/fetch", "1.2", DIGEST, "docker")]


# --- the reference servers' CalVer jump ----------------------------------------------------------

RENOVATE = "44.121.2"  # the validator run below; npx caches this exact version after the first run
RENOVATE_NODE = "24"


def rules_for(name: str, datasource: str) -> list[dict[str, object]]:
    """The preset's packageRules that apply to a dependency (Renovate's globs: `*` within a name)."""
    return [
        rule
        for rule in preset()["packageRules"]
        if datasource in rule["matchDatasources"]
        and any(fnmatch.fnmatchcase(name, glob) for glob in rule["matchPackageNames"])
    ]


def test_the_reference_servers_move_to_calver_is_not_held_back() -> None:
    # `…server-sequential-thinking@0.6.2` → 2025.x is a "major increment" of 2025, past Renovate's default
    # limit of 500: without a rule the most common old pin never gets a bump pull request.
    for name, datasource in [
        ("@modelcontextprotocol/server-sequential-thinking", "npm"),
        ("@modelcontextprotocol/server-filesystem", "npm"),
        ("mcp-server-time", "pypi"),
        ("mcp-server-git", "pypi"),
    ]:
        [rule] = rules_for(name, datasource)
        assert rule["maxMajorIncrement"] == 0, name  # 0: no limit
    found = {(name, datasource) for deps in EXPECTED.values() for name, _, _, datasource in deps}
    assert ("mcp-server-time", "pypi") in found and ("@modelcontextprotocol/server-filesystem", "npm") in found
    # Other packages keep Renovate's guard against a jump to a date-like version.
    for name, datasource in [("postmark-mcp", "npm"), ("@playwright/mcp", "npm"), ("mcp", "pypi"),
                             ("mcp-server-time", "npm"), ("@modelcontextprotocol/sdk", "npm")]:
        assert rules_for(name, datasource) == [], name


@pytest.mark.network  # the first run installs Renovate from the npm registry; later runs use npx's cache
def test_renovates_own_validator_accepts_the_preset() -> None:
    npx = shutil.which("npx")
    if npx is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    # Renovate 44 needs Node.js 24: the `node` package on npm supplies it to this one run, whatever node is here
    # (npx would otherwise settle on the newest Renovate this node supports, one that predates maxMajorIncrement).
    packages = ["--package", f"node@{RENOVATE_NODE}", "--package", f"renovate@{RENOVATE}"]
    # --no-global: validate it as a repository's config (what a preset is), not as a self-hosted global one.
    command = [npx, "--yes", *packages, "--", "renovate-config-validator", "--strict", "--no-global"]
    result = subprocess.run([*command, str(PRESET)], capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "as repo config" in result.stdout and "Config validated successfully" in result.stdout
