"""Where each package of a recorded tree sits: the chain of packages from the one the launch names down to the
one that pulls it in, so that a finding about a dependency says which package brings it.

The chain comes from the tree's dependency edges when its records carry them (each package's `dependencies`,
the names it requires, resolved the way Node resolves a `require`: the nearest `node_modules/<name>` up from
the requiring package's install path). A tree recorded without edges (lockfile format 3) still says something
for npm: a package installed at `node_modules/a/node_modules/b` is there because `a` requires it. A package
hoisted to the top of `node_modules/` (or any package of a uv tree) then has no known parent, and the chain
says so rather than guessing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.record import normalised

NODE_MODULES = "node_modules/"
MAX_SHOWN = 6  # packages of a chain shown; a deeper one keeps its two ends


@dataclass(frozen=True)
class TreePath:
    """How one package is reached: `chain` runs from the launched package to its parent (empty for the launched
    package itself, or when no parent is known); `known` is False when the record cannot say."""

    chain: tuple[str, ...]
    known: bool
    path: str  # npm: the install path; uv: the name

    def parent(self) -> str | None:
        return self.chain[-1] if self.chain else None

    def shown(self, package: str) -> str:
        """`top@1.0.0 → a@2.0.0 → b@3.0.0`: the chain ending in `package`."""
        chain = [*self.chain, package]
        if len(chain) > MAX_SHOWN:
            chain = [*chain[:2], f"… {len(chain) - 4} more …", *chain[-2:]]
        return " → ".join(chain)

    def pulled_in_by(self, package: str) -> str | None:
        """The clause a finding adds about where `package` sits (None for the launched package)."""
        if self.known and self.chain:
            return f"pulled in by {self.chain[-1]} ({self.shown(package)})"
        if self.known:
            return None
        where = f"installed at {self.path}" if self.path.startswith(NODE_MODULES) else "in the tree"
        return (f"a dependency {where}; the lock records no dependency edges, so which package requires it is "
                "not known (`npm explain` or `uv pip tree` in the server's install says)")


def tree_paths(tree: Mapping[str, Any], top: str | None) -> dict[str, TreePath]:
    """Each package's path in `tree` (keyed by npm install path, or uv name), from the launched package `top`."""
    records = [r for r in tree.get("packages") or [] if isinstance(r, Mapping)]
    if tree.get("manager") != "npm":
        return {str(r.get("name")): _uv_path(r, top) for r in records}
    by_path = {str(r.get("path")): r for r in records}
    root = f"{NODE_MODULES}{top}" if top is not None else None
    edges = {path: _required(record) for path, record in by_path.items()}
    found: dict[str, TreePath] = {}
    if root in by_path and any(names is not None for names in edges.values()):
        found = _walk(root, by_path, edges)
    for path in by_path:
        if path not in found:
            found[path] = TreePath((), True, path) if path == root else _nested(path, by_path)
    return found


def _uv_path(record: Mapping[str, Any], top: str | None) -> TreePath:
    name = str(record.get("name"))
    return TreePath((), top is not None and name == normalised(top), name)


def _walk(
    root: str, by_path: Mapping[str, Mapping[str, Any]], edges: Mapping[str, list[str] | None]
) -> dict[str, TreePath]:
    """Breadth first from the launched package along the recorded edges: each package's shortest chain."""
    found = {root: TreePath((), True, root)}
    queue = deque([root])
    while queue:
        at = queue.popleft()
        label = _label(by_path[at])
        for name in edges.get(at) or []:
            target = resolve(at, name, by_path)
            if target is not None and target not in found:
                found[target] = TreePath((*found[at].chain, label), True, target)
                queue.append(target)
    return found


def resolve(at: str, name: str, by_path: Mapping[str, Any]) -> str | None:
    """Where Node finds `name` required from the package installed at `at`: `at/node_modules/name`, then each
    enclosing `node_modules/` up to the top."""
    base = at
    while True:
        candidate = f"{base}/{NODE_MODULES}{name}" if base else f"{NODE_MODULES}{name}"
        if candidate in by_path:
            return candidate
        if not base:
            return None
        cut = base.rfind("/" + NODE_MODULES)
        base = base[:cut] if cut >= 0 else ""


def _nested(path: str, by_path: Mapping[str, Mapping[str, Any]]) -> TreePath:
    """Without edges: the packages whose folders enclose `path` pulled it in (unknown past a hoisted one)."""
    chain: list[str] = []
    base = path
    while (cut := base.rfind("/" + NODE_MODULES)) >= 0:
        base = base[:cut]
        if base in by_path:
            chain.insert(0, _label(by_path[base]))
    return TreePath(tuple(chain), bool(chain), path)


def _required(record: Mapping[str, Any]) -> list[str] | None:
    """The names a record says its package requires (a mapping name -> range, or a list), None when it says
    nothing. Anything else is no edge."""
    for field in ("dependencies", "requires"):
        value = record.get(field)
        if isinstance(value, Mapping):
            return [str(name) for name in value]
        if isinstance(value, list):
            return [str(name) for name in value if isinstance(name, str)]
    return None


def _label(record: Mapping[str, Any]) -> str:
    return f"{record.get('name')}@{record.get('version')}"


