"""Every client format, read from a realistic example in `data/`: the exact declarations produced.

Expected values are worked out from the example files by hand (line numbers included).
"""

from __future__ import annotations

import dataclasses

from scanner.sources.declarations import ConfigFile, Declaration, ResolvedLaunch
from scanner.sources.declarations import LaunchTemplate as T

from .conftest import DATA, HOME, codes, config, scan
from .conftest import declared as declared_with_env


def declared(cf: ConfigFile) -> dict[str, Declaration]:
    """The declarations, each template without its env values: these tests pin the format's fields and
    env names; what the lock records for each value is pinned in test_env_values_are_recorded_as_templates."""
    found = declared_with_env(cf)
    for decl in found.values():
        if decl.template is not None:
            decl.template = dataclasses.replace(decl.template, env=())
    return found

GITHUB_DOCKER = ("run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server")


def test_claude_code_mcp_json() -> None:
    cf = config(scan("claude", {"GITHUB_TOKEN": "ghp_1", "API_KEY": "k"}), ".mcp.json")
    assert cf.client == "claude-code"
    assert cf.problems == []
    d = declared(cf)
    assert [(name, decl.location.line) for name, decl in d.items()] == [
        ("github", 3),
        ("db", 10),
        ("api", 15),
        ("project-tools", 22),
        ("browser", 28),
        ("magic", 32),
    ]
    assert d["github"].template == T("stdio", "docker", GITHUB_DOCKER, env_names=("GITHUB_PERSONAL_ACCESS_TOKEN",))
    assert d["github"].resolved is not None
    assert d["github"].resolved.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_1"}
    db_args = ("-y", "@bytebase/dbhub", "--dsn", "${env:DATABASE_URL:-postgres://localhost:5432/dev}")
    assert d["db"].template == T("stdio", "npx", db_args)
    assert d["db"].resolved is not None
    assert d["db"].resolved.args[-1] == "postgres://localhost:5432/dev"
    assert d["api"].template == T(
        "http", url="${env:API_BASE_URL:-https://api.example.com}/mcp", header_names=("Authorization",)
    )
    assert d["api"].resolved == ResolvedLaunch(
        "http", url="https://api.example.com/mcp", headers={"Authorization": "Bearer k"}
    )
    # ${CLAUDE_PROJECT_DIR:-.} is the project root; bare $HOME is never expanded by Claude Code.
    assert d["project-tools"].template == T(
        "stdio", "python3", ("${workspaceFolder}/tools/mcp_server.py", "--cache", "$HOME/.cache/tools")
    )
    assert d["browser"].template == T("sse", url="http://localhost:8931/sse")
    assert d["magic"].template is None
    assert codes(d["magic"].problems) == [("error", "remote-without-type", 33)]
    assert "Claude Code rejects a remote server without type" in d["magic"].problems[0].message
    assert all(not decl.problems for name, decl in d.items() if name != "magic")


def test_claude_code_missing_variables_are_named_with_how_to_set_them() -> None:
    d = declared(config(scan("claude"), ".mcp.json"))
    assert d["github"].resolved is None
    assert codes(d["github"].problems) == [("error", "unresolved-variable", 3)]
    assert d["github"].problems[0].message.endswith("set environment variable GITHUB_TOKEN")
    assert "set environment variable API_KEY" in d["api"].problems[0].message
    assert d["db"].resolved is not None  # the default covers DATABASE_URL


def test_claude_code_file_with_comments_gets_strict_json_warnings() -> None:
    cf = config(scan("claude-commented"), ".mcp.json")
    assert codes(cf.problems) == [("warning", "strict-json", 2), ("warning", "strict-json", 8)]
    assert cf.problems[0].message == "Claude Code parses strict JSON and will reject .mcp.json: comment at lines 2, 10"
    assert cf.problems[1].message.endswith("trailing comma at line 8")
    d = declared(cf)
    assert d["kali"].template == T(
        "stdio",
        "/Users/jdoe/src/athena/.venv/bin/python3",
        ("-m", "kali_mcp", "--server", "http://your-kali-host:5000/"),
        env_names=("API_KEY",),
    )
    assert codes(d["workspace"].problems) == [("warning", "reserved-name", 11)]


