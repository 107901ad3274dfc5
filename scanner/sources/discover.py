"""Find every MCP server a repository declares, across all clients' project files, and group the
declarations that launch the same thing into one Server."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from scanner.sources import codex, continuedev, mcpb, mcpjson, opencode, server_json
from scanner.sources.common import Scan, problem
from scanner.sources.declarations import ConfigFile, Declaration, Server

Reader = Callable[[Scan, str], ConfigFile | None]

# Project-scoped files at fixed paths.
FIXED: dict[str, Reader] = {
    **{path: mcpjson.reader(fmt) for path, fmt in mcpjson.FORMATS.items()},
    codex.PATH: codex.read,
    **opencode.READERS,
}
# Files recognised by name anywhere in the repository (bounded walk).
WALKED: dict[str, Reader] = {
    server_json.FILENAME: server_json.read,
    mcpb.FILENAME: mcpb.read,
    "gemini-extension.json": mcpjson.reader(mcpjson.GEMINI_EXTENSION_FORMAT),
}
WALKED_LOWER = {name.lower(): read for name, read in WALKED.items()}
FIXED_LOWER = {rel.lower(): rel for rel in FIXED}
SKIP_DIRS = frozenset({"node_modules", "venv", "dist", "build", "__pycache__", "target", "vendor"})
# server.json and manifest.json are publishing files; copies under test folders are fixtures.
SKIP_DIRS |= {"test", "tests", "testdata", "fixtures", "__tests__", "__fixtures__"}
# Hidden folders are skipped, except the clients' own and the NuGet template's `.mcp`.
HIDDEN_OK = frozenset({".mcp", continuedev.FOLDER.split("/")[0]} | {p.split("/")[0] for p in FIXED if "/" in p})
MAX_DEPTH = 6
MAX_VARIANTS = 16  # spellings of one fixed path read, at most (a folder can hold .MCP.json, .mcp.JSON, …)
MAX_ENTRIES = 20_000  # directory entries looked at; keeps a huge monorepo fast


@dataclass
class Discovery:
    files: list[ConfigFile]
    servers: list[Server]


def discover(
    repo: Path,
    environ: Mapping[str, str],
    inputs: Mapping[str, str] | None = None,
    server_inputs: Mapping[str, Mapping[str, str]] | None = None,
    input_vars: Mapping[str, str] | None = None,
) -> Discovery:
    """Read every config file of `repo`; never raises on a bad file (it gets an error Problem)."""
    # Absolute, so `${workspaceFolder}` resolves to a path that works from any cwd.
    scan = Scan(repo.absolute(), environ, inputs or {}, server_inputs or {}, input_vars or {})
    files = [cf for rel, read in candidates(scan.repo) if (cf := _read(read, scan, rel)) is not None]
    files.sort(key=lambda cf: cf.path)
    return Discovery(files, group([d for cf in files for d in cf.declarations]))


def looked_for() -> list[str]:
    """Where discovery looks, for a message saying nothing was found."""
    return [*FIXED, f"{continuedev.FOLDER}/*", *(f"**/{name}" for name in WALKED)]


def candidates(repo: Path) -> Iterator[tuple[str, Reader]]:
    """Repo-relative POSIX paths that may hold servers, each with its reader. Names are matched ignoring
    case, as clients on macOS and Windows (case-insensitive filesystems) open them: `.cursor/MCP.json` is
    read there as `.cursor/mcp.json`, so it is read here too (and warned about, see `_read`)."""
    for rel, read in FIXED.items():
        for found in _any_case(repo, rel):
            yield found, read
    folder = repo / continuedev.FOLDER
    if folder.is_dir() and not _resolves_inside(folder, repo):
        yield continuedev.FOLDER, _outside_folder  # not listed: its file names are not the repository's
    elif folder.is_dir():
        for name in sorted(_listdir(folder)):
            if name.endswith(continuedev.SUFFIXES):
                yield f"{continuedev.FOLDER}/{name}", continuedev.read
    for rel in walk(repo, frozenset(WALKED)):
        yield rel, WALKED_LOWER[rel.rsplit("/", 1)[-1].lower()]


def walk(repo: Path, names: frozenset[str]) -> Iterator[str]:
    """Files called one of `names`, breadth first, within MAX_DEPTH and MAX_ENTRIES."""
    queue: deque[tuple[str, int]] = deque([("", 0)])
    lowered = {name.lower() for name in names}
    seen = 0
    while queue and seen < MAX_ENTRIES:
        rel_dir, depth = queue.popleft()
        try:
            with os.scandir(repo / rel_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries[: MAX_ENTRIES - seen]:
            seen += 1
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.name.lower() in lowered and not _is_dir(entry):
                yield rel
            elif walks_into(rel) and _is_dir(entry):
                queue.append((rel, depth + 1))


def walks_into(rel_dir: str) -> bool:
    """Whether the walk enters folder `rel_dir` (repo-relative POSIX), given that it entered the parent."""
    name = rel_dir.rpartition("/")[2]
    within = rel_dir.count("/") < MAX_DEPTH
    return within and name not in SKIP_DIRS and (not name.startswith(".") or name in HIDDEN_OK)


def is_config_path(rel: str) -> bool:
    """Whether discovery reads the file at `rel` (repo-relative POSIX) when it finds it: what `candidates` yields."""
    if rel.lower() in FIXED_LOWER or rel.rpartition("/")[2].lower() in WALKED_LOWER:
        return True
    folder, _, name = rel.rpartition("/")
    return folder == continuedev.FOLDER and name.endswith(continuedev.SUFFIXES)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)  # never follow links: no loops, no escaping the repo
    except OSError:
        return False


def _resolves_inside(folder: Path, repo: Path) -> bool:
    """Whether `folder`, every symlink on the way resolved, is still inside `repo`."""
    inside, root = os.path.realpath(folder), os.path.realpath(repo)
    return os.path.commonpath([inside, root]) == root


def _outside_folder(scan: Scan, rel: str) -> ConfigFile:
    message = f"cannot read {rel}: a symbolic link that leads outside the repository (its files are not listed)"
    return ConfigFile(rel, continuedev.CONTINUE.client, problems=[problem("error", "unreadable", message, rel)])


def _listdir(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _read(read: Reader, scan: Scan, rel: str) -> ConfigFile | None:
    try:
        found = read(scan, rel)
    except Exception as exc:  # one odd file must not stop discovery of the others
        message = f"mcp-lock failed to read {rel} ({type(exc).__name__}: {exc}); please report this"
        return ConfigFile(rel, "unknown", problems=[problem("error", "internal-error", message, rel)])
    canonical = FIXED_LOWER.get(rel.lower()) or _walked_name(rel)
    if found is not None and canonical is not None and canonical != rel:
        message = (
            f"{rel} is a case variant of {canonical}: clients on case-insensitive filesystems (macOS, Windows) "
            f"read it as {canonical}, so its servers are discovered and pinned like that file's; rename it to "
            f"{canonical} so every machine reads the same file"
        )
        found.problems.append(problem("warning", "case-variant", message, rel))
    return found


def _walked_name(rel: str) -> str | None:
    folder, _, name = rel.rpartition("/")
    spelled = next((known for known in WALKED if known.lower() == name.lower()), None)
    return None if spelled is None else f"{folder}/{spelled}" if folder else spelled


def _any_case(repo: Path, rel: str) -> list[str]:
    """Every existing path that spells `rel` in any case, each folder listed at most once (bounded)."""
    found = [""]
    for part in rel.split("/"):
        following: list[str] = []
        for prefix in found:
            names = _listdir(repo / prefix) if prefix else _listdir(repo)
            following += [f"{prefix}/{n}" if prefix else n for n in sorted(names) if n.lower() == part.lower()]
        found = following[:MAX_VARIANTS]
    return found


# -- grouping ---------------------------------------------------------------------------------


def group(declarations: list[Declaration]) -> list[Server]:
    """One Server per distinct launch, keyed by its first declared name; sorted by key.

    Declarations with the same launch (`template.identity()`) are merged, in file then line
    order. When different launches share a name, each is keyed `name@path` and warned about.
    """
    groups: dict[object, list[Declaration]] = {}
    for decl in sorted(declarations, key=lambda d: d.location):
        identity = decl.template.identity() if decl.template else ("unlaunchable", decl.location, decl.name)
        groups.setdefault(identity, []).append(decl)
    by_name: dict[str, list[list[Declaration]]] = {}
    for decls in groups.values():
        by_name.setdefault(decls[0].name, []).append(decls)
    servers: list[Server] = []
    for name, clashing in by_name.items():
        if len(clashing) == 1:
            servers.append(Server(name, clashing[0]))
        else:
            servers += _split_clash(name, clashing)
    return sorted(servers, key=lambda s: s.key)


def _split_clash(name: str, clashing: list[list[Declaration]]) -> list[Server]:
    keys = [f"{name}@{decls[0].location.file}" for decls in clashing]
    if len(set(keys)) < len(keys):  # the same name twice in one file (a Continue list)
        keys = [f"{name}@{decls[0].location}" for decls in clashing]
    places = ", ".join(str(decls[0].location) for decls in clashing)
    for decls, key in zip(clashing, keys, strict=True):
        message = f"'{name}' names {len(clashing)} different launches ({places}); this one is pinned as '{key}'"
        for decl in decls:
            if decl.name == name:
                decl.problems.append(problem("warning", "name-clash", message, decl.location.file, decl.location.line))
    return [Server(key, decls) for decls, key in zip(clashing, keys, strict=True)]
