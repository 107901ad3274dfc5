"""A running server's view of the filesystem, where its package manager's records are read.

In the sandbox the launcher's cache lies in the sandbox's private /tmp, a mount that exists only in the
sandbox's mount namespace; mcp-lock reaches it through `/proc/<pid>/root` of a process inside. There,
`os.path.realpath` does not work: it resolves that magic link itself (to mcp-lock's own `/`), and the
kernel resolves an absolute symlink met below it from mcp-lock's root, not the sandbox's. So a `View`
walks a path one component at a time from a descriptor of its root and never lets the kernel follow a
symlink: it reads each link and resolves it inside the view (an absolute target from the view's root,
`..` never above it), and reads a file only when its resolved path lies in the folder the caller names.
With `sandbox: off` the view is mcp-lock's own `/`, walked the same way.
"""

from __future__ import annotations

import errno
import fnmatch
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager

from scanner.files.safe_read import RefusedFile, read_opened

HOST = "/"
MAX_SYMLINKS = 40  # the kernel's own bound before ELOOP
MAX_LISTED = 4096  # names read from one folder of a cache; a folder the server filled is not read whole
_ROOT = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_GLOB = frozenset("*?[")


class View:
    """The filesystem as seen from a root folder; every path given and returned is as seen there."""

    def __init__(self, root_fd: int, root: str) -> None:
        self._root_fd = root_fd
        self.root = root

    def resolve(self, path: str) -> str | None:
        """The folder `path` with every symlink resolved in the view; None unless it is an existing folder."""
        try:
            fd, parts = self._walk(path, folder=True)
        except OSError:
            return None
        os.close(fd)
        return _joined(parts)

    def read(self, path: str, inside: str, limit: int) -> bytes:
        """The bytes of `path`, a regular file of at most `limit` bytes whose resolved path lies in the
        resolved folder `inside`; RefusedFile (or OSError) otherwise."""
        fd, parts = self._walk(path, folder=False)
        if not _within(_joined(parts), inside):
            os.close(fd)
            raise RefusedFile(path, "outside the cache")
        return read_opened(fd, path, limit)

    def glob(self, folder: str, pattern: str, inside: str) -> list[str]:
        """The paths below `folder` that match `pattern` (fnmatch segments joined by `/`), sorted; only
        folders that lie in the resolved folder `inside` are listed, at most MAX_LISTED names of each."""
        found = [folder]
        for segment in pattern.split("/"):
            if _GLOB.isdisjoint(segment):  # a name: looked up, not listed
                found = [f"{base}/{segment}" for base in found if self._has(base, segment, inside)]
            else:
                found = [f"{base}/{name}" for base in found for name in self._names(base, inside)
                         if fnmatch.fnmatchcase(name, segment)]
        return found

    def _has(self, folder: str, name: str, inside: str) -> bool:
        try:
            fd, parts = self._walk(folder, folder=True)
        except OSError:
            return False
        try:
            os.stat(name, dir_fd=fd, follow_symlinks=False)
            return _within(_joined(parts), inside)
        except OSError:
            return False
        finally:
            os.close(fd)

    def _names(self, folder: str, inside: str) -> list[str]:
        try:
            fd, parts = self._walk(folder, folder=True)
        except OSError:
            return []
        try:
            if not _within(_joined(parts), inside):
                return []
            with os.scandir(fd) as entries:
                return sorted(entry.name for entry in itertools.islice(entries, MAX_LISTED))
        except OSError:
            return []
        finally:
            os.close(fd)

    def _walk(self, path: str, folder: bool) -> tuple[int, list[str]]:
        """A descriptor of `path` (a folder, or with folder=False whatever is there, opened without blocking)
        and its resolved components; OSError when it cannot be reached."""
        if not path.startswith("/"):
            raise OSError(errno.EINVAL, "not an absolute path", path)
        pending = _components(path)
        opened: list[int] = []  # descriptors of the resolved folders below the root
        parts: list[str] = []
        links = 0
        try:
            while pending:
                name = pending.pop()
                if name == "..":
                    if parts:
                        parts.pop()
                        os.close(opened.pop())
                    continue
                at = opened[-1] if opened else self._root_fd
                try:
                    fd = os.open(name, _FOLDER if pending or folder else _FILE, dir_fd=at)
                except OSError as error:
                    if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    target = _link(name, at, error)
                    links += 1
                    if links > MAX_SYMLINKS:
                        raise OSError(errno.ELOOP, "too many symbolic links", path) from None
                    if target.startswith("/"):  # from the view's root, not mcp-lock's
                        while opened:
                            os.close(opened.pop())
                        parts.clear()
                    pending += _components(target)
                    continue
                opened.append(fd)
                parts.append(name)
            return (opened.pop() if opened else os.dup(self._root_fd)), parts
        finally:
            for fd in opened:
                os.close(fd)


@contextmanager
def opened_view(root: str = HOST) -> Iterator[View]:
    """The view from the folder `root` (followed, as `/proc/<pid>/root` must be)."""
    fd = os.open(root, _ROOT)
    try:
        yield View(fd, root)
    finally:
        os.close(fd)


def _link(name: str, at: int, error: OSError) -> str:
    """The target of the symlink `name` in folder `at`; `error` again when it is no symlink."""
    try:
        return os.readlink(name, dir_fd=at)
    except OSError:
        raise error from None


def _components(path: str) -> list[str]:
    """The components of `path`, last first (a stack), without empty ones and `.`."""
    return [part for part in reversed(path.split("/")) if part not in ("", ".")]


def _joined(parts: list[str]) -> str:
    return "/" + "/".join(parts)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