def test_vscode_mcp_json_with_inputs() -> None:
    cf = config(scan("vscode", {"GITHUB_TOKEN": "gh"}, inputs={"yt-key": "YK", "search-key": "SK"}), ".vscode/mcp.json")
    assert cf.client == "vscode"
    assert cf.problems == []  # VS Code reads JSONC: comments and trailing commas are fine
    d = declared(cf)
    assert [(n, x.location.line) for n, x in d.items()] == [
        ("youtube", 18),
        ("youtube-sse", 28),
        ("docs", 32),
        ("test-tools", 35),
        ("search", 41),
    ]
    assert d["youtube"].template == T(
        "stdio", "node", ("${workspaceFolder}/build/index.js",), env_names=("YOUTUBE_API_KEY", "REGION")
    )
    # `region` has a default in `inputs`; `yt-key` comes from mcp-lock's inputs.
    assert d["youtube"].resolved is not None
    assert d["youtube"].resolved.env == {"YOUTUBE_API_KEY": "YK", "REGION": "eu-west-1"}
    assert d["youtube"].resolved.args == (str(DATA.absolute() / "vscode" / "build" / "index.js"),)
    assert d["youtube-sse"].template == T("sse", url="http://localhost:3000/sse")
    # VS Code tries Streamable HTTP first, then SSE.
    assert d["docs"].template == T("http", url="https://learn.microsoft.com/api/mcp", sse_fallback=True)
    assert d["test-tools"].template == T(
        "stdio",
        "npm",
        ("run", "mcp:test-tools", "--", "--root=${workspaceFolder}"),
        cwd="${workspaceFolder}/extensions/copilot",
        env_names=("GITHUB_TOKEN",),
    )
    assert d["search"].template is not None
    assert d["search"].template.args[-1] == "${userHome}${pathSeparator}.search"
    assert codes(d["search"].problems) == [("warning", "undeclared-input", 41)]


def test_vscode_missing_input_says_where_to_give_it() -> None:
    d = declared(config(scan("vscode", {"GITHUB_TOKEN": "gh"}), ".vscode/mcp.json"))
    assert d["youtube"].resolved is None
    assert [(p.code, p.message) for p in d["youtube"].errors] == [
        (
            "unresolved-input",
            "server 'youtube' cannot be launched here: "
            "give a value for input 'yt-key' under `inputs:` in mcp-lock.yaml",
        )
    ]


def test_server_inputs_override_inputs_for_that_server_only() -> None:
    d = declared(
        config(
            scan("vscode", inputs={"yt-key": "global"}, server_inputs={"youtube": {"yt-key": "special"}}),
            ".vscode/mcp.json",
        )
    )
    assert d["youtube"].resolved is not None
    assert d["youtube"].resolved.env["YOUTUBE_API_KEY"] == "special"


def test_vscode_settings_json_mcp_key_is_deprecated() -> None:
    cf = config(scan("vscode-settings"), ".vscode/settings.json")
    assert codes(cf.problems) == [("warning", "deprecated", 1)]
    assert "move these servers to .vscode/mcp.json" in cf.problems[0].message
    assert [(d.name, d.location.line, d.template) for d in cf.declarations] == [
        ("fetch", 10, T("stdio", "uvx", ("mcp-server-fetch",)))
    ]


def test_cursor_mcp_json() -> None:
    cf = config(scan("cursor", {"GITHUB_TOKEN": "gh", "LINEAR_API_KEY": "lin"}), ".cursor/mcp.json")
    assert cf.client == "cursor"
    assert cf.problems == []
    d = declared(cf)
    assert [(n, x.location.line) for n, x in d.items()] == [
        ("eslint", 3),
        ("context7", 8),
        ("github", 12),
        ("linear", 17),
        ("notes", 21),
    ]
    assert d["eslint"].template == T("stdio", "npx", ("@eslint/mcp@latest",))
    assert d["context7"].template == T("stdio", "npx", ("-y", "@upstash/context7-mcp"))
    assert d["github"].template == T("stdio", "docker", GITHUB_DOCKER, env_names=("GITHUB_PERSONAL_ACCESS_TOKEN",))
    # Cursor treats a bare `url` as Streamable HTTP, with no SSE fallback.
    assert d["linear"].template == T("http", url="https://mcp.linear.app/mcp", header_names=("Authorization",))
    assert d["linear"].resolved is not None
    assert d["linear"].resolved.headers == {"Authorization": "Bearer lin"}
    assert d["notes"].template == T(
        "stdio",
        "${userHome}/.local/bin/notes-mcp",
        ("--vault", "${workspaceFolder}/docs", "--token", "${NOTES_TOKEN}"),
    )
    assert d["notes"].resolved is not None
    assert d["notes"].resolved.command == f"{HOME}/.local/bin/notes-mcp"
    assert codes(d["notes"].problems) == [("warning", "literal-placeholder", 21)]
    assert "Cursor does not expand ${NOTES_TOKEN}" in d["notes"].problems[0].message


