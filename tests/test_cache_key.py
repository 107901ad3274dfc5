"""scanner/files/cache_key.py: a key the caller gives on a file descriptor authenticates the verdicts and the store
across runners (what CI restores from a cache), and whoever can write the folders but not read the key can only
cost time: a planted `verdict-key`, a forged verdict file, a store entry resealed or rewritten are all redone."""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scanner.files import cache_key
from scanner.files.kept import SECRET_FILE, Kept
from scanner.install import store, verify

ROOT = Path(__file__).resolve().parent.parent
KEY = b"0123456789abcdef0123456789abcdef-repository-secret"
ENTRY = hashlib.sha256(b"a pinned definition").digest()
TREE = {"manager": "npm", "digest": "sha256:" + "ab" * 32, "packages": []}


def key_fd(data: bytes) -> int:
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return read


@pytest.fixture
def given() -> Iterator[None]:
    """mcp-lock started with KEY on a descriptor, as the action starts it."""
    environ = {cache_key.FD_ENV: str(key_fd(KEY))}
    cache_key.load(environ)
    assert environ == {}  # the variable is dropped: nothing mcp-lock starts sees it
    yield
    cache_key.forget()


def private(folder: Path) -> Path:
    folder.mkdir(mode=0o700, parents=True)
    return folder


def test_the_key_is_read_once_and_its_descriptor_closed() -> None:
    fd = key_fd(KEY + b"\n")
    try:
        cache_key.load({cache_key.FD_ENV: str(fd)})
        verdicts, sealed = cache_key.derived(cache_key.VERDICTS), cache_key.derived(cache_key.STORE)
        assert verdicts and sealed and verdicts != sealed and KEY not in (verdicts, sealed)
        assert verdicts == hmac.digest(KEY, b"mcp-lock cache key v1\0verdicts", hashlib.sha256)  # newline stripped
        with pytest.raises(OSError):
            os.fstat(fd)
    finally:
        cache_key.forget()
    assert cache_key.derived(cache_key.VERDICTS) is None
    cache_key.load({})
    assert cache_key.derived(cache_key.STORE) is None  # no key given: the runner's own keys, as before


@pytest.mark.parametrize("value", ["0", "2", "x", "-5"])
def test_a_descriptor_that_is_not_one_is_an_error(value: str) -> None:
    with pytest.raises(cache_key.CacheKeyError):
        cache_key.load({cache_key.FD_ENV: value})


def test_a_short_or_unreadable_key_is_an_error_never_a_run_without_one() -> None:
    with pytest.raises(cache_key.CacheKeyError, match="fewer than 32"):
        cache_key.load({cache_key.FD_ENV: str(key_fd(b"short\n"))})
    closed = key_fd(KEY)
    os.close(closed)
    with pytest.raises(cache_key.CacheKeyError, match="could not be read"):
        cache_key.load({cache_key.FD_ENV: str(closed)})
    assert cache_key.derived(cache_key.VERDICTS) is None


def test_mcp_lock_refuses_a_short_key_with_exit_code_2(tmp_path: Path) -> None:
    fd = key_fd(b"too short")
    env = {**os.environ, cache_key.FD_ENV: str(fd), "HOME": str(tmp_path)}
    try:
        done = subprocess.run([sys.executable, "-m", "scanner", "list", "--repo", str(tmp_path)], cwd=ROOT, env=env,
                              pass_fds=(fd,), capture_output=True, text=True, timeout=60)
    finally:
        os.close(fd)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "mcp-lock: error: MCP_LOCK_CACHE_KEY_FD" in done.stderr and "too short" not in done.stderr


def test_verdicts_kept_under_a_given_key_are_used_on_another_runner(given: None, tmp_path: Path) -> None:
    first = private(tmp_path / "runner-1")
    kept = Kept(first, None, "clean", b"k" * 32)
    kept.add(ENTRY)
    kept.save()
    assert not (first / SECRET_FILE).exists()  # nothing the cache would carry authenticates it
    assert not any(KEY in p.read_bytes() or cache_key.derived(cache_key.VERDICTS) in p.read_bytes()
                   for p in first.iterdir())
    restored = tmp_path / "runner-2"
    shutil.copytree(first, restored)
    assert ENTRY in Kept(restored, None, "clean", b"k" * 32)


