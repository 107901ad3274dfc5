"""Discovery over a whole repository: dedup, name clashes, broken and unreadable files, the walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scanner.sources import discover as discover_module
from scanner.sources.declarations import LaunchTemplate as T
from scanner.sources.discover import discover

from .conftest import codes, config, declared, scan

ENV = {"HOME": "/home/ci"}


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_one_server_declared_in_three_files_is_one_server() -> None:
    discovery = scan("fudi")
    assert [cf.path for cf in discovery.files] == [".codex/config.toml", ".zed/settings.json", "opencode.json"]
    servers = {s.key: s for s in discovery.servers}
    assert list(servers) == ["context7", "playwright", "supabase"]  # sorted by key
    where = {key: [str(d.location) for d in s.declarations] for key, s in servers.items()}
    assert where == {
        "context7": [".codex/config.toml:4", ".zed/settings.json:3", "opencode.json:5"],
        # opencode calls it "browser": the first name in file order wins, the rest stay declarations.
        "playwright": [".codex/config.toml:8", ".zed/settings.json:8", "opencode.json:4"],
        "supabase": [".codex/config.toml:1", ".zed/settings.json:14", "opencode.json:6"],
    }
    assert [d.name for d in servers["playwright"].declarations] == ["playwright", "playwright", "browser"]
    assert [d.client for d in servers["supabase"].declarations] == ["codex", "zed", "opencode"]
    assert servers["supabase"].template == T("http", url="https://mcp.supabase.com/mcp?project_ref=fudi0001")
    assert servers["playwright"].template == T(
        "stdio",
        "npx",
        ("@playwright/mcp@0.0.41",),
        env_names=("PLAYWRIGHT_BROWSERS_PATH",),
        env=(("PLAYWRIGHT_BROWSERS_PATH", "${env:PLAYWRIGHT_BROWSERS_PATH}"),),
    )
    assert all(not s.problems for s in discovery.servers)


def test_claude_and_cursor_spellings_of_one_launch_deduplicate() -> None:
    discovery = scan("clash")
    docker = next(s for s in discovery.servers if s.template and s.template.command == "docker")
    assert [(d.location.file, d.name) for d in docker.declarations] == [
        (".cursor/mcp.json", "github"),
        (".mcp.json", "gh"),
    ]


def test_different_launches_under_one_name_are_both_pinned_with_a_warning() -> None:
    discovery = scan("clash")
    assert [s.key for s in discovery.servers] == ["github@.cursor/mcp.json", "github@.vscode/mcp.json"]
    cursor, vscode = discovery.servers
    assert vscode.template == T("http", url="https://api.githubcopilot.com/mcp/", sse_fallback=True)
    assert codes(vscode.problems) == [("warning", "name-clash", 3)]
    assert vscode.problems[0].message == (
        "'github' names 2 different launches (.cursor/mcp.json:3, .vscode/mcp.json:3); "
        "this one is pinned as 'github@.vscode/mcp.json'"
    )
    # Only the declaration named "github" clashes; "gh" in .mcp.json just shares the launch.
    assert [codes(d.problems) for d in cursor.declarations] == [
        [("error", "unresolved-variable", 3), ("warning", "name-clash", 3)],
        [("error", "unresolved-variable", 3)],
    ]


def test_same_name_twice_in_one_file_gets_line_qualified_keys(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".continue/mcpServers/dup.yaml",
        "mcpServers:\n  - name: db\n    command: a\n  - name: db\n    command: b\n",
    )
    discovery = discover(tmp_path, ENV)
    assert [s.key for s in discovery.servers] == [
        "db@.continue/mcpServers/dup.yaml:2",
        "db@.continue/mcpServers/dup.yaml:4",
    ]


def test_a_malformed_file_is_reported_and_the_others_still_discovered() -> None:
    discovery = scan("broken")
    assert [cf.path for cf in discovery.files] == [".cursor/mcp.json", ".kiro/settings/mcp.json", ".mcp.json"]
    broken = config(discovery, ".mcp.json")
    assert broken.declarations == []
    assert codes(broken.problems) == [("error", "parse-error", 5)]
    assert broken.problems[0].message == (
        ".mcp.json is not valid JSON: line 5, column 7: expected ',' after object member, found '\"'"
    )
    kiro = config(discovery, ".kiro/settings/mcp.json")
    assert codes(kiro.problems) == [("warning", "duplicate-key", 4)]
    assert "duplicate key 'fetch' (the last one wins)" in kiro.problems[0].message
    (fetch,) = kiro.declarations
    assert (fetch.location.line, fetch.template) == (4, T("stdio", "uvx", ("mcp-server-fetch", "--ignore-robots-txt")))
    assert [s.key for s in discovery.servers] == ["fetch@.cursor/mcp.json", "fetch@.kiro/settings/mcp.json"]


def test_bom_and_comments_in_strict_and_lenient_clients(tmp_path: Path) -> None:
    text = '\ufeff{\n  // c\n  "mcpServers": {"a": {"command": "x",}}\n}'
    write(tmp_path, ".mcp.json", text)
    write(tmp_path, ".cursor/mcp.json", text)
    write(tmp_path, ".gemini/settings.json", text)
    write(tmp_path, ".vscode/mcp.json", text.replace("mcpServers", "servers"))
    discovery = discover(tmp_path, ENV)
    found = {
        cf.path: [(p.code, p.location.line, p.message.rsplit(": ", 1)[-1]) for p in cf.problems]
        for cf in discovery.files
    }
    strict = [
        ("strict-json", 1, "bom at line 1"),
        ("strict-json", 2, "comment at line 2"),
        ("strict-json", 3, "trailing comma at line 3"),
    ]
    assert found == {
        ".cursor/mcp.json": strict,
        ".gemini/settings.json": [strict[0], strict[2]],  # Gemini strips comments, not trailing commas
        ".mcp.json": strict,
        ".vscode/mcp.json": [],
    }
    assert [s.key for s in discovery.servers] == ["a"]
    assert len(discovery.servers[0].declarations) == 4


def test_invalid_utf8_is_a_clean_error_with_its_line(tmp_path: Path) -> None:
    write(tmp_path, ".mcp.json", b'{\n  "mcpServers": {\n    "caf\xe9": {"command": "x"}}}')
    (cf,) = discover(tmp_path, ENV).files
    assert codes(cf.problems) == [("error", "not-utf8", 3)]
    assert cf.problems[0].message == ".mcp.json is not valid UTF-8 (byte 0xe9); save it as UTF-8"


def test_a_directory_where_a_file_should_be_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / ".roo" / "mcp.json").mkdir(parents=True)
    (cf,) = discover(tmp_path, ENV).files
    assert (cf.path, cf.client, codes(cf.problems)) == (".roo/mcp.json", "roo", [("error", "unreadable", 1)])
    assert cf.problems[0].message.startswith("cannot read .roo/mcp.json: ")


def test_a_file_without_read_permission_is_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root reads any file, so the refusal the kernel would give anyone else is simulated at open().
    path = write(tmp_path, ".cursor/mcp.json", "{}")
    real_open = os.open

    def refuse(file: object, flags: int, *args: object) -> int:
        if Path(str(file)) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    (cf,) = discover(tmp_path, ENV).files
    assert codes(cf.problems) == [("error", "unreadable", 1)]
    assert "Permission denied" in cf.problems[0].message


def test_a_broken_symlink_is_unreadable_and_a_symlink_loop_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "loop").symlink_to(tmp_path)
    (cf,) = discover(tmp_path, ENV).files
    assert codes(cf.problems) == [("error", "unreadable", 1)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_fifos_and_device_links_are_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".mcp.json")  # opening it for reading would block forever
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").symlink_to("/dev/zero")  # reading it would never end
    found = [(cf.path, p.code, p.message) for cf in discover(tmp_path, ENV).files for p in cf.problems]
    assert found == [
        (".cursor/mcp.json", "unreadable", "cannot read .cursor/mcp.json: a symbolic link that leads outside the"
         " repository"),
        (".mcp.json", "unreadable", "cannot read .mcp.json: not a regular file (a FIFO)"),
    ]


def test_an_oversized_file_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from scanner.sources import common

    monkeypatch.setattr(common, "MAX_BYTES", 10)
    write(tmp_path, ".mcp.json", '{"mcpServers": {}}')
    (cf,) = discover(tmp_path, ENV).files
    assert codes(cf.problems) == [("error", "unreadable", 1)]


@pytest.mark.parametrize("rel", [*discover_module.FIXED, ".continue/mcpServers/x.yaml", "gemini-extension.json"])
@pytest.mark.parametrize("content", [b"\x00\xff garbage", b"{", b"[1, 2]", b"mcpServers = 3\n", b'{"mcpServers": 7}'])
def test_garbage_in_any_config_file_never_raises(tmp_path: Path, rel: str, content: bytes) -> None:
    write(tmp_path, rel, content)
    discovery = discover(tmp_path, ENV)
    assert discovery.servers == []
    assert all(p.code != "internal-error" for cf in discovery.files for p in cf.problems)


def test_settings_files_without_mcp_keys_are_not_config_files(tmp_path: Path) -> None:
    write(tmp_path, ".vscode/settings.json", '{"editor.tabSize": 2, // x\n}')
    write(tmp_path, ".zed/settings.json", '{"tab_size": 2}')
    write(tmp_path, ".gemini/settings.json", '{"theme": "GitHub"}')
    write(tmp_path, ".codex/config.toml", 'model = "o3"\n')
    write(tmp_path, "opencode.json", '{"theme": "opencode"}')
    write(tmp_path, "server.json", '{"port": 3000}')
    write(tmp_path, "public/manifest.json", '{"manifest_version": 3, "name": "A Chrome extension"}')
    assert discover(tmp_path, ENV).files == []


def test_an_empty_dedicated_file_warns_that_it_declares_nothing(tmp_path: Path) -> None:
    write(tmp_path, ".cursor/mcp.json", "{}")
    (cf,) = discover(tmp_path, ENV).files
    assert [(p.code, p.message) for p in cf.problems] == [("no-servers", ".cursor/mcp.json has no `mcpServers` object")]


def test_a_server_map_of_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, ".mcp.json", '{\n  "mcpServers": ["npx", "server"]\n}')
    (cf,) = discover(tmp_path, ENV).files
    assert codes(cf.problems) == [("error", "invalid-field", 2)]


REGISTRY_ENTRY = (
    '{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json", '
    '"name": "io.github.x/%s", "packages": [{"registryType": "npm", "identifier": "%s", "version": "1.0.0"}]}'
)


def test_the_walk_finds_registry_files_and_skips_vendored_and_hidden_folders(tmp_path: Path) -> None:
    for rel in [
        ".mcp/server.json",
        "packages/weather/server.json",
        "node_modules/dep/server.json",
        ".git/server.json",
        ".cache/server.json",
        "venv/server.json",
        "build/server.json",
        "tests/fixtures/server.json",
        "a/b/c/d/e/f/server.json",  # depth 6: found
        "a/b/c/d/e/f/g/server.json",  # depth 7: too deep
    ]:
        name = rel.replace("/", "-").removesuffix("-server.json")
        write(tmp_path, rel, REGISTRY_ENTRY % (name, name))
    discovery = discover(tmp_path, ENV)
    assert [cf.path for cf in discovery.files] == [
        ".mcp/server.json",
        "a/b/c/d/e/f/server.json",
        "packages/weather/server.json",
    ]
    assert [s.key for s in discovery.servers] == [
        "io.github.x/.mcp",
        "io.github.x/a-b-c-d-e-f",
        "io.github.x/packages-weather",
    ]
    assert discovery.servers[2].template == T("stdio", "npx", ("packages-weather@1.0.0",))


def test_the_walk_is_bounded_in_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover_module, "MAX_ENTRIES", 5)
    for i in range(10):
        write(tmp_path, f"d{i}/server.json", REGISTRY_ENTRY % (i, i))
    discovery = discover(tmp_path, ENV)
    # Breadth first: the 5 entries seen are the top-level folders; none of their files is reached.
    assert discovery.files == []


def test_paths_are_repo_relative_posix_and_the_repo_may_be_relative(monkeypatch: pytest.MonkeyPatch) -> None:
    from .conftest import DATA

    monkeypatch.chdir(DATA)
    discovery = discover(Path("gemini"), ENV)
    assert [cf.path for cf in discovery.files] == [".gemini/settings.json", "extensions/weather/gemini-extension.json"]
    weather = declared(config(discovery, "extensions/weather/gemini-extension.json"))["weather"]
    assert weather.resolved is not None
    assert weather.resolved.cwd == str(DATA / "gemini" / "extensions" / "weather")


def test_an_unexpected_reader_failure_becomes_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(scan: object, rel: str) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(discover_module.FIXED, ".mcp.json", explode)
    write(tmp_path, ".mcp.json", "{}")
    write(tmp_path, ".cursor/mcp.json", '{"mcpServers": {"a": {"command": "x"}}}')
    discovery = discover(tmp_path, ENV)
    assert [(cf.path, codes(cf.problems)) for cf in discovery.files] == [
        (".cursor/mcp.json", []),
        (".mcp.json", [("error", "internal-error", 1)]),
    ]
