"""Issue 35, item 8: a tree change as the reviewer reads it (scanner.diff.tree_listing): the counts, then each
package, new install scripts first, capped with "and N more"."""

from __future__ import annotations

from scanner.diff.tree_listing import tree_lines, tree_summary
from scanner.install.npm_record import npm_tree


def tree(packages: dict[str, dict]) -> dict:
    entries = {f"node_modules/{name}": {"integrity": "sha512-AAAA", **p} for name, p in packages.items()}
    return npm_tree({"packages": entries})


def test_counts_then_new_install_scripts_first_then_each_package() -> None:
    old = tree({"top": {"version": "1.0.0"}, "gone": {"version": "1.0.0"}, "moved": {"version": "1.0.0"}})
    new = tree({
        "top": {"version": "2.0.0"},
        "moved": {"version": "1.1.0", "hasInstallScript": True},
        "fresh": {"version": "0.1.0"},
        "builder": {"version": "3.0.0", "hasInstallScript": True},
    })
    assert tree_lines(old, new) == [
        "2 added, 1 removed, 2 changed, 2 new install scripts (3 → 4 packages)",
        "new install script: builder@3.0.0 (added)",
        "new install script: moved@1.1.0 (changed)",
        "added builder@3.0.0",
        "added fresh@0.1.0",
        "removed gone@1.0.0",
        "moved: 1.0.0 → 1.1.0",
        "top: 1.0.0 → 2.0.0",
    ]


def test_a_long_change_is_capped_with_the_rest_counted() -> None:
    old = tree({"top": {"version": "1.0.0"}})
    new = tree({"top": {"version": "1.0.0"}, **{f"dep{i:02d}": {"version": "1.0.0"} for i in range(40)}})
    lines = tree_lines(old, new, limit=10)
    assert lines[0] == "40 added, 0 removed, 0 changed (1 → 41 packages)"
    assert lines[1:11] == [f"added dep{i:02d}@1.0.0" for i in range(10)] and lines[11] == "and 30 more"


def test_a_dropped_or_new_record_and_same_version_other_bytes() -> None:
    old = tree({"top": {"version": "1.0.0"}})
    assert tree_summary(old, None) == "tree record dropped (was 1 package)"
    assert tree_summary(None, old) == "tree recorded: 1 package (none before)"
    republished = tree({"top": {"version": "1.0.0", "integrity": "sha512-BBBB"}})
    summary, line = tree_lines(old, republished)
    assert "1 with other content under the same version" in summary
    assert line.startswith("top@1.0.0: same version, other content")
