"""What the sandbox hides of the repository from launches that can run its code (scanner.policy.inert): worked
out once per run, from the tree as it is, so that the review's inert set and every boot's mounts agree."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator

from scanner.policy.inert import Hidden, hidden_paths
from scanner.run.workspace import Workspace
from scanner.sources.closure import file_refs
from scanner.sources.declarations import Server


def hidden_for(workspace: Workspace, server: Server) -> Hidden:
    """The paths hidden from `server`'s launch, should it run repository code: the inert files but what its own
    declarations name (the same workspace and server: the same answer)."""
    if server.key not in workspace.hidden:
        named = sorted(set(named_paths([server], workspace.repo)))
        workspace.hidden[server.key] = hidden_paths(workspace.repo, workspace.policy.inert, named)
    return workspace.hidden[server.key]


def named_paths(servers: Iterable[Server], repo: os.PathLike[str] | str) -> Iterator[str]:
    """Every repository path a launch names (its script, a folder or file among its words, its `{file:…}`
    references), relative to the repository; such a path is never inert."""
    root = os.path.realpath(repo)
    for server in servers:
        yield from file_refs(d.closure for d in server.declarations)
        for declaration in server.declarations:
            launch = declaration.resolved
            if launch is None or launch.command is None:
                continue
            cwd = os.path.join(root, launch.cwd) if launch.cwd else root
            words = [launch.command, *launch.args, *launch.env.values()]
            for part in (p for word in words for p in word.replace(":", "=").split("=")):
                rel = _inside(part, cwd, root)
                if rel is not None:
                    yield rel


def _inside(word: str, cwd: str, root: str) -> str | None:
    if not word or word.startswith("-") or "\0" in word:
        return None
    path = os.path.normpath(os.path.join(cwd, word))
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    # The repository itself is every launch's folder: naming it names nothing in particular.
    if rel in (".", "..") or rel.startswith("../") or not os.path.lexists(path):
        return None
    return posixpath.normpath(rel)