def test_roo_and_kilo_with_bad_entries() -> None:
    discovery = scan("roo")
    roo = declared(config(discovery, ".roo/mcp.json"))
    assert roo["filesystem"].template == T(
        "stdio", "npx", ("-y", "@modelcontextprotocol/server-filesystem", "/Users/dev/projects")
    )
    assert roo["filesystem"].disabled is False
    assert roo["remote-search"].template == T("http", url="https://search.example.com/mcp", header_names=("X-Api-Key",))
    assert roo["remote-search"].disabled is True
    assert roo["socket"].template is None
    assert codes(roo["socket"].problems) == [("error", "unknown-transport", 16)]
    assert "unknown transport type 'websocket'" in roo["socket"].problems[0].message
    assert roo["wrong-types"].template is None
    assert [(p.code, p.location.line, p.message) for p in roo["wrong-types"].problems] == [
        ("invalid-field", 21, "server 'wrong-types': `args` must be a list of strings"),
        ("invalid-field", 22, "server 'wrong-types': `env` must be an object of string values"),
    ]
    assert [p.message for p in roo["numbers"].problems] == [
        "server 'numbers': `args[2]` must be a string",
        "server 'numbers': `env.PORT` must be a string",
    ]
    assert roo["python-tool"].template == T("stdio", "uv", ("run", "server.py"), cwd="tools/python")
    kilo = config(discovery, ".kilocode/mcp.json")
    assert kilo.client == "kilo"
    assert declared(kilo)["context7"].template == T("stdio", "npx", ("-y", "@upstash/context7-mcp"))
    assert codes(declared(kilo)["empty"].problems) == [("error", "no-launch", 7)]


def test_kiro_mcp_json() -> None:
    d = declared(config(scan("kiro", {"KIRO_TOKEN": "kt"}), ".kiro/settings/mcp.json"))
    assert d["aws-docs"].template == T(
        "stdio", "uvx", ("awslabs.aws-documentation-mcp-server@latest",), env_names=("FASTMCP_LOG_LEVEL", "AWS_PROFILE")
    )
    assert d["aws-docs"].resolved is not None
    assert d["aws-docs"].resolved.env == {"FASTMCP_LOG_LEVEL": "ERROR", "AWS_PROFILE": "default"}
    assert d["local-tools"].template == T(
        "stdio", "node", ("${workspaceFolder}/mcp/dist/index.js",), cwd="${workspaceFolder}"
    )
    assert (d["local-tools"].location.line, d["remote"].location.line) == (13, 18)
    assert d["remote"].template == T("http", url="https://mcp.example.com/mcp", header_names=("Authorization",))
    assert d["remote"].resolved is not None
    assert d["remote"].resolved.headers == {"Authorization": "Bearer kt"}


def test_amazon_q_legacy_and_default_files() -> None:
    discovery = scan("amazonq")
    legacy = config(discovery, ".amazonq/mcp.json")
    assert codes(legacy.problems) == [("warning", "strict-json", 2)]
    assert legacy.problems[0].message.startswith("Amazon Q parses strict JSON")
    (core,) = legacy.declarations
    assert (core.name, core.location.line) == ("awslabs.core-mcp-server", 4)
    assert core.template == T(
        "stdio",
        "uv",
        ("--directory", "/Users/jdoe/src/mcp/src/core-mcp-server/awslabs/core_mcp_server", "run", "server.py"),
        env_names=("FASTMCP_LOG_LEVEL", "AWS_PROFILE"),
        env=(("AWS_PROFILE", "dev"), ("FASTMCP_LOG_LEVEL", "ERROR")),
    )
    current = config(discovery, ".amazonq/default.json")
    assert current.problems == []
    assert [(d.name, d.location.line, d.template) for d in current.declarations] == [
        ("git", 3, T("stdio", "uvx", ("mcp-server-git",))),
        ("remote", 4, T("http", url="https://q.example.com/mcp", header_names=("Authorization",))),
    ]


