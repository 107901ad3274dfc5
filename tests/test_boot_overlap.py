"""While one booted server is pinned and judged (`on_result`), the others keep booting: the work runs off the loop."""

from __future__ import annotations

import threading

from fixture_repo import Repo

from scanner.run.boot import boot_servers
from scanner.run.workspace import open_workspace

GUARD = 60.0  # seconds: only so that the old behaviour fails instead of hanging (no timing is asserted)


def test_other_servers_finish_booting_while_a_result_is_judged(repo: Repo) -> None:
    """The first result's `on_result` holds until the other server's boot has finished (its progress line, which
    the loop prints). Were `on_result` run on the loop, that line could not come while it holds."""
    repo.add_stdio("alpha")
    repo.add_stdio("beta")
    workspace = open_workspace(repo.root, None)
    servers = workspace.discovery.servers
    finished: dict[str, threading.Event] = {s.key: threading.Event() for s in servers}
    seen_other: list[bool] = []

    def progress(line: str) -> None:
        for key, event in finished.items():
            if line.startswith((f"✓ {key}:", f"✗ {key}:")):  # its done line (scanner.run.boot_progress)
                event.set()

    def on_result(result) -> None:  # type: ignore[no-untyped-def]
        if not seen_other:  # the first result: wait for the other server to finish
            other = next(key for key in finished if key != result.key)
            seen_other.append(finished[other].wait(GUARD))

    results = boot_servers(servers, repo.root, workspace.policy, concurrency=2, progress=progress, on_result=on_result)
    assert sorted(results) == ["alpha", "beta"]
    assert all(result.snapshot is not None for result in results.values())
    assert seen_other == [True]
