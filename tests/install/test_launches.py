"""Which launches mcp-lock installs itself, and what it reads from them: the specs, the bin, the arguments."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import shutil
from pathlib import Path

import pytest

from scanner.install import store, verify
from scanner.install.npm_launch import NoBin, NpmLaunch, boot_argv, npm_launch
from scanner.install.npm_record import npm_files, npm_tree
from scanner.install.packages import TreeError, tree_changes
from scanner.install.store import publish, ready_entry, staging
from scanner.install.uv_launch import UvLaunch, uv_launch
from scanner.install.uv_record import requirements_text, uv_tree


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("npx", ["-y", "pkg@1.2.3", "--root", "."], NpmLaunch(("pkg@1.2.3",), None, ("--root", "."))),
        ("npx", ["--yes", "@scope/pkg"], NpmLaunch(("@scope/pkg",), None, ())),
        ("npx", ["-y", "-p", "a@1.0.0", "-p", "b", "a-bin", "x"], NpmLaunch(("a@1.0.0", "b"), "a-bin", ("x",))),
        ("npm", ["exec", "--package=pkg@2.0.0", "--", "srv", "-v"], NpmLaunch(("pkg@2.0.0",), "srv", ("-v",))),
        ("npx", ["-y", "--registry", "http://127.0.0.1:1/", "pkg"], NpmLaunch(("pkg",), None, ())),
    ],
)
def test_npm_launches_it_installs(command: str, args: list[str], expected: NpmLaunch) -> None:
    assert npm_launch(command, args) == expected


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("npx", ["-c", "echo hi"]),
        ("npx", ["-y", "./local-server"]),
        ("npx", ["-y", "git+https://example.invalid/x.git"]),
        ("npm", ["run", "server"]),
        ("pnpm", ["dlx", "pkg@1.0.0"]),
        ("bunx", ["pkg@1.0.0"]),
    ],
)
def test_npm_launches_it_leaves_as_declared(command: str, args: list[str]) -> None:
    assert npm_launch(command, args) is None


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("uvx", ["mcp-server-time==2025.9.25"], UvLaunch(("mcp-server-time==2025.9.25",), "mcp-server-time", ())),
        ("uvx", ["--with", "mcp<2", "srv==1.0", "--x"], UvLaunch(("srv==1.0", "mcp<2"), "srv", ("--x",))),
        ("uvx", ["--from", "pkg[cli]==1.0", "pkg-cli", "a"], UvLaunch(("pkg[cli]==1.0",), "pkg-cli", ("a",))),
        ("uv", ["tool", "run", "srv@1.2.3"], UvLaunch(("srv==1.2.3",), "srv", ())),
        ("uvx", ["--python", "3.12", "srv"], UvLaunch(("srv",), "srv", (), "3.12")),
    ],
)
def test_uv_launches_it_installs(command: str, args: list[str], expected: UvLaunch) -> None:
    assert uv_launch(command, args) == expected


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("uv", ["run", "server.py"]),
        ("pipx", ["run", "srv==1.0"]),
        ("uvx", ["--index-url", "http://x/", "srv"]),
        ("uvx", ["--python", "./tools/python", "srv"]),  # uv would run the repository's file to query it
    ],
)
def test_uv_launches_it_leaves_as_declared(command: str, args: list[str]) -> None:
    assert uv_launch(command, args) is None


def installed(tmp_path: Path, bins: object) -> Path:
    package = tmp_path / "node_modules" / "@scope" / "srv"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@scope/srv", "bin": bins}))
    return tmp_path


def test_the_bin_is_chosen_as_npx_chooses_it(tmp_path: Path) -> None:
    launch = NpmLaunch(("@scope/srv@1.0.0",), None, ("--flag",))
    entry = installed(tmp_path, {"helper": "a.js", "srv": "b.js"})
    assert boot_argv(entry, launch) == [str(entry / "node_modules" / ".bin" / "srv"), "--flag"]


def test_a_package_with_several_bins_none_named_after_it_has_none(tmp_path: Path) -> None:
    entry = installed(tmp_path, {"one": "a.js", "two": "b.js"})
    with pytest.raises(NoBin):
        boot_argv(entry, NpmLaunch(("@scope/srv",), None, ()))


LOCK = {
    "lockfileVersion": 3,
    "packages": {
        "": {"dependencies": {"top": "1.0.0"}},
        "node_modules/top": {"version": "1.0.0", "integrity": "sha512-AAAA", "hasInstallScript": True},
        "node_modules/dep": {"version": "2.0.0", "integrity": "sha512-BBBB"},
        "node_modules/top/node_modules/dep": {"version": "1.0.0", "integrity": "sha512-CCCC"},
    },
}


def test_the_npm_tree_records_every_package_with_its_integrity() -> None:
    tree = npm_tree(LOCK)
    assert tree["packages"] == [
        {"path": "node_modules/dep", "name": "dep", "version": "2.0.0", "integrity": "sha512-BBBB"},
        {
            "path": "node_modules/top", "name": "top", "version": "1.0.0", "integrity": "sha512-AAAA",
            "installScript": True,
        },
        {"path": "node_modules/top/node_modules/dep", "name": "dep", "version": "1.0.0", "integrity": "sha512-CCCC"},
    ]
    assert tree["digest"] == npm_tree(json.loads(json.dumps(LOCK)))["digest"]


def test_tree_changes_name_every_package() -> None:
    old = npm_tree(LOCK)
    lock = json.loads(json.dumps(LOCK))
    lock["packages"]["node_modules/dep"] = {"version": "2.1.0", "integrity": "sha512-DDDD"}
    lock["packages"]["node_modules/top"]["integrity"] = "sha512-EEEE"
    del lock["packages"]["node_modules/top/node_modules/dep"]
    lock["packages"]["node_modules/new"] = {"version": "0.1.0", "integrity": "sha512-FFFF"}
    lines = [change.line() for change in tree_changes(old, npm_tree(lock))]
    assert lines == [
        "dep: 2.0.0 → 2.1.0",
        "added new@0.1.0",
        "top@1.0.0: same version, other content: sha512-AAAA → sha512-EEEE",
        "removed dep (under top)@1.0.0",
    ]


def test_a_lock_entry_that_is_not_an_installed_package_is_refused() -> None:
    with pytest.raises(TreeError):
        npm_tree({"packages": {"../../etc": {"version": "1.0.0"}}})
    with pytest.raises(TreeError):
        npm_tree({"packages": {"node_modules/x": {"version": "1.0.0", "integrity": "md5-x y"}}})


def test_uv_tree_reads_hashed_requirements() -> None:
    text = (
        "mcp-server-time==2025.9.25 \\\n    --hash=sha256:" + "a" * 64 + " \\\n    --hash=sha256:" + "b" * 64 + "\n"
        "Tzdata==2025.2 \\\n    --hash=sha256:" + "c" * 64 + "\n"
    )
    tree = uv_tree(text)
    assert tree["manager"] == "uv"
    assert tree["packages"] == [
        {"name": "mcp-server-time", "version": "2025.9.25", "sha256": ["a" * 64, "b" * 64]},
        {"name": "tzdata", "version": "2025.2", "sha256": ["c" * 64]},
    ]
    later = uv_tree(text.replace("b" * 64, "d" * 64))  # another file added to the release: the same content
    assert tree_changes(tree, later) == []
    with pytest.raises(TreeError):
        uv_tree("pkg==1.0\n")  # no hash: nothing to verify the install against


def _entry(root: Path, tree: dict, key: bytes, text: str = "console.log(1)\n") -> Path:
    folder = staging(root)
    (folder / "node_modules" / "top").mkdir(parents=True)
    (folder / "node_modules" / "top" / "server.js").write_text(text, encoding="utf-8")
    return publish(root, folder, tree, key)


KEY = b"k" * 32


def test_a_store_entry_is_read_only_and_found_only_whole(tmp_path: Path) -> None:
    tree = npm_tree(LOCK)
    assert ready_entry(tmp_path, tree, KEY) is None
    entry = _entry(tmp_path, tree, KEY)
    assert ready_entry(tmp_path, tree, KEY) == entry
    assert not os.stat(entry).st_mode & 0o222 and not os.stat(entry / "node_modules").st_mode & 0o222
    other = staging(tmp_path)  # a second install of the same tree: the first entry stays
    (other / "node_modules").mkdir()
    assert publish(tmp_path, other, tree, KEY) == entry and not other.exists()


def _writable(path: Path) -> None:
    for folder in (path.parent, path):
        if folder.exists():
            os.chmod(folder, 0o755 if folder.is_dir() else 0o644)


@pytest.mark.parametrize("rewrite", [
    "content", "same-size content", "added file", "added at the top", "removed file", "mode", "folder made a link",
    "manifest", "other machine", "format 1 manifest", "cut manifest",
])
def test_a_rewritten_store_entry_is_never_found(tmp_path: Path, rewrite: str) -> None:
    """What a poisoned cache restore (or a `sandbox: off` server) does to an entry: it is not booted, it is
    removed so that the tree is installed again."""
    tree = npm_tree(LOCK)
    entry = _entry(tmp_path, tree, KEY)
    server = entry / "node_modules" / "top" / "server.js"
    key = KEY
    if rewrite in ("content", "same-size content"):
        _writable(server)
        server.write_text("evil()\n" if rewrite == "content" else "console.log(2)\n", encoding="utf-8")
    elif rewrite == "added file":
        _writable(server.parent / "x.js")
        (server.parent / "x.js").write_text("evil()\n", encoding="utf-8")
    elif rewrite == "added at the top":
        os.chmod(entry, 0o755)
        (entry / "preload.js").write_text("evil()\n", encoding="utf-8")
    elif rewrite == "removed file":
        _writable(server)
        server.unlink()
    elif rewrite == "mode":
        os.chmod(server, 0o755)
    elif rewrite == "folder made a link":  # the same names below it, through a link to a copy
        _writable(server.parent.parent)
        copy = tmp_path / "elsewhere"
        shutil.copytree(server.parent, copy)
        store.discard(server.parent)
        os.symlink(copy, server.parent)
    elif rewrite == "format 1 manifest":  # the JSON document of before, sealed with the right key: not read
        _writable(entry / verify.MANIFEST)
        body = json.dumps({"tree": tree["digest"], "bytes": 15, "files": {}}).encode()
        (entry / verify.MANIFEST).write_bytes(hmac.new(KEY, body, hashlib.sha256).hexdigest().encode() + b"\n" + body)
    elif rewrite == "cut manifest":  # one path less than it lists stats for, sealed with the right key
        document = verify.unsealed((entry / verify.MANIFEST).read_bytes(), KEY)
        _writable(entry / verify.MANIFEST)
        cut = verify.sealed(dataclasses.replace(document, paths=document.paths[:-1]), KEY)
        (entry / verify.MANIFEST).write_bytes(cut)
    elif rewrite == "manifest":  # rewritten to list the new content, without the key that seals it
        _writable(entry / verify.MANIFEST)
        os.chmod(entry, 0o755)
        body = verify.manifest(entry, tree["digest"])
        (entry / verify.MANIFEST).write_bytes(verify.sealed(body, b"x" * 32))
    else:  # restored from another runner's cache: sealed with that runner's key
        key = b"o" * 32
    assert ready_entry(tmp_path, tree, key) is None
    assert not entry.exists()


@pytest.mark.parametrize("field", ["mode", "size", "inode", "change time"])
@pytest.mark.parametrize("which", [0, -1])
def test_the_warm_check_compares_every_field_of_every_path(tmp_path: Path, field: str, which: int) -> None:
    """The stat comparison is one comparison of packed arrays: a manifest that differs from the entry in one
    field of its first or last path (sealed with the right key, as only this machine could) never passes it,
    and a mode or size that differs never passes the full check either."""
    tree = npm_tree(LOCK)
    entry = _entry(tmp_path, tree, KEY)
    document = verify.unsealed((entry / verify.MANIFEST).read_bytes(), KEY)
    assert document is not None and len(document.paths) == 3 and verify.unchanged(entry, document)
    records = [list(record) for record in verify.STAT.iter_unpack(document.stats)]
    index = ["mode", "size", "inode", "change time"].index(field)
    records[which][index] += 0o100 if field == "mode" else 1
    forged = dataclasses.replace(document, stats=b"".join(verify.STAT.pack(*record) for record in records))
    assert not verify.unchanged(entry, forged)
    if field in ("mode", "size"):
        assert verify.same_content(entry, forged) is None
    else:  # the same bytes under another inode or change time: what a copy on this machine looks like
        assert verify.same_content(entry, forged) is not None


def test_an_entry_copied_with_its_content_intact_still_verifies(tmp_path: Path) -> None:
    tree = npm_tree(LOCK)
    entry = _entry(tmp_path, tree, KEY)
    copy = tmp_path / "copy"
    shutil.copytree(entry, copy, symlinks=True)  # new inodes and change times, the same bytes
    store.discard(entry)
    os.rename(copy, entry)
    assert ready_entry(tmp_path, tree, KEY) == entry


def test_the_store_evicts_the_least_recently_used_entries_past_its_size(tmp_path: Path) -> None:
    trees = [npm_tree({"packages": {"node_modules/top": {"version": f"1.0.{n}", "integrity": "sha512-AAAA"}}})
             for n in range(3)]
    big = "x" * (800 * 1024)
    entries = [_entry(tmp_path, tree, KEY, big) for tree in trees]
    assert ready_entry(tmp_path, trees[0], KEY) == entries[0]  # used last: kept
    os.utime(tmp_path / store.USED / entries[1].name, (1, 1))
    removed = store.evict(tmp_path, 2, keep={entries[2].name})
    assert removed == [entries[1].name]
    assert [e.exists() for e in entries] == [True, False, True]


def test_an_npm_tree_writes_back_the_lock_npm_ci_installs() -> None:
    lock = {"packages": {
        "": {"name": "x"},
        "node_modules/top": {"version": "1.0.0", "integrity": "sha512-AAAA", "dependencies": {"alias": "^2"},
                             "bin": {"top": "cli.js"}, "license": "MIT", "hasInstallScript": True},
        "node_modules/alias": {"name": "@real/dep", "version": "2.0.1", "integrity": "sha512-BBBB", "os": ["linux"],
                               "optional": True},
    }}
    tree = npm_tree(lock)
    manifest, written = npm_files(tree, ["top"], {"": "http://127.0.0.1:1/", "@real": "http://127.0.0.1:2/r/"})
    assert json.loads(manifest)["dependencies"] == {"top": "1.0.0"}
    packages = json.loads(written)["packages"]
    assert packages["node_modules/alias"]["resolved"] == "http://127.0.0.1:2/r/@real/dep/-/dep-2.0.1.tgz"
    assert packages["node_modules/top"]["resolved"] == "http://127.0.0.1:1/top/-/top-1.0.0.tgz"
    assert packages["node_modules/top"]["hasInstallScript"] is True
    assert npm_tree(json.loads(written)) == tree  # nothing recorded is lost on the way back


def test_uv_markers_are_recorded_and_written_back() -> None:
    text = (
        "anyio==4.0.0 \\\n    --hash=sha256:" + "a" * 64 + "\n"
        "pywin32==306 ; sys_platform == 'win32' \\\n    --hash=sha256:" + "b" * 64 + "\n"
    )
    tree = uv_tree(text)
    assert tree["format"] == 4 and tree["packages"][1]["markers"] == "sys_platform == 'win32'"
    assert uv_tree(requirements_text(tree)) == tree
