"""Issue 36, item 4: under `check --base` the registry a new release is asked about is the merge base's.

The attack: the change gives a pinned launch `npm_config_registry` of its own (a registry that answers "old
enough, no install scripts" for anything); the release screens asked it. Now they ask the registry the base's
declaration names, and for a server the base does not declare, mcp-lock's own.
"""

from __future__ import annotations

from pathlib import Path

from scanner.run.outcome import Outcome
from scanner.run.release_check import registry_env
from scanner.run.workspace import Workspace, open_workspace

CHANGE = "http://127.0.0.1:9/the-change-s-registry/"
BASE = "http://127.0.0.1:9/the-base-s-registry/"


def _workspace(tmp_path: Path) -> Workspace:
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"mail": {"command": "npx", "args": ["-y", "mailpkg@1.0.1"], '
        f'"env": {{"npm_config_registry": "{CHANGE}"}}}}}}}}',
        encoding="utf-8",
    )
    return open_workspace(tmp_path, None, {})


def test_under_base_the_registry_is_the_base_s(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    outcome = Outcome(findings=[])
    outcome.base_pins = {}
    outcome.base_envs = {"mail": {"npm_config_registry": BASE}}
    assert registry_env(workspace, outcome, "mail") == {"npm_config_registry": BASE}
    outcome.base_envs = {}  # not declared at the base: no declared registry at all
    assert registry_env(workspace, outcome, "mail") == {}


def test_without_base_the_declaration_names_it(tmp_path: Path) -> None:
    """The control: a plain `check` asks the registry the launch fetches from."""
    assert registry_env(_workspace(tmp_path), Outcome(findings=[]), "mail") == {"npm_config_registry": CHANGE}
