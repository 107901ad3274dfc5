"""Reading config files safely: every failure becomes a Problem, never an exception."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.files import safe_yaml
from scanner.files.safe_read import CONFIG_LIMIT, RefusedFile, read_regular
from scanner.model.pointer import join
from scanner.sources import jsonc
from scanner.sources.declarations import ConfigFile, Problem, Severity, SourceLocation
from scanner.sources.interpolate import Context

if TYPE_CHECKING:
    import yaml

# Config files are small; anything bigger is not a config file we should spend memory on.
MAX_BYTES = CONFIG_LIMIT


@dataclass(frozen=True)
class Scan:
    """One discovery run: the repository and what placeholders resolve against."""

    repo: Path
    environ: Mapping[str, str]
    inputs: Mapping[str, str] = field(default_factory=dict)
    server_inputs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    input_vars: Mapping[str, str] = field(default_factory=dict)  # see Context.input_vars

    def context(self, name: str, rel: str, defaults: Mapping[str, str] | None = None) -> Context:
        """The resolution context for server `name` declared in `rel`.

        Later wins: declared defaults, global inputs, `server_inputs[name]`, `server_inputs[name@rel]`.
        """
        inputs = {
            **(defaults or {}),
            **self.inputs,
            **self.server_inputs.get(name, {}),
            **self.server_inputs.get(f"{name}@{rel}", {}),
        }
        return Context(self.environ, self.repo, inputs, posixpath.dirname(rel), self.input_vars)


class SourceError(Exception):
    """A file that cannot be read or parsed; becomes an error Problem on its ConfigFile."""

    def __init__(self, code: str, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line


def problem(severity: Severity, code: str, message: str, rel: str, line: int = 1) -> Problem:
    return Problem(severity, code, message, SourceLocation(rel, line))


def broken(rel: str, client: str, err: SourceError) -> ConfigFile:
    return ConfigFile(rel, client, problems=[problem("error", err.code, err.message, rel, err.line)])


def read_text(repo: Path, rel: str) -> str:
    """The file as text; raises SourceError when it is unreadable, refused (scanner.files.safe_read) or not UTF-8."""
    try:
        data = read_regular(repo / rel, repo, rel, MAX_BYTES)
    except RefusedFile as exc:
        raise SourceError("unreadable", f"cannot read {rel}: {exc.reason}") from None
    try:
        return jsonc.decode(data)
    except jsonc.JsoncError as exc:
        raise SourceError("not-utf8", f"{rel} is {exc.reason}; save it as UTF-8", exc.line) from None


def load_json(repo: Path, rel: str) -> jsonc.Document:
    try:
        return jsonc.parse(read_text(repo, rel))
    except jsonc.JsoncError as exc:
        raise SourceError("parse-error", f"{rel} is not valid JSON: {exc}", exc.line) from None


def load_recognised(repo: Path, rel: str, recognise: Callable[[object], bool]) -> jsonc.Document | None:
    """A JSON file with a common name (server.json, manifest.json), only if it is ours.

    An unparseable one is not known to be an MCP file, so it is ignored rather than reported.
    """
    try:
        doc = load_json(repo, rel)
    except SourceError:
        return None
    return doc if recognise(doc.value) else None


def load_yaml(repo: Path, rel: str) -> jsonc.Document:
    """A YAML file as a Document, with lines of mapping keys and list items (pointer-keyed)."""
    import yaml  # here, not at the top: most repositories have no YAML config to read (issue 39 item 2)

    text = read_text(repo, rel).removeprefix("\ufeff")
    try:
        value = safe_yaml.load(text)
        node = safe_yaml.compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        column = mark.column + 1 if mark else 1
        raise SourceError(
            "parse-error", f"{rel} is not valid YAML: line {line}, column {column}: {exc.problem}", line
        ) from None
    except Exception as exc:  # PyYAML raises assorted errors (bad dates, recursion) on odd input
        raise SourceError("parse-error", f"{rel} is not valid YAML: {exc}") from None
    doc = jsonc.Document(value)
    if node is not None:
        _yaml_lines(node, "", doc.lines, 0)
    return doc


def _yaml_lines(node: yaml.Node, ptr: str, lines: dict[str, int], depth: int) -> None:
    import yaml

    # Aliases can make the tree exponentially large; a config needs far fewer lines than this.
    if depth > jsonc.MAX_DEPTH or len(lines) > 100_000:
        return
    if isinstance(node, yaml.MappingNode):
        for key, child in node.value:
            sub = ptr + join([str(key.value)])
            lines[sub] = key.start_mark.line + 1
            _yaml_lines(child, sub, lines, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, child in enumerate(node.value):
            sub = f"{ptr}/{i}"
            lines[sub] = child.start_mark.line + 1
            _yaml_lines(child, sub, lines, depth + 1)
