"""Writing files where a hostile repository may have laid links: the lock, and every report.

A report path such as `--sarif shard2.sarif` usually lies in the repository, where a committed symlink could
send server-controlled text to `~/.bashrc`, or a FIFO could hang the run. Every write goes through here: the
target is checked by `safe_read.refuse_unsafe_target` (no symlink, nothing but a regular file, a folder that
stays inside the repository when the path is in it), then the file is replaced atomically (readers see the
old file or the new one) or, for an append such as `$GITHUB_STEP_SUMMARY`, opened without following a link
and written in one call.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from scanner.files.safe_read import RefusedFile, containment_root, refuse_unsafe_target

_APPEND_FLAGS = (
    os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def write_file(path: Path, data: bytes, repo: Path, *, append: bool = False) -> None:
    """Write (or append) `data` at `path`; RefusedFile, nothing written, for a link or a non-regular file.

    The containment folder is the repository when `path` is inside it, else the folder named.
    """
    display = str(path)
    refuse_unsafe_target(path, containment_root(repo, path), display)
    if append:
        _append(path, data, display)
        return
    target = os.path.abspath(path)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    directory, name = os.path.split(target)
    replace_atomically(directory, name, data, mode)


def _append(path: Path, data: bytes, display: str) -> None:
    try:
        fd = os.open(path, _APPEND_FLAGS, 0o666)
    except OSError as error:  # ELOOP: it became a link since the check
        raise RefusedFile(display, str(error.strerror or error)) from None
    with os.fdopen(fd, "ab") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise RefusedFile(display, "not a regular file")
        handle.write(data)


def replace_atomically(directory: str, name: str, data: bytes, mode: int | None) -> None:
    """Write `directory/name` through a new temporary file renamed over it; `mode` kept when given."""
    temp = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o666)  # umask applies, as for any new file
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, os.path.join(directory, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    # Makes the rename durable on POSIX; directories cannot be opened this way on Windows.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
