"""The inert set (issue 27, item 2): the lockfile, Markdown, docs/ and the base policy's `inert:` globs."""

from __future__ import annotations

from scanner.policy.inert import outside_inert


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
