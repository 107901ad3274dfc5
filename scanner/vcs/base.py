"""Git plumbing over gitpython: the work tree, merge bases, changed paths and files at a commit."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import git

from scanner.errors import UsageError
from scanner.files.safe_read import CONFIG_LIMIT, LOCK_LIMIT, MiB
from scanner.sources.discover import is_config_path, walks_into
from scanner.vcs.safe_git import EmbeddedGitDir, NoWorktree, find_root, open_repository

SHALLOW_HINT = "this clone is shallow; fetch the full history (with actions/checkout: `fetch-depth: 0`)"
SYMLINK_MODE = 0o120000


class VcsError(UsageError):
    """A git problem that stops the run: one line, exit code 2."""


@dataclass
class Worktree:
    repo: git.Repo
    root: Path  # the work tree's top directory, resolved
    prefix: str  # the scanned directory relative to `root`, POSIX; "" at the top

    @property
    def shallow(self) -> bool:
        return (Path(self.repo.common_dir) / "shallow").exists()

    def rel(self, path: Path) -> str:
        """`path` relative to the work tree's top, POSIX; VcsError when it lies outside."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            raise VcsError(f"{path} is outside the git work tree {self.root}") from None


@contextlib.contextmanager
def git_errors() -> Iterator[None]:
    """Turn a failing git command into a one-line VcsError instead of a traceback."""
    try:
        yield
    except git.GitCommandNotFound:
        raise VcsError("git is not installed or not on PATH") from None
    except git.GitCommandError as error:
        lines = [line for line in str(error.stderr).strip().strip("'").splitlines() if line.strip()]
        raise VcsError(f"git failed: {lines[0].strip() if lines else error}") from None


def open_worktree(directory: Path) -> Worktree:
    """The git work tree containing `directory` (which may be any folder inside it), found from its `.git`."""
    try:
        repo = open_repository(find_root(directory.resolve()))
    except EmbeddedGitDir as error:
        raise VcsError(str(error)) from None
    except (NoWorktree, git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise VcsError(f"{directory}: not inside a git work tree") from None
    if repo.bare or repo.working_tree_dir is None:
        raise VcsError(f"{directory}: the git repository has no work tree")
    worktree = Worktree(repo, Path(repo.working_tree_dir).resolve(), "")
    worktree.prefix = "" if directory.resolve() == worktree.root else worktree.rel(directory)
    return worktree


def head_commit(worktree: Worktree) -> git.Commit:
    if not worktree.repo.head.is_valid():
        raise VcsError("HEAD has no commit yet; commit something first")
    return worktree.repo.head.commit


def resolve(worktree: Worktree, ref: str) -> git.Commit:
    try:
        return worktree.repo.commit(ref)
    except git.GitCommandNotFound:
        raise VcsError("git is not installed or not on PATH") from None
    except (git.BadName, git.BadObject, ValueError, git.GitCommandError):
        hint = f" ({SHALLOW_HINT})" if worktree.shallow else ""
        raise VcsError(f"unknown git ref {ref!r}{hint}") from None


def merge_base(worktree: Worktree, ref: str) -> git.Commit:
    """The merge base of `ref` and HEAD: what a pull request's changes are measured against."""
    head = head_commit(worktree)
    base = resolve(worktree, ref)
    with git_errors():
        bases = worktree.repo.merge_base(base, head)
    if not bases:
        if worktree.shallow:
            raise VcsError(f"no merge base of {ref} and HEAD: {SHALLOW_HINT}")
        raise VcsError(f"{ref} and HEAD share no history (no merge base)")
    return bases[0]


def changed_paths(worktree: Worktree, commit: git.Commit) -> set[str]:
    """Paths (from the work tree's top) that differ between `commit` and the work tree, untracked ones included."""
    with git_errors():
        diffs = commit.diff(None)  # None: against the work tree, so local edits count before a commit
        paths = {path for d in diffs for path in (d.a_path, d.b_path) if path}
        paths.update(worktree.repo.untracked_files)
    return paths


def file_at(commit: git.Commit, path: str, limit: int | None = None) -> bytes | None:
    """The bytes of `path` (from the top of the tree) at `commit`, at most `limit` (default: a lock's);
    None when it is absent or not a file."""
    limit = LOCK_LIMIT if limit is None else limit
    try:
        item = commit.tree / path
    except KeyError:
        return None
    if item.type != "blob" or item.mode == SYMLINK_MODE:
        return None
    if item.size > limit:  # a hostile history can commit a huge blob: never read it into memory
        raise UsageError(f"{path} at {commit.hexsha[:7]}: larger than {limit // MiB} MiB; refusing to read it")
    with git_errors():
        return bytes(item.data_stream.read())


def materialise_configs(commit: git.Commit, prefix: str, dest: Path) -> int:
    """Write the config files discovery would read under `prefix` at `commit` into `dest`; return how many.

    Only candidate files are written, so discovery can run on `dest` exactly as on a checkout.
    """
    try:
        tree = commit.tree / prefix if prefix else commit.tree
    except KeyError:
        return 0
    if tree.type != "tree":
        return 0
    start = len(prefix) + 1 if prefix else 0
    written = 0
    with git_errors():
        for item in tree.traverse(prune=lambda i, _d: i.type == "tree" and not walks_into(i.path[start:])):
            rel = item.path[start:]
            # An oversized config file is left out, as discovery refuses to read it.
            if item.type == "blob" and item.mode != SYMLINK_MODE and is_config_path(rel) and item.size <= CONFIG_LIMIT:
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(item.data_stream.read())
                written += 1
    return written