def test_junie_mcp_json() -> None:
    cf = config(scan("junie"), ".junie/mcp/mcp.json")
    assert [(d.name, d.location.line, d.template) for d in cf.declarations] == [
        ("laravel-boost", 3, T("stdio", "php", ("artisan", "boost:mcp"))),
        (
            "herd",
            10,
            T(
                "stdio",
                "php",
                ("/Applications/Herd.app/Contents/Resources/herd-mcp.phar",),
                env_names=("SITE_PATH",),
                env=(("SITE_PATH", "/Users/dev/Herd/shop"),),
            ),
        ),
        ("remote", 17, T("http", url="https://junie.example.com/mcp")),
    ]


def test_copilot_github_mcp_json() -> None:
    cf = config(scan("copilot"), ".github/mcp.json")
    assert cf.client == "copilot-cli"
    assert codes(cf.problems) == [("warning", "strict-json", 16)]
    d = declared(cf)
    assert d["microsoft-docs"].template == T("http", url="https://learn.microsoft.com/api/mcp")
    assert d["microsoft-docs"].problems == []  # gallery/version/tools are kept silently
    assert d["pester"].template == T("stdio", "pwsh", ("-NoProfile", "-File", "./tools/mcp/pester.ps1"))
    assert d["gh-aw"].template == T("stdio", "gh", ("aw", "mcp-server"))
    assert d["odd"].template == T("http", url="https://odd.example.com/mcp")
    assert codes(d["odd"].problems) == [("warning", "unsupported-type", 18)]


def test_gemini_settings_json() -> None:
    cf = config(scan("gemini", {"GITHUB_PAT": "pat"}), ".gemini/settings.json")
    assert cf.problems == []  # Gemini strips comments
    d = declared(cf)
    assert [(n, x.location.line) for n, x in d.items()] == [
        ("github", 5),
        ("fetch", 12),
        ("events", 13),
        ("plain", 14),
        ("tool", 15),
    ]
    # httpUrl is Streamable HTTP; url+type is that transport; url alone tries HTTP then SSE.
    assert d["github"].template == T("http", url="https://api.githubcopilot.com/mcp/", header_names=("Authorization",))
    assert d["github"].resolved is not None
    assert d["github"].resolved.headers == {"Authorization": "Bearer pat"}
    assert d["events"].template == T("sse", url="http://localhost:8080/sse")
    assert d["plain"].template == T("http", url="http://localhost:9000/mcp", sse_fallback=True)
    assert d["tool"].template == T(
        "stdio", "node", ("${userHome}/tools/server.js", "--project", "${env:PROJECT_NAME}"), cwd="./tools"
    )
    # Gemini turns an unset variable into an empty string instead of failing.
    assert d["tool"].resolved is not None
    assert d["tool"].resolved.args == (f"{HOME}/tools/server.js", "--project", "")
    assert d["tool"].errors == []


def test_gemini_extension_paths_are_relative_to_the_extension() -> None:
    cf = config(scan("gemini"), "extensions/weather/gemini-extension.json")
    (weather,) = cf.declarations
    assert (weather.name, weather.client, weather.location.line) == ("weather", "gemini", 5)
    assert weather.template == T(
        "stdio",
        "node",
        (
            "${workspaceFolder}/extensions/weather${pathSeparator}dist${pathSeparator}server.js",
            "--workspace",
            "${workspaceFolder}",
        ),
        cwd="${workspaceFolder}/extensions/weather",
        env_names=("WEATHER_API_KEY",),
        env=(("WEATHER_API_KEY", "${env:WEATHER_API_KEY}"),),
    )
    assert weather.resolved is not None
    assert weather.resolved.cwd == str(DATA.absolute() / "gemini" / "extensions" / "weather")