def test_a_planted_verdict_key_and_a_file_forged_with_it_are_not_used(given: None, tmp_path: Path) -> None:
    """Whoever writes the cache plants a `verdict-key` of theirs and a "clean" file sealed with it: under the
    given key neither is used, and the definition is scanned."""
    folder = private(tmp_path / "restored")
    planted = os.urandom(32)
    (folder / SECRET_FILE).write_bytes(planted)
    (folder / SECRET_FILE).chmod(0o600)
    cache_key.forget()  # the forger's own run: no key given, so the planted secret is the one in the folder
    forged = Kept(folder, None, "clean", b"k" * 32)
    forged.add(ENTRY)
    forged.save()
    assert ENTRY in Kept(folder, None, "clean", b"k" * 32)  # as the runner's own key, it would be believed
    cache_key.load({cache_key.FD_ENV: str(key_fd(KEY))})
    assert ENTRY not in Kept(folder, None, "clean", b"k" * 32)


def install_entry(root: Path, name: str = "server.js", data: bytes = b"console.log('reviewed')\n") -> Path:
    folder = store.staging(root)
    (folder / name).write_bytes(data)
    return store.publish(root, folder, TREE, verify.seal_key({"HOME": str(root.parent / "home")}))


def test_a_store_entry_sealed_under_a_given_key_boots_on_another_runner(given: None, tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_entry(tmp_path / "store-1")
    assert not (verify.state_folder({"HOME": str(home)}) / "store.key").exists()
    assert not any(KEY in p.read_bytes() or cache_key.derived(cache_key.STORE) in p.read_bytes()
                   for p in (tmp_path / "store-1").rglob("*") if p.is_file())
    shutil.copytree(tmp_path / "store-1", tmp_path / "store-2")  # new inodes and change times, as a restore
    assert store.ready_entry(tmp_path / "store-2", TREE, verify.seal_key({"HOME": str(home)})) is not None


def test_a_rewritten_or_resealed_restored_entry_is_removed_never_booted(given: None, tmp_path: Path) -> None:
    install_entry(tmp_path / "store-1")
    rewritten = tmp_path / "rewritten"
    shutil.copytree(tmp_path / "store-1", rewritten)
    (entry,) = [p for p in rewritten.iterdir() if not p.name.startswith(".")]
    entry.chmod(0o755)
    (entry / "server.js").chmod(0o644)
    (entry / "server.js").write_bytes(b"console.log('POISONED')\n")
    key = verify.seal_key({})
    assert store.ready_entry(rewritten, TREE, key) is None
    assert not entry.exists()
    # Resealed with a key of the forger's, contents and manifest agreeing: the seal is not the given key's.
    cache_key.forget()
    forged_root = tmp_path / "forged"
    forged_root.mkdir()
    folder = store.staging(forged_root)
    (folder / "server.js").write_bytes(b"console.log('POISONED')\n")
    store.publish(forged_root, folder, TREE, os.urandom(32))
    cache_key.load({cache_key.FD_ENV: str(key_fd(KEY))})
    assert store.ready_entry(forged_root, TREE, verify.seal_key({})) is None


def test_removing_a_restored_entry_never_changes_what_its_links_point_at(given: None, tmp_path: Path) -> None:
    """A restored entry holding a link to a folder outside the store fails its check and is removed: the
    folder it points at keeps its mode (no write bit added through the link)."""
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o555)
    install_entry(tmp_path / "store-1")
    restored = tmp_path / "restored"
    shutil.copytree(tmp_path / "store-1", restored)
    (entry,) = [p for p in restored.iterdir() if not p.name.startswith(".")]
    entry.chmod(0o755)
    (entry / "planted").symlink_to(outside, target_is_directory=True)
    assert store.ready_entry(restored, TREE, verify.seal_key({})) is None
    assert not entry.exists() and oct(outside.stat().st_mode & 0o777) == oct(0o555)
    outside.chmod(0o755)
