"""Issue 35, item 10: a launch mcp-lock cannot install itself (pnpm dlx, bunx, pipx run, deno run npm:) keeps
exactly one `code-unpinned` note, whether its runner is installed here or not."""

from __future__ import annotations

import pytest
from fixture_repo import Repo

LAUNCHES = {
    "pnpm-dlx": {"command": "pnpm", "args": ["dlx", "some-server@1.0.0"]},
    "bunx": {"command": "bunx", "args": ["some-server@1.0.0"]},
    "pipx": {"command": "pipx", "args": ["run", "some-server==1.0.0"]},
    "deno": {"command": "deno", "args": ["run", "npm:some-server@1.0.0"]},
}


@pytest.mark.parametrize("name", list(LAUNCHES))
def test_one_code_unpinned_note_per_launch(repo: Repo, name: str) -> None:
    repo.add_entry("other", LAUNCHES[name])
    lock = repo.run("lock")
    assert lock.output.count("[code-unpinned]") == 1, lock.output
