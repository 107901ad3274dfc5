"""The structure docs/architecture.md promises, checked from the code's own imports."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "scanner"

# The rooms from the bottom up: a module may import from its own room and from rooms listed before it.
# Top-level modules count as rooms of their own name.
LAYERS = (
    "errors",
    "files",
    "model",
    "sources",
    "snapshot",
    "lock",
    "detectors",
    "artifacts",
    "install",
    "diff",
    "transports",
    "reporters",
    "policy",
    "run",
    "vcs",
    "release",
    "cli",
    "__main__",
)
MAX_LINES = 400
MAX_TOP_LEVEL = 5


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _room(module: str) -> str:
    """`scanner.run.boot` -> `run`; `scanner.errors` -> `errors`; `scanner` itself -> `scanner`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "scanner"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """Every import in `path`: (line, module, whether it sits at module level or under `if TYPE_CHECKING`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = set()
    for node in tree.body:
        top_level.add(id(node))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            top_level.update(id(child) for child in node.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "scanner":
                found += [(node.lineno, f"scanner.{alias.name}", id(node) in top_level) for alias in node.names]
            else:
                found.append((node.lineno, node.module, id(node) in top_level))
    return found


def test_no_module_is_too_long() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_no_two_modules_share_a_name() -> None:
    names = Counter(p.name for p in _modules() if p.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []


def test_the_top_of_the_package_holds_only_what_every_layer_shares() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, top


def test_every_room_is_placed_in_the_layers() -> None:
    rooms = {_room(_module_name(p)) for p in _modules()} - {"scanner"}
    assert rooms - set(LAYERS) == set()


def test_no_import_runs_up_a_layer() -> None:
    upward = []
    for path in _modules():
        source = _room(_module_name(path))
        if source == "scanner":
            continue
        for line, module, _ in _imports(path):
            target = _room(module)
            if not module.startswith("scanner.") or target == source or target not in LAYERS:
                continue
            if LAYERS.index(target) > LAYERS.index(source):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert upward == []


def _module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports, deferred imports included (a deferred import is how a cycle hides)."""
    known = {_module_name(p) for p in _modules()}
    graph: dict[str, set[str]] = {}
    for path in _modules():
        targets = set()
        for _, module, _ in _imports(path):
            while module and module not in known:  # `from scanner.run import boot` names a module or a package
                module = module.rpartition(".")[0]
            if module and module != "scanner":
                targets.add(module)
        graph[_module_name(path)] = targets - {_module_name(path)}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph`, or [] (a depth-first search for a back edge)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_import_cycle_even_through_deferred_imports() -> None:
    assert _cycle(_module_graph()) == []


def test_the_cycle_search_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def _declared_distributions() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # The core, and the extras a command of mcp-lock needs (`bom`); the test extra is for the tests only.
    extras = project.get("optional-dependencies", {})
    requirements = [*project["dependencies"], *(r for name, listed in extras.items() if name != "test" for r in listed)]
    names = (re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0] for requirement in requirements)
    return {name.lower().replace("_", "-") for name in names}


def test_every_third_party_import_is_declared() -> None:
    declared = _declared_distributions()
    providers = importlib.metadata.packages_distributions()
    undeclared = set()
    for path in _modules():
        for _, module, _ in _imports(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in {"scanner", "__future__"}:
                continue
            distributions = {name.lower().replace("_", "-") for name in providers.get(top, [top])}
            if not distributions & declared:
                undeclared.add(f"{top} ({', '.join(sorted(distributions))})")
    assert undeclared == set()


@pytest.mark.parametrize("missing", ["markupsafe"])
def test_the_declaration_check_can_fail(missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a declared distribution, its import is reported (the check above is not vacuous)."""
    declared = _declared_distributions()
    assert missing in declared
    monkeypatch.setattr(sys.modules[__name__], "_declared_distributions", lambda: declared - {missing})
    with pytest.raises(AssertionError, match=missing):
        test_every_third_party_import_is_declared()
