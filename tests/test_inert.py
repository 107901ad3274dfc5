"""The inert set (issue 27, item 2): the lockfile, Markdown, docs/ and the base policy's `inert:` globs."""

from __future__ import annotations

from pathlib import Path

from scanner.policy.inert import hidden_paths, outside_inert
from scanner.transports.sandbox import covering


def test_the_default_inert_set() -> None:
    changed = ["mcp-lock.json", "README.md", "a/b/NOTES.markdown", "docs/guide.html", "docs/x/y.png", "src/app.py"]
    assert outside_inert(changed, "", "mcp-lock.json", ()) == ["src/app.py"]


def test_globs_are_matched_from_the_scanned_folder() -> None:
    changed = ["svc/site/index.html", "svc/notes.txt", "svc/deep/notes.txt", "svc/src/a.py", "other/README.md"]
    # `*` stays within a folder, `**` crosses them; a path outside the scanned folder is never inert.
    kept = outside_inert(changed, "svc", "svc/mcp-lock.json", ("site/**", "*.txt"))
    assert kept == ["other/README.md", "svc/deep/notes.txt", "svc/src/a.py"]
    assert outside_inert(["svc/deep/notes.txt"], "svc", "svc/mcp-lock.json", ("**/*.txt",)) == []


def test_a_glob_cannot_match_what_it_does_not_name() -> None:
    assert outside_inert(["docsx/a.py", "docs.py", "README.md.py"], "", "mcp-lock.json", ()) == [
        "README.md.py",
        "docs.py",
        "docsx/a.py",
    ]


# -- issue 36, item 1: inert by construction ---------------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_hidden_folds_whole_folders_and_keeps_scripts_links_and_named_paths(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "README.md": "", "docs/a.md": "", "docs/img/x.png": "", "guide/b.md": "",
        "docs2/snippets/fmt.js": "", "docs2/c.md": "", "server.md": "", "src/app.py": "",
    })
    (tmp_path / "docs" / "link.md").symlink_to(tmp_path / "src" / "app.py")
    hidden = hidden_paths(tmp_path, ("docs2/**",), ["server.md"])
    # docs/ holds a link: its files are hidden one by one, the link never (a mount on it covers its target).
    assert hidden.paths == ("README.md", "docs/a.md", "docs/img", "docs2/c.md", "guide")
    assert not hidden.covers("docs/link.md") and not hidden.covers("server.md") and hidden.covers("guide/b.md")
    changed = ["docs/a.md", "docs/link.md", "server.md", "docs2/snippets/fmt.js", "docs/gone.md"]
    assert outside_inert(changed, "", "mcp-lock.json", ("docs2/**",), hidden) == [
        "docs/link.md", "docs2/snippets/fmt.js", "server.md",  # a deleted file is absent: inert
    ]


def test_a_named_folder_keeps_everything_in_it(tmp_path: Path) -> None:
    _tree(tmp_path, {"docs/a.md": "", "docs/b/c.md": "", "other.md": ""})
    assert hidden_paths(tmp_path, (), ["docs"]).paths == ("other.md",)
    assert hidden_paths(tmp_path, (), ["docs/b/c.md"]).paths == ("docs/a.md", "other.md")


def test_a_script_suffix_is_never_inert_even_unwalked() -> None:
    assert outside_inert(["docs/x.JS", "docs/y.cjs", "docs/z.txt"], "", "mcp-lock.json", ()) == [
        "docs/x.JS", "docs/y.cjs",
    ]


def test_the_sandbox_covers_what_is_hidden(tmp_path: Path) -> None:
    _tree(tmp_path, {"docs/a.md": "", "b.md": ""})
    (tmp_path / "l.md").symlink_to(tmp_path / "b.md")
    mounts = covering([str(tmp_path / "docs"), str(tmp_path / "b.md"), str(tmp_path / "l.md"), str(tmp_path / "no")])
    assert mounts[-3:] == ["--ro-bind", "/dev/null", str(tmp_path / "b.md")]
    assert mounts[mounts.index("--tmpfs") + 1] == str(tmp_path / "docs") and "--remount-ro" in mounts
    assert str(tmp_path / "l.md") not in mounts and str(tmp_path / "no") not in mounts