def test_codex_config_toml() -> None:
    cf = config(scan("codex", {"DOCS_TOKEN": "dt", "GITHUB_PERSONAL_ACCESS_TOKEN": "gp"}), ".codex/config.toml")
    d = declared(cf)
    assert [(n, x.location.line) for n, x in d.items()] == [
        ("github", 4),
        ("docs", 12),
        ("supabase", 17),
        ("leaky", 23),
        ("time", 28),
    ]
    assert d["github"].template == T(
        "stdio",
        "node",
        ("./.ai/mcp/launchers/github.mjs",),
        env_names=("LOG_LEVEL", "GITHUB_PERSONAL_ACCESS_TOKEN"),
    )
    assert d["github"].resolved is not None
    assert d["github"].resolved.env == {"LOG_LEVEL": "warn", "GITHUB_PERSONAL_ACCESS_TOKEN": "gp"}
    assert d["docs"].template == T(
        "http", url="https://developers.openai.com/mcp", env_names=("DOCS_TOKEN",), header_names=("Authorization",)
    )
    assert d["docs"].resolved is not None
    assert d["docs"].resolved.headers == {"Authorization": "Bearer dt"}
    assert d["supabase"].template == T(
        "http",
        url="https://mcp.supabase.com/mcp?project_ref=abcd1234",
        env_names=("SUPABASE_KEY",),
        header_names=("X-Client", "X-Api-Key"),
    )
    assert d["supabase"].disabled is True
    assert "set environment variable SUPABASE_KEY" in d["supabase"].errors[0].message
    assert d["leaky"].template is None
    assert "inline `bearer_token`" in d["leaky"].errors[0].message
    # No interpolation in Codex: ${TZ} is passed through, and flagged.
    assert d["time"].template == T("stdio", "uvx", ("mcp-server-time", "--local-timezone=${TZ}"))
    assert codes(d["time"].problems) == [("warning", "literal-placeholder", 28)]


def test_codex_env_vars_that_are_unset_are_not_forwarded() -> None:
    github = declared(config(scan("codex"), ".codex/config.toml"))["github"]
    assert github.resolved is not None
    assert github.resolved.env == {"LOG_LEVEL": "warn"}


def test_zed_context_servers() -> None:
    cf = config(scan("zed"), ".zed/settings.json")
    assert cf.problems == []
    d = declared(cf)
    assert d["postgres"].template == T(
        "stdio", "npx", ("-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb")
    )
    # The older shape nests path/args/env under `command`.
    assert d["git"].template == T("stdio", "uvx", ("mcp-server-git", "--repository", "."), env_names=("GIT_TRACE",))
    assert d["mcp-server-context7"].template is None
    assert codes(d["mcp-server-context7"].problems) == [("warning", "not-launchable", 23)]
    assert d["remote"].template == T("http", url="https://mcp.example.com/mcp", header_names=("Authorization",))
    assert [x.location.line for x in d.values()] == [9, 15, 23, 28]


def test_continue_yaml_blocks_and_json() -> None:
    discovery = scan("continue", {"GITHUB_TOKEN": "gh"}, inputs={"team": "core"})
    assert [cf.path for cf in discovery.files] == [
        ".continue/mcpServers/playwright.yaml",
        ".continue/mcpServers/sqlite.json",
    ]
    yaml_file = config(discovery, ".continue/mcpServers/playwright.yaml")
    d = declared(yaml_file)
    assert [(n, x.location.line) for n, x in d.items()] == [
        ("Browser search", 5),
        ("GitHub", 9),
        ("Docs", 15),
        ("anthropic/memory-mcp", 18),
    ]
    assert d["Browser search"].template == T("stdio", "npx", ("@playwright/mcp@latest",))
    assert d["GitHub"].template == T("stdio", "docker", GITHUB_DOCKER, env_names=("GITHUB_PERSONAL_ACCESS_TOKEN",))
    assert d["GitHub"].resolved is not None
    assert d["GitHub"].resolved.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "gh"}
    assert d["Docs"].template == T("http", url="https://docs.example.com/mcp?team=${input:team}")
    assert d["Docs"].resolved is not None
    assert d["Docs"].resolved.url == "https://docs.example.com/mcp?team=core"
    assert codes(d["anthropic/memory-mcp"].problems) == [("warning", "not-launchable", 18)]
    (sqlite,) = config(discovery, ".continue/mcpServers/sqlite.json").declarations
    assert sqlite.template == T("stdio", "uvx", ("mcp-server-sqlite", "--db-path", "./data/app.db"))


