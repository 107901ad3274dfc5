"""Release tags: which tag is the last release, chosen by the version in its name, not by ancestry.

A monorepo tags each package's releases (`mcp-server-git/v0.6.2`, `@scope/server-time@2025.4.24`), and its
release tags are often not ancestors of main (a release branch is cut, tagged and never merged back), so
`git describe` picks a stale tag. Here every tag matching a glob is read as PREFIX VERSION, the version
being dotted numbers (SemVer and CalVer alike) after the last `/`, `@` or `-`, with an optional leading `v`.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

import git

from scanner.errors import UsageError
from scanner.vcs.base import SHALLOW_HINT, VcsError, Worktree, head_commit

# PREFIX, then v?N.N (two to four numbers: a bare "2024" is no version), then a pre-release (-rc.1) or build part.
TAG_VERSION = re.compile(
    r"(?P<prefix>(?:.*[/@-])?)v?(?P<numbers>\d{1,9}(?:\.\d{1,9}){1,3})(?P<pre>-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
)
MAX_TAGS = 100_000  # a repository with more tags than this is not read further
MAX_PREFIXES_SHOWN = 5


@dataclass(frozen=True)
class ReleaseTag:
    name: str
    prefix: str  # what precedes the version: "" or "v" for a single-package repository
    numbers: tuple[int, ...]
    prerelease: bool
    commit: str  # the sha the tag points at (peeled)

    @property
    def order(self) -> tuple[tuple[int, ...], bool]:
        """A release sorts after its own pre-releases (1.2.0-rc.1 < 1.2.0)."""
        return (self.numbers + (0,) * (4 - len(self.numbers)), not self.prerelease)


@dataclass(frozen=True)
class Choice:
    """The base tag chosen, and what the choice needs to say (HEAD carries the newest tag)."""

    tag: ReleaseTag | None  # None: no earlier release; this is the first
    head_tag: ReleaseTag | None  # the newest matching tag, when it is HEAD's own


def parse_tag(name: str, commit: str) -> ReleaseTag | None:
    match = TAG_VERSION.fullmatch(name)
    if match is None:
        return None
    numbers = tuple(int(n) for n in match["numbers"].split("."))
    prefix = match["prefix"]
    return ReleaseTag(name, prefix, numbers, match["pre"] is not None, commit)


def release_tags(worktree: Worktree, pattern: str | None) -> list[ReleaseTag]:
    """The tags matching `pattern` (a glob; every tag when None) that carry a version, oldest version first."""
    # One git call, not one object read per tag: %(*…) is the peeled target of an annotated tag.
    fields = "%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)"
    try:
        listing = str(worktree.repo.git.for_each_ref(f"--format={fields}", f"--count={MAX_TAGS}", "refs/tags"))
    except git.GitCommandNotFound:
        raise VcsError("git is not installed or not on PATH") from None
    except git.GitCommandError as error:
        raise VcsError(f"cannot list the tags: {error.stderr.strip()}") from None
    found: list[ReleaseTag] = []
    for line in listing.splitlines():
        name, kind, sha, peeled_kind, peeled_sha = (line.split("\0") + [""] * 5)[:5]
        if pattern is not None and not fnmatch.fnmatchcase(name, pattern):
            continue
        commit = sha if kind == "commit" else peeled_sha if peeled_kind == "commit" else None
        tag = parse_tag(name, commit) if commit else None  # a tag of a tree or blob is no release
        if tag is not None:
            found.append(tag)
    return sorted(found, key=lambda t: (t.order, t.name))


def choose_base(worktree: Worktree, pattern: str | None) -> Choice:
    """The last release before HEAD: the highest-versioned matching tag not on HEAD itself.

    Without a pattern the tags must be of one package (one prefix, `v` or none counted as the same);
    tags of several packages make "the last release" ambiguous, and the error says which patterns to use.
    """
    head = head_commit(worktree).hexsha
    tags = release_tags(worktree, pattern)
    if not tags:
        hint = f" ({SHALLOW_HINT}, with its tags)" if worktree.shallow else ""
        which = f"matching {pattern!r}" if pattern is not None else "with a version in its name (v1.2.3, pkg/1.2.3)"
        raise VcsError(
            f"no tag {which}, so there is no released state to compare with: "
            f"tag the last release or pass --base REF{hint}"
        )
    if pattern is None:
        prefixes = sorted({t.prefix for t in tags})
        if len(prefixes) > 1:
            shown = ", ".join(f"'{p}*'" for p in prefixes[:MAX_PREFIXES_SHOWN])
            more = f" and {len(prefixes) - MAX_PREFIXES_SHOWN} more" if len(prefixes) > MAX_PREFIXES_SHOWN else ""
            raise UsageError(
                f"the tags are of several packages, so the last release is ambiguous: pass --tag-pattern, "
                f"one of {shown}{more} (or --base REF)"
            )
    head_tag = tags[-1] if tags[-1].commit == head else None
    earlier = [t for t in tags if t.commit != head]
    return Choice(earlier[-1] if earlier else None, head_tag)
