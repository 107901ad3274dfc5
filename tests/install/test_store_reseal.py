"""Two boots of one copied store entry reseal its manifest at once (scanner.install.store.reseal): neither may
fail, leave the entry writable, or leave a file in it that the next check would take for added content."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
from pathlib import Path

from scanner.install import verify
from scanner.install.npm_record import npm_tree
from scanner.install.store import publish, ready_entry, reseal, staging

KEY = b"k" * 32
ROUNDS = 300
LOCK = {"packages": {"node_modules/top": {"version": "1.0.0", "integrity": "sha512-AAAA"}}}


def _reseal_often(entry: str, sealed: bytes, start: multiprocessing.synchronize.Barrier) -> None:
    start.wait()
    for _ in range(ROUNDS):
        reseal(Path(entry), sealed)


def test_two_processes_resealing_one_entry_at_once_both_succeed_and_leave_it_sealed(tmp_path: Path) -> None:
    tree = npm_tree(LOCK)
    folder = staging(tmp_path)
    (folder / "node_modules" / "top").mkdir(parents=True)
    (folder / "node_modules" / "top" / "server.js").write_text("console.log(1)\n", encoding="utf-8")
    entry = publish(tmp_path, folder, tree, KEY)
    sealed = verify.sealed(verify.manifest(entry, tree["digest"]), KEY)
    context = multiprocessing.get_context("fork")
    start = context.Barrier(2)
    workers = [context.Process(target=_reseal_often, args=(str(entry), sealed, start)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0]  # neither raised (a read-only temporary of the other's)
    assert not os.stat(entry).st_mode & 0o222  # neither restored the other's writable mode
    assert sorted(os.listdir(entry)) == sorted(["node_modules", verify.MANIFEST])
    assert [n for n in os.listdir(tmp_path) if n.startswith(f".{entry.name}")] == []
    assert ready_entry(tmp_path, tree, KEY) == entry