def test_continue_secret_missing_from_environment() -> None:
    github = declared(config(scan("continue"), ".continue/mcpServers/playwright.yaml"))["GitHub"]
    assert github.resolved is None
    assert github.errors[0].message.endswith("set environment variable GITHUB_TOKEN")


def test_opencode_both_layouts() -> None:
    discovery = scan("opencode", {"FS_TOKEN": "fs", "SUPABASE_PROJECT": "p1", "SUPABASE_TOKEN": "st"})
    one = declared(config(discovery, "opencode.jsonc"))
    assert [(n, x.location.line) for n, x in one.items()] == [("filesystem", 6), ("supabase", 15), ("split", 21)]
    assert one["filesystem"].template == T(
        "stdio",
        "npx",
        ("-y", "@modelcontextprotocol/server-filesystem", "./src"),
        env_names=("LOG_LEVEL", "FS_TOKEN"),
    )
    assert one["filesystem"].resolved is not None
    assert one["filesystem"].resolved.env == {"LOG_LEVEL": "info", "FS_TOKEN": "fs"}
    assert one["supabase"].template == T(
        "http", url="https://mcp.supabase.com/mcp?project_ref=${env:SUPABASE_PROJECT}", header_names=("Authorization",)
    )
    assert one["supabase"].disabled is True
    assert one["supabase"].resolved is not None
    assert one["supabase"].resolved.url == "https://mcp.supabase.com/mcp?project_ref=p1"
    assert one["split"].template is None
    assert [p.message for p in one["split"].problems] == [
        "server 'split': `command` must be an array: opencode takes the whole argv in `command`"
    ]
    two = config(discovery, ".opencode/opencode.json")
    assert [(d.name, d.location.line, d.template) for d in two.declarations] == [
        ("time", 4, T("stdio", "uvx", ("mcp-server-time",))),
        ("git", 6, T("stdio", "uvx", ("mcp-server-git",))),
    ]


def test_registry_server_json_launch_rule() -> None:
    discovery = scan(
        "registry", {"WEATHER_API_KEY": "wk"}, inputs={"data_dir": "/d", "tenant_id": "t1", "api_key": "ak"}
    )
    assert [cf.path for cf in discovery.files] == [".mcp/server.json"]  # mocks/server.json is json-server data
    d = declared(config(discovery, ".mcp/server.json"))
    base = "io.github.acme/weather"
    assert [(n, x.location.line) for n, x in d.items()] == [
        (f"{base}#nuget", 8),
        (f"{base}#oci", 24),
        (f"{base}#pypi", 32),
        (f"{base}#remote", 46),
    ]
    assert d[f"{base}#nuget"].template == T(
        "stdio",
        "dnx",
        ("Acme.WeatherMcp@0.4.0", "--", "mcp", "start"),
        env_names=("WEATHER_UNITS", "WEATHER_API_KEY", "WEATHER_DEBUG"),
    )
    nuget = d[f"{base}#nuget"].resolved
    assert nuget is not None
    assert nuget.env == {"WEATHER_UNITS": "metric", "WEATHER_API_KEY": "wk"}  # optional WEATHER_DEBUG unset
    assert d[f"{base}#oci"].template == T(
        "stdio", "docker", ("run", "-i", "--rm", "-e", "WEATHER_API_KEY", "ghcr.io/acme/weather-mcp:0.4.0")
    )
    assert d[f"{base}#pypi"].template == T(
        "stdio", "uvx", ("acme-weather-mcp@0.4.0", "--units", "${input:units}", "--verbose", "${input:data_dir}")
    )
    pypi = d[f"{base}#pypi"].resolved
    assert pypi is not None
    assert pypi.args == ("acme-weather-mcp@0.4.0", "--units", "metric", "--verbose", "/d")
    assert d[f"{base}#remote"].template == T(
        "http", url="https://${input:tenant_id}.weather.acme.dev/mcp", header_names=("Authorization",)
    )
    remote = d[f"{base}#remote"].resolved
    assert remote == ResolvedLaunch(
        "http", url="https://t1.weather.acme.dev/mcp", headers={"Authorization": "Bearer ak"}
    )


