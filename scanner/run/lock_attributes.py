"""The lock's diff is the review: a `.gitattributes` line that hides it in review is a finding.

GitHub collapses a file marked `linguist-generated` in a pull request's diff ("Load diff"), and git shows
none for one marked `-diff` or `binary`: a reviewer approving the pull request never sees the definitions it
pins. Every `.gitattributes` from the lock's folder up to the scanned repository's root is read (bounded, as a
regular file inside the repository), and each line whose pattern matches the lock and sets one of those
attributes is a blocking `lock-diff-hidden` finding at its line.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path, PurePosixPath

from scanner.files.safe_read import CONFIG_LIMIT, MissingFile, RefusedFile, read_regular
from scanner.model.findings import Finding, SourceLocation
from scanner.model.rules import rule
from scanner.run.workspace import Workspace

ATTRIBUTES = ".gitattributes"
# Attributes that hide a file's diff: GitHub's generated-file collapse, and git's own "no text diff".
HIDING = {
    "linguist-generated": "GitHub collapses its diff",
    "-diff": "git shows no diff",
    "binary": "git shows no diff",
}


def hidden_lock_diff(workspace: Workspace) -> list[Finding]:
    root = workspace.repo.resolve()
    lock = Path(os.path.abspath(workspace.lock_path))
    findings: list[Finding] = []
    folder = lock.parent
    while folder == root or root in folder.parents:
        findings += _lines(root, folder, lock, workspace.lock_display)
        if folder == root:
            break
        folder = folder.parent
    return findings


def _lines(root: Path, folder: Path, lock: Path, shown: str) -> list[Finding]:
    path = folder / ATTRIBUTES
    display = path.relative_to(root).as_posix()
    try:
        text = read_regular(path, root, display, CONFIG_LIMIT).decode("utf-8", "replace")
    except (MissingFile, RefusedFile):
        return []
    relative = lock.relative_to(folder).as_posix()
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#") or not _matches(words[0], relative):
            continue
        hiding = [word for word in words[1:] if _hides(word)]
        if hiding:
            why = "; ".join(HIDING[word.split("=", 1)[0]] for word in hiding)
            message = (
                f"{display}:{number}: `{' '.join(words)[:200]}` marks {shown} {' '.join(hiding)} ({why}): the "
                "definitions a pull request pins are then not shown to the reviewer who approves it; remove "
                "the attribute from the lock"
            )
            findings.append(Finding(rule("lock-diff-hidden"), shown, message, SourceLocation(display, number)))
    return findings


def _hides(word: str) -> bool:
    name, _, value = word.partition("=")
    if name == "linguist-generated":
        return value in ("", "true", "1")
    return word in HIDING


def _matches(pattern: str, relative: str) -> bool:
    """gitattributes matching, as far as a lock's path needs: a pattern without a slash matches the name at
    any depth; one with a slash matches the path from the attribute file's folder (`**` any folders)."""
    pattern = pattern.removeprefix("/") if "/" in pattern.rstrip("/") else pattern
    if "/" not in pattern:
        return fnmatch.fnmatchcase(PurePosixPath(relative).name, pattern)
    return fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern.replace("**/", ""))
