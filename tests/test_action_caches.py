"""action/caches.py: the npm download cache the action keeps is keyed by the lock's npm tree digests and, once
restored, holds only the lock's tarballs."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "action"))
import caches  # noqa: E402


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def content_path(folder: Path, data: bytes) -> Path:
    hexed = hashlib.sha512(data).hexdigest()
    return folder / "sha512" / hexed[:2] / hexed[2:4] / hexed[4:]


def lock(tmp_path: Path, trees: dict[str, list[bytes]], manager: str = "npm") -> Path:
    servers = {
        name: {"launch": {"tree": {"manager": manager, "digest": "sha256:" + hashlib.sha256(name.encode()).hexdigest(),
                                   "packages": [{"name": f"p{i}", "version": "1.0.0", "integrity": integrity(t)}
                                                for i, t in enumerate(tarballs)]}}}
        for name, tarballs in trees.items()
    }
    path = tmp_path / "mcp-lock.json"
    path.write_text(json.dumps({"lockfileVersion": 4, "servers": servers}), encoding="utf-8")
    return path


def test_the_key_follows_the_npm_tree_digests_only(tmp_path: Path) -> None:
    one = caches.key(str(lock(tmp_path, {"a": [b"x"], "b": [b"y"]})))
    assert len(one) == 32 and one == caches.key(str(lock(tmp_path, {"b": [b"y"], "a": [b"z"]})))  # digests, not order
    assert caches.key(str(lock(tmp_path, {"a": [b"x"], "c": [b"y"]}))) != one
    assert caches.key(str(lock(tmp_path, {"a": [b"x"]}, manager="uv"))) == "none"  # uv's cache is never kept


def test_an_unreadable_malformed_or_linked_lock_keeps_nothing(tmp_path: Path) -> None:
    real = lock(tmp_path, {"a": [b"x"]})
    (tmp_path / "link.json").symlink_to(real)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    for name in ("link.json", "bad.json", "deep.json", "list.json", "missing.json"):
        assert caches.key(str(tmp_path / name)) == "none"
    folder = tmp_path / "content"
    content_path(folder, b"x").parent.mkdir(parents=True)
    content_path(folder, b"x").write_bytes(b"x")
    assert caches.prune(str(tmp_path / "link.json"), str(folder)) == 0
    assert not content_path(folder, b"x").exists()


def test_a_restored_cache_keeps_only_the_lock_s_tarballs(tmp_path: Path) -> None:
    path = lock(tmp_path, {"a": [b"tarball one", b"tarball two"]})
    folder = tmp_path / "content"
    wanted = content_path(folder, b"tarball one")
    stranger = content_path(folder, b"some other package")
    for file, data in ((wanted, b"tarball one"), (stranger, b"x")):
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    linked = content_path(folder, b"tarball two")
    linked.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "elsewhere").write_bytes(b"tarball two")
    linked.symlink_to(tmp_path / "elsewhere")  # a link in the cache's place is never read through
    (folder / "sha512" / "00").mkdir()
    (folder / "sha512" / "00" / "ab").symlink_to(tmp_path, target_is_directory=True)
    assert caches.prune(str(path), str(folder)) == 1
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink())
    assert files == [wanted.relative_to(folder).as_posix()]
    assert (tmp_path / "elsewhere").exists()  # what a link pointed at is left alone


def test_the_store_key_follows_every_tree_digest_and_the_verdicts_key_the_lock(tmp_path: Path) -> None:
    npm = caches.key(str(lock(tmp_path, {"a": [b"x"]})), ("npm", "uv"))
    uv = caches.key(str(lock(tmp_path, {"a": [b"x"]}, manager="uv")), ("npm", "uv"))
    assert npm == uv != "none"  # the same digests, whichever manager: the store keeps both
    assert caches.key(str(lock(tmp_path, {"a": [b"x"]}, manager="pnpm")), ("npm", "uv")) == "none"
    one = caches.lock_digest(str(lock(tmp_path, {"a": [b"x"]})))
    assert one != caches.lock_digest(str(lock(tmp_path, {"a": [b"y"]}))) and len(one) == 32
    assert caches.lock_digest(str(tmp_path / "missing.json")) == "none"


def test_a_restored_verdict_folder_keeps_only_verdict_files(tmp_path: Path) -> None:
    folder = tmp_path / "verdicts"
    folder.mkdir(mode=0o755)
    kept = [f"clean-{'a' * 32}.bin", f"canonical-{'b' * 32}.bin"]
    for name in (*kept, "verdict-key", f"clean-{'a' * 31}.bin", "notes.txt"):
        (folder / name).write_bytes(b"x")
    (folder / "sub").mkdir()
    (folder / "sub" / kept[0]).write_bytes(b"x")
    (tmp_path / "elsewhere").write_bytes(b"outside")
    (folder / f"clean-{'c' * 32}.bin").symlink_to(tmp_path / "elsewhere")  # a link is never kept, never followed
    assert caches.prune_verdicts(str(folder)) == 2
    assert sorted(p.name for p in folder.iterdir()) == sorted(kept)
    assert folder.stat().st_mode & 0o777 == 0o700 and (tmp_path / "elsewhere").read_bytes() == b"outside"
    (tmp_path / "linked").symlink_to(tmp_path / "verdicts", target_is_directory=True)
    assert caches.prune_verdicts(str(tmp_path / "linked")) == 0 and not (tmp_path / "linked").exists()
    assert (folder / kept[0]).exists()  # what the link pointed at is left alone


def test_a_restored_store_keeps_only_the_entries_of_the_lock_s_trees(tmp_path: Path) -> None:
    path = lock(tmp_path, {"a": [b"x"]})
    digest = json.loads(path.read_text(encoding="utf-8"))["servers"]["a"]["launch"]["tree"]["digest"]
    store = tmp_path / "store"
    ours, other, staging = store / digest.removeprefix("sha256:"), store / ("0" * 64), store / ".staging-x"
    for folder in (ours, other, staging, store / ".used"):
        folder.mkdir(parents=True)
        (folder / "file").write_bytes(b"x")
    other.chmod(0o555)  # read-only, as store entries are
    (store / ("1" * 64)).symlink_to(ours, target_is_directory=True)
    assert caches.prune_store(str(path), str(store)) == 1
    assert sorted(p.name for p in store.iterdir()) == [ours.name]


@pytest.mark.parametrize(("event", "ref", "trusted"), [
    ("push", "refs/heads/main", "true"),
    ("workflow_dispatch", "refs/heads/main", "true"),
    ("schedule", "refs/heads/main", "true"),  # runs on the default branch only; its event names no repository
    ("push", "refs/heads/feature", "false"),
    ("workflow_dispatch", "refs/heads/feature", "false"),
    ("pull_request", "refs/pull/7/merge", "false"),
    ("pull_request_target", "refs/heads/main", "false"),  # runs on the base, for a pull request's head
    ("issue_comment", "refs/heads/main", "false"),
    ("workflow_run", "refs/heads/main", "false"),
    ("merge_group", "refs/heads/gh-readonly-queue/main/pr-7", "false"),
])
def test_only_the_default_branch_s_own_runs_save_the_verdicts_and_the_store(
    tmp_path: Path, event: str, ref: str, trusted: str
) -> None:
    """The `kept` step of action.yml, run by bash as the runner runs it (with this venv as mcp-lock's), decides
    who saves."""
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "kept"]
    (tmp_path / "repo").mkdir()
    output = tmp_path / "output"
    output.write_text("", encoding="utf-8")
    venv = Path(sys.executable).parent.parent
    env = {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(tmp_path), "GITHUB_ACTION_PATH": str(ROOT),
           "GITHUB_OUTPUT": str(output), "MCPL_PYTHON": sys.executable, "MCPL_VENV": str(venv),
           "MCPL_REPO": str(tmp_path / "repo"), "MCPL_LOCKFILE": "", "MCPL_OFFLINE": "false", "MCPL_EVENT": event,
           "MCPL_REF": ref, "MCPL_DEFAULT_BRANCH": "" if event == "schedule" else "main"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    assert outputs["trusted"] == trusted
    assert outputs["trees"] == "none" and outputs["verdicts-key"].startswith(outputs["verdicts-prefix"])
