"""Placeholder families: one canonical spelling, and resolution by each client's own rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.sources import interpolate as ip
from scanner.sources.interpolate import Context, InterpolationError, literal_placeholders, normalise, resolve

WORKSPACE = Path("/repo/shop")
CTX = Context(
    environ={"HOME": "/home/ci", "TOKEN": "t0k", "EMPTY": ""},
    workspace=WORKSPACE,
    inputs={"yt-key": "yk", "team": "core", "root_dir": "/data"},
    here="tools/ext",
)


@pytest.mark.parametrize(
    ("family", "text", "expected"),
    [
        # Claude Code / Kiro: ${VAR}, ${VAR:-default}; bare $VAR is text.
        ("claude-code", "Bearer ${API_KEY}", "Bearer ${env:API_KEY}"),
        (
            "claude-code",
            "${API_BASE_URL:-https://api.example.com}/mcp",
            "${env:API_BASE_URL:-https://api.example.com}/mcp",
        ),
        ("claude-code", "${A:-${B}}", "${env:A:-${env:B}}"),
        ("claude-code", "${CLAUDE_PROJECT_DIR:-.}/run.py", "${workspaceFolder}/run.py"),
        ("claude-code", "${HOME}/.cache $HOME", "${userHome}/.cache $HOME"),
        ("claude-code", "${HOME:-/tmp}", "${env:HOME:-/tmp}"),
        ("claude-code", "${env:X} ${not a name}", "${env:X} ${not a name}"),
        (
            "kiro",
            "${workspaceFolder}/dist ${AWS_PROFILE:-default}",
            "${workspaceFolder}/dist ${env:AWS_PROFILE:-default}",
        ),
        # Gemini: also bare $VAR.
        ("gemini", "$GITHUB_PAT and ${X} $1 $", "${env:GITHUB_PAT} and ${env:X} $1 $"),
        ("gemini", "$HOME/tools", "${userHome}/tools"),
        ("gemini-extension", "${extensionPath}${/}dist", "${workspaceFolder}/tools/ext${pathSeparator}dist"),
        ("gemini-extension", "${workspacePath} ${pathSeparator}", "${workspaceFolder} ${pathSeparator}"),
        # VS Code, Cursor, Windsurf.
        ("vscode", "${env:TOKEN}", "${env:TOKEN}"),
        ("vscode", "${env:HOME}/.npmrc ${env:HOME_DIR}", "${userHome}/.npmrc ${env:HOME_DIR}"),
        (
            "vscode",
            "${workspaceFolder}/a ${workspaceFolderBasename}",
            "${workspaceFolder}/a ${workspaceFolderBasename}",
        ),
        ("vscode", "${userHome}${/}x ${input:yt-key}", "${userHome}${pathSeparator}x ${input:yt-key}"),
        ("vscode", "${GITHUB_TOKEN} ${config:editor.tabSize}", "${GITHUB_TOKEN} ${config:editor.tabSize}"),
        # opencode.
        ("opencode", "Bearer {env:SUPABASE_TOKEN}", "Bearer ${env:SUPABASE_TOKEN}"),
        ("opencode", "{file:key.txt} {file:~/k} {json}", "${file:tools/ext/key.txt} ${file:~/k} {json}"),
        # Continue.
        ("continue", "${{ secrets.GITHUB_TOKEN }}", "${secret:GITHUB_TOKEN}"),
        ("continue", "team=${{inputs.team}} ${X}", "team=${input:team} ${X}"),
        # MCPB.
        ("mcpb", "${__dirname}/server/index.js", "${workspaceFolder}/tools/ext/server/index.js"),
        ("mcpb", "${user_config.api_key} ${HOME}/x ${DESKTOP}", "${input:api_key} ${userHome}/x ${userHome}/Desktop"),
        # server.json variables.
        ("registry", "https://{tenant_id}.acme.dev/{x y}", "https://${input:tenant_id}.acme.dev/{x y}"),
        # Codex and the other clients without interpolation: nothing changes.
        ("none", "${A} $B {env:C} ${env:D}", "${A} $B {env:C} ${env:D}"),
    ],
)
def test_normalise(family: str, text: str, expected: str) -> None:
    assert normalise(text, family, here="tools/ext") == expected


def test_the_same_launch_written_for_two_clients_normalises_equal() -> None:
    claude = normalise("--token=${GITHUB_TOKEN} --root=${CLAUDE_PROJECT_DIR:-.}", "claude-code")
    cursor = normalise("--token=${env:GITHUB_TOKEN} --root=${workspaceFolder}", "vscode")
    opencode = normalise("--token={env:GITHUB_TOKEN} --root=${workspaceFolder}", "opencode")
    assert claude == cursor
    assert cursor.split()[0] == opencode.split()[0]


@pytest.mark.parametrize(
    ("family", "text", "expected"),
    [
        ("claude-code", "Bearer ${TOKEN}", "Bearer t0k"),
        ("claude-code", "${UNSET:-fallback}/mcp", "fallback/mcp"),
        ("claude-code", "${UNSET:-${TOKEN}}", "t0k"),
        ("claude-code", "${EMPTY:-x}", ""),  # Claude Code uses the default only when unset
        ("claude-code", "$TOKEN", "$TOKEN"),
        ("claude-code", "${CLAUDE_PROJECT_DIR:-.}/a", "/repo/shop/a"),
        ("gemini", "$TOKEN-${UNSET}-$ALSO_UNSET.", "t0k--."),
        ("gemini-extension", "${extensionPath}${/}run", "/repo/shop/tools/ext" + os.sep + "run"),
        ("vscode", "${env:TOKEN} ${workspaceFolderBasename} ${userHome}", "t0k shop /home/ci"),
        ("vscode", "${input:yt-key}", "yk"),
        ("vscode", "${GITHUB_TOKEN}", "${GITHUB_TOKEN}"),
        ("opencode", "{env:TOKEN}", "t0k"),
        ("continue", "${{ secrets.TOKEN }} ${{ inputs.team }}", "t0k core"),
        (
            "mcpb",
            "${__dirname}/i.js ${user_config.root_dir} ${DOCUMENTS}",
            "/repo/shop/tools/ext/i.js /data /home/ci/Documents",
        ),
        ("none", "${TOKEN}", "${TOKEN}"),
    ],
)
def test_resolve(family: str, text: str, expected: str) -> None:
    assert resolve(text, family, CTX) == expected


def test_resolve_collects_every_missing_name_with_how_to_supply_it() -> None:
    with pytest.raises(InterpolationError) as err:
        resolve("${env:GITHUB_TOKEN} ${input:api-key} ${env:OTHER} ${env:GITHUB_TOKEN}", "vscode", CTX)
    assert [(m.kind, m.name) for m in err.value.missing] == [
        ("env", "GITHUB_TOKEN"),
        ("input", "api-key"),
        ("env", "OTHER"),
    ]
    assert str(err.value) == (
        "cannot resolve: set environment variable GITHUB_TOKEN; "
        "give a value for input 'api-key' under `inputs:` in mcp-lock.yaml; set environment variable OTHER"
    )


def test_a_continue_secret_missing_from_the_environment_names_the_variable() -> None:
    with pytest.raises(InterpolationError, match="set environment variable NPM_TOKEN"):
        resolve("${{ secrets.NPM_TOKEN }}", "continue", CTX)


def test_gemini_leaves_no_error_for_unset_variables_but_claude_does() -> None:
    assert resolve("${UNSET}", "gemini", CTX) == ""
    with pytest.raises(InterpolationError, match="UNSET"):
        resolve("${UNSET}", "claude-code", CTX)


def test_user_home_needs_home_in_the_environment() -> None:
    ctx = Context(environ={}, workspace=WORKSPACE)
    with pytest.raises(InterpolationError, match="set environment variable HOME"):
        resolve("${userHome}/x", "vscode", ctx)


def test_opencode_file_placeholders_read_files_next_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "key.txt").write_text("secret-value\n", encoding="utf-8")
    ctx = Context(environ={}, workspace=tmp_path, here="cfg")
    assert resolve("Bearer {file:key.txt}", "opencode", ctx) == "Bearer secret-value"
    with pytest.raises(InterpolationError, match=r"create the file cfg/missing\.txt"):
        resolve("{file:missing.txt}", "opencode", ctx)


def test_literal_placeholders_flag_copy_pasted_claude_syntax() -> None:
    assert literal_placeholders("--token ${NOTES_TOKEN} ${env:OK} ${A:-b}", "vscode") == ["${NOTES_TOKEN}", "${A:-b}"]
    assert literal_placeholders("${NOTES_TOKEN}", "claude-code") == []
    assert literal_placeholders("--tz=${TZ}", "none") == ["${TZ}"]


FAMILIES = sorted(ip.FAMILIES)
# Text made mostly of placeholder syntax, so the fuzzing reaches the interesting paths.
syntax = st.text(
    alphabet=st.sampled_from(list("${}:-._ env:input:secrets.workspaceFolder/HOME__dirname")) | st.characters()
)


@settings(max_examples=300)
@given(syntax, st.sampled_from(FAMILIES))
def test_never_raises_anything_but_its_own_error(text: str, family: str) -> None:
    normalise(text, family, here="a/b")
    try:
        resolve(text, family, Context(environ={"A": "1"}, workspace=Path("/nonexistent-ws"), inputs={"x": "y"}))
    except InterpolationError as err:
        assert err.missing


@given(st.text(alphabet=st.characters(blacklist_characters="${")), st.sampled_from(FAMILIES))
def test_text_without_placeholder_syntax_is_unchanged(text: str, family: str) -> None:
    assert normalise(text, family) == text
    assert resolve(text, family, CTX) == text