def test_registry_required_values_without_defaults() -> None:
    d = declared(config(scan("registry"), ".mcp/server.json"))
    assert d["io.github.acme/weather#nuget"].errors[0].message.endswith("set environment variable WEATHER_API_KEY")
    remote_errors = d["io.github.acme/weather#remote"].errors
    assert [p.code for p in remote_errors] == ["unresolved-input"]
    assert "input 'tenant_id'" in remote_errors[0].message and "input 'api_key'" in remote_errors[0].message


def test_mcpb_manifest() -> None:
    discovery = scan("mcpb", inputs={"api_key": "secret"})
    assert [cf.path for cf in discovery.files] == ["mcpb/manifest.json"]  # web/manifest.json is a web app's
    (bundle,) = config(discovery, "mcpb/manifest.json").declarations
    assert (bundle.name, bundle.client, bundle.location.line) == ("acme-files", "mcpb", 12)
    assert bundle.template == T(
        "stdio",
        "node",
        ("${workspaceFolder}/mcpb/server/index.js", "--root", "${input:root_dir}"),
        env_names=("ACME_API_KEY", "LOG_DIR"),
        env=(("ACME_API_KEY", "${input:api_key}"), ("LOG_DIR", "${userHome}/Library/Logs/acme")),
    )
    assert bundle.resolved is not None
    # user_config defaults apply when no input is given, with their own ${HOME} resolved.
    assert bundle.resolved.args[1:] == ("--root", f"{HOME}/Documents")
    assert bundle.resolved.env == {"ACME_API_KEY": "secret", "LOG_DIR": f"{HOME}/Library/Logs/acme"}


def test_windsurf_project_file_is_not_read_by_windsurf() -> None:
    cf = config(scan("windsurf", {"FIGMA_TOKEN": "f"}), ".windsurf/mcp_config.json")
    assert [(p.code, p.message) for p in cf.problems] == [
        (
            "not-read",
            "not read by Windsurf (it only reads the user-level file ~/.codeium/windsurf/mcp_config.json)",
        )
    ]
    d = declared(cf)
    assert d["figma"].template == T("http", url="https://figma.example.com/mcp", header_names=("Authorization",))
    assert d["figma"].resolved is not None
    assert d["figma"].resolved.headers == {"Authorization": "Bearer f"}
    assert d["local"].disabled is True


def test_env_values_are_recorded_as_templates() -> None:
    """What identity and the lock hold per variable: the template as declared, a literal secret only as digest."""
    cf = config(scan("claude", {"GITHUB_TOKEN": "ghp_1", "API_KEY": "k"}), ".mcp.json")
    github = declared_with_env(cf)["github"].template
    assert github is not None
    assert github.env == (("GITHUB_PERSONAL_ACCESS_TOKEN", "${env:GITHUB_TOKEN}"),)  # placeholder kept, unresolved
    codex = config(scan("codex", {"DOCS_TOKEN": "dt", "GITHUB_PERSONAL_ACCESS_TOKEN": "gp"}), ".codex/config.toml")
    launcher = declared_with_env(codex)["github"].template
    assert launcher is not None
    # env_vars: forwarded from the caller's environment, recorded as the placeholder it amounts to
    forwarded = ("GITHUB_PERSONAL_ACCESS_TOKEN", "${env:GITHUB_PERSONAL_ACCESS_TOKEN}")
    assert launcher.env == (forwarded, ("LOG_LEVEL", "warn"))


def test_literal_secret_env_value_enters_only_as_a_digest() -> None:
    from scanner.model.secret_values import recorded_env_value

    assert recorded_env_value("MODE", "rw") == "rw"
    assert recorded_env_value("API_KEY", "${env:API_KEY}") == "${env:API_KEY}"
    recorded = recorded_env_value("API_KEY", "hunter2hunter2")
    assert recorded.startswith("sha256:") and "hunter2" not in recorded
    token = "ghp_0123456789abcdefABCDEF"
    assert recorded_env_value("X", token) != recorded_env_value("X", token + "G")
