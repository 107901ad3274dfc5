"""Reading and writing repository files that a hostile repository controls.

A committed file can be a symlink to `~/.aws/credentials`, to `/dev/zero` or to a FIFO, or be far larger than
any real one. Every file mcp-lock reads from a repository (the lockfile, the policy, config files, opencode's
`{file:…}`) goes through `read_regular`: only a regular file, inside the repository once symlinks are resolved,
opened without blocking and read up to a size cap. A refusal names the repo-relative path and the reason, and
never the file's content or a symlink's target.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

MiB = 1024 * 1024
LOCK_LIMIT = 64 * MiB  # 10,000 definitions of bench/scale.py make a 25 MB lock
CONFIG_LIMIT = 4 * MiB
POLICY_LIMIT = 1 * MiB
FILE_REF_LIMIT = 1 * MiB  # opencode `{file:…}`: a key or a token
_CHUNK = 1 * MiB

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class RefusedFile(Exception):
    """A repository file that is not read (or written); `str()` is one line: the path and the reason."""

    def __init__(self, display: str, reason: str) -> None:
        super().__init__(f"{display}: {reason}")
        self.display = display
        self.reason = reason


class MissingFile(RefusedFile):
    """Nothing at the path at all (a dangling symlink is a RefusedFile, not missing)."""


def containment_root(repo: Path, path: Path) -> Path:
    """The folder `path` must stay inside: the repository, or the folder named when `path` lies outside it."""
    absolute = Path(os.path.abspath(path))
    repo_abs = Path(os.path.abspath(repo))
    return repo_abs if absolute.is_relative_to(repo_abs) else absolute.parent


def display_path(repo: Path, path: Path) -> str:
    """`path` relative to the repository (as written, symlinks not followed), else as given."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(repo)).as_posix()
    except ValueError:
        return str(path)


def read_regular(path: Path, root: Path, display: str, limit: int) -> bytes:
    """The bytes of `path`, a regular file inside `root` (symlinks resolved) of at most `limit` bytes.

    Raises MissingFile when nothing is at `path`, RefusedFile for anything else that is not read.
    """
    target = resolve_inside(path, root, display)
    try:
        fd = os.open(target, _OPEN_FLAGS)
    except FileNotFoundError:
        raise MissingFile(display, "not found") from None
    except OSError as error:
        raise RefusedFile(display, str(error.strerror or error)) from None
    return read_opened(fd, display, limit)


def read_opened(fd: int, display: str, limit: int) -> bytes:
    """The bytes of the file open as `fd` (closed here), refused unless a regular file of at most `limit` bytes.

    For a caller that found and opened the file itself (it must open without blocking and without following
    a final symlink, as read_regular does).
    """
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise RefusedFile(display, f"not a regular file ({_kind(status.st_mode)})")
        if status.st_size > limit:
            raise RefusedFile(display, _too_big(limit))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        return _read_capped(handle, display, limit)


def _read_capped(handle: BinaryIO, display: str, limit: int) -> bytes:
    # The size can grow after fstat (a file being appended to): stop at the cap whatever it says.
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = handle.read(min(_CHUNK, limit + 1 - total))
        except OSError as error:
            raise RefusedFile(display, str(error.strerror or error)) from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise RefusedFile(display, _too_big(limit))


def resolve_inside(path: Path, root: Path, display: str) -> str:
    """`path` with every symlink resolved; RefusedFile when that leads outside `root` or to nothing."""
    if not _within(os.path.abspath(path), os.path.abspath(root)):
        raise RefusedFile(display, "outside the repository")
    target = os.path.realpath(path)
    if not _within(target, os.path.realpath(root)):
        raise RefusedFile(display, "a symbolic link that leads outside the repository")
    if not os.path.lexists(target):
        if os.path.lexists(path):
            raise RefusedFile(display, "a symbolic link to a file that does not exist")
        raise MissingFile(display, "not found")
    return target


def refuse_unsafe_target(path: Path, root: Path, display: str) -> None:
    """RefusedFile unless writing `path` replaces a regular file (or creates one) inside `root`.

    A write never goes through a symlink: renaming over one would leave the repository's link replaced, and
    following it would write server-controlled text wherever the link points.
    """
    if os.path.islink(path):
        raise RefusedFile(display, "a symbolic link (mcp-lock writes only a regular file)")
    if not _within(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.realpath(root)):
        raise RefusedFile(display, "its folder leads outside the repository")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise RefusedFile(display, str(error.strerror or error)) from None
    if not stat.S_ISREG(mode):
        raise RefusedFile(display, f"not a regular file ({_kind(mode)})")


def _within(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _too_big(limit: int) -> str:
    return f"larger than {limit // MiB} MiB"
