"""Placeholder syntaxes of MCP clients: rewrite them to one spelling, or resolve them.

Every client family spells "an environment variable", "the workspace root" or "a value the user
types in" differently. `normalise` rewrites a string to the canonical spelling below so the same
launch written for two clients compares equal and the lock never holds machine-specific values;
`resolve` substitutes real values following the client's own rules.

Canonical spellings: `${env:NAME}` (with a default: `${env:NAME:-default}`), `${workspaceFolder}`,
`${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${input:id}`, `${secret:NAME}`,
`${file:path}`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from scanner.files.safe_read import FILE_REF_LIMIT, MissingFile, RefusedFile, read_regular

Kind = Literal["env", "workspace", "basename", "home", "sep", "input", "secret", "file", "here"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ID = re.compile(r"[^\s{}]+")
_CONTINUE = re.compile(r"\{\s*(secrets|inputs)\.([A-Za-z0-9_.-]+)\s*\}")
_OPENCODE = re.compile(r"\{(env|file):([^}]+)\}")
_BRACED_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
# Nested defaults (`${A:-${B}}`) are followed this deep, then left as text.
_MAX_NESTING = 8


@dataclass(frozen=True)
class Family:
    """The placeholder syntaxes one client understands."""

    name: str
    posix: bool = False  # ${VAR} and ${VAR:-default}
    bare: bool = False  # $VAR
    unset_empty: bool = False  # an unset variable becomes "" instead of an error
    opencode: bool = False  # {env:VAR}, {file:path}
    continue_: bool = False  # ${{ secrets.X }}, ${{ inputs.X }}
    braces: bool = False  # {name} (server.json variables)
    # `${word}` forms: exact names, then `prefix` + argument.
    names: Mapping[str, tuple[Kind, str]] = field(default_factory=dict)
    prefixes: Mapping[str, Kind] = field(default_factory=dict)


_VSCODE_NAMES: dict[str, tuple[Kind, str]] = {
    "workspaceFolder": ("workspace", ""),
    "workspaceFolderBasename": ("basename", ""),
    "userHome": ("home", ""),
    "pathSeparator": ("sep", ""),
    "/": ("sep", ""),
}

NONE = Family("none")
# Claude Code documents `${CLAUDE_PROJECT_DIR:-.}` for the project root.
CLAUDE = Family("claude-code", posix=True, names={"CLAUDE_PROJECT_DIR": ("workspace", "")})
# Kiro documents ${VAR}; real files also use ${workspaceFolder} (Kiro is a VS Code fork).
KIRO = Family("kiro", posix=True, names={"workspaceFolder": ("workspace", "")})
GEMINI = Family("gemini", posix=True, bare=True, unset_empty=True)
GEMINI_EXTENSION = Family(
    "gemini-extension",
    posix=True,
    bare=True,
    unset_empty=True,
    names={
        "extensionPath": ("here", ""),
        "workspacePath": ("workspace", ""),
        "pathSeparator": ("sep", ""),
        "/": ("sep", ""),
    },
)
VSCODE = Family("vscode", names=_VSCODE_NAMES, prefixes={"env:": "env", "input:": "input"})
OPENCODE = Family("opencode", opencode=True)
CONTINUE = Family("continue", continue_=True)
MCPB = Family(
    "mcpb",
    names={
        "__dirname": ("here", ""),
        "HOME": ("home", ""),
        "DESKTOP": ("home", "Desktop"),
        "DOCUMENTS": ("home", "Documents"),
        "DOWNLOADS": ("home", "Downloads"),
        "/": ("sep", ""),
    },
    prefixes={"user_config.": "input"},
)
# server.json: `{name}` in remote URLs, headers and argument values names a user-supplied variable.
REGISTRY = Family("registry", braces=True)

FAMILIES: dict[str, Family] = {
    f.name: f for f in (NONE, CLAUDE, KIRO, GEMINI, GEMINI_EXTENSION, VSCODE, OPENCODE, CONTINUE, MCPB, REGISTRY)
}


@dataclass(frozen=True)
class Placeholder:
    kind: Kind
    name: str = ""
    default: tuple[Segment, ...] | None = None


Segment = str | Placeholder


@dataclass(frozen=True)
class Missing:
    """A value `resolve` could not find, and how the user supplies it."""

    kind: Literal["env", "input", "file"]
    name: str
    refused: str = ""  # a file that exists but is not read: why (scanner.files.safe_read)

    def hint(self) -> str:
        if self.kind == "input":
            return f"give a value for input '{self.name}' under `inputs:` in mcp-lock.yaml"
        if self.kind == "file":
            return self.refused or f"create the file {self.name}"
        return f"set environment variable {self.name}"


class InterpolationError(ValueError):
    """One or more placeholders in a string could not be resolved."""

    def __init__(self, missing: list[Missing]) -> None:
        self.missing = tuple(dict.fromkeys(missing))
        super().__init__("cannot resolve: " + "; ".join(m.hint() for m in self.missing))


@dataclass(frozen=True)
class Context:
    """What placeholders resolve against.

    `here` is the repo-relative POSIX folder of the declaring file, for `${__dirname}`,
    `${extensionPath}` and opencode's relative `{file:...}`.
    """

    environ: Mapping[str, str]
    workspace: Path
    inputs: Mapping[str, str] = field(default_factory=dict)
    here: str = ""
    # Inputs the policy reads from an environment variable that is not set: input id -> variable name.
    input_vars: Mapping[str, str] = field(default_factory=dict)


def family_of(family: Family | str) -> Family:
    return family if isinstance(family, Family) else FAMILIES[family]


# -- parsing ----------------------------------------------------------------------------------


def parse(text: str, family: Family | str, depth: int = 0) -> list[Segment]:
    """Split `text` into literal strings and placeholders."""
    fam = family_of(family)
    out: list[Segment] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        found = _match(text, i, fam, depth) if text[i] in "${" else None
        if found is None:
            literal.append(text[i])
            i += 1
            continue
        if literal:
            out.append("".join(literal))
            literal = []
        out.append(found[0])
        i = found[1]
    if literal:
        out.append("".join(literal))
    return out


def _match(text: str, i: int, fam: Family, depth: int) -> tuple[Placeholder, int] | None:
    """The placeholder starting at `text[i]`, and where it ends; None for plain text."""
    if text[i] == "{":
        return _curly(text, i, fam)
    if text.startswith("${", i):
        end = _closing_brace(text, i + 1)
        found = _braced(text[i + 2 : end], fam, depth) if end is not None else None
        if found is not None and end is not None:
            return found, end + 1
    if fam.bare:
        word = _NAME.match(text, i + 1)
        if word:
            return Placeholder("env", word.group()), word.end()
    return None


def _curly(text: str, i: int, fam: Family) -> tuple[Placeholder, int] | None:
    """opencode's `{env:VAR}` / `{file:path}`, server.json's `{name}`."""
    if fam.opencode and (m := _OPENCODE.match(text, i)):
        return Placeholder("env" if m.group(1) == "env" else "file", m.group(2).strip()), m.end()
    if fam.braces and (m := _BRACED_NAME.match(text, i)):
        return Placeholder("input", m.group(1)), m.end()
    return None


def _closing_brace(text: str, start: int) -> int | None:
    """Index of the `}` matching the `{` at `start`, counting nested braces."""
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _braced(inner: str, fam: Family, depth: int) -> Placeholder | None:
    """Classify the text between `${` and its `}`; None when the family leaves it as text."""
    if fam.continue_ and (m := _CONTINUE.fullmatch(inner)):
        return Placeholder("secret" if m.group(1) == "secrets" else "input", m.group(2))
    if inner in fam.names:
        return Placeholder(*fam.names[inner])
    for prefix, kind in fam.prefixes.items():
        rest = inner[len(prefix) :]
        if inner.startswith(prefix) and _ID.fullmatch(rest):
            return Placeholder(kind, rest)
    if not fam.posix:
        return None
    head, sep, default = inner.partition(":-")
    if head in fam.names:
        return Placeholder(*fam.names[head])
    if not _NAME.fullmatch(head) or (sep and depth >= _MAX_NESTING):
        return None
    return Placeholder("env", head, tuple(parse(default, fam, depth + 1)) if sep else None)


# -- normalising ------------------------------------------------------------------------------


def normalise(text: str, family: Family | str, here: str = "") -> str:
    """Rewrite every placeholder of `family` in `text` to the canonical spelling."""
    return _render(parse(text, family), lambda p: _canonical(p, here))


def _render(segments: list[Segment] | tuple[Segment, ...], value: Callable[[Placeholder], str]) -> str:
    return "".join(s if isinstance(s, str) else value(s) for s in segments)


def _canonical(p: Placeholder, here: str) -> str:
    if p.kind == "env" and p.name == "HOME" and p.default is None:
        return "${userHome}"  # the same value, spelled as VS Code and MCPB do
    if p.kind == "env":
        if p.default is None:
            return f"${{env:{p.name}}}"
        return f"${{env:{p.name}:-{_render(p.default, lambda d: _canonical(d, here))}}}"
    if p.kind in ("workspace", "here"):
        sub = here if p.kind == "here" else ""
        return "${workspaceFolder}" + (f"/{sub}" if sub else "")
    if p.kind == "home":
        return "${userHome}" + (f"/{p.name}" if p.name else "")
    if p.kind == "file":
        return f"${{file:{file_ref(p.name, here)}}}"
    fixed = {"basename": "${workspaceFolderBasename}", "sep": "${pathSeparator}"}
    return fixed.get(p.kind) or f"${{{p.kind}:{p.name}}}"


def file_ref(name: str, here: str) -> str:
    """opencode resolves a relative `{file:...}` against the config file's folder."""
    if name.startswith(("/", "~")) or not here:
        return name
    return f"{here}/{name}"


# -- resolving --------------------------------------------------------------------------------


class Resolver:
    """Resolves strings of one family, collecting what is missing instead of stopping at it.

    It also records every value it takes from outside the repository (`outside`, label -> value: a
    caller variable, an input read from the environment, a file's contents), which are what may be
    secret. With `given` (names of caller variables every server gets anyway) it resolves the launch
    a server gets when such values are withheld from it: each is left out (a default written in the
    repository applies, else nothing) and its label recorded in `withheld`, and nothing is missing.
    """

    def __init__(self, family: Family | str, ctx: Context, given: frozenset[str] | None = None) -> None:
        self.family = family_of(family)
        self.ctx = ctx
        self.missing: list[Missing] = []
        self.given = given
        self.outside: dict[str, str] = {}
        self.withheld: list[str] = []

    def give(self, label: str, value: str, variable: str | None = None) -> bool:
        """Whether a value from outside the repository goes into the result (`variable`: the caller's name for it)."""
        if self.given is None:
            self.outside[label] = value
            return True
        if variable is not None and variable in self.given:
            return True
        self.withheld.append(label)
        return False

    @property
    def withholding(self) -> bool:
        return self.given is not None

    def __call__(self, text: str) -> str:
        if self.family is NONE:
            return text
        return _render(parse(text, self.family), self._value)

    def _value(self, p: Placeholder) -> str:
        ctx = self.ctx
        if p.kind in ("env", "secret"):
            value = ctx.environ.get(p.name)
            if value is not None and self.give(p.name, value, p.name):
                return value
            if p.default is not None:  # written in the repository: no secret
                return _render(p.default, self._value)
            if value is None and not self.family.unset_empty and not self.withholding:
                self.missing.append(Missing("env", p.name))
            return ""
        if p.kind == "input":
            return self._input(p.name)
        if p.kind == "home":
            return self._home() + (os.sep + p.name if p.name else "")
        if p.kind == "file":
            if self.withholding:
                self.withheld.append(f"file:{p.name}")
                return ""
            return self._file(p.name)
        places = {
            "workspace": str(ctx.workspace),
            "basename": ctx.workspace.name,
            "here": str(ctx.workspace / ctx.here) if ctx.here else str(ctx.workspace),
        }
        return places.get(p.kind, os.sep)

    def _input(self, name: str) -> str:
        ctx = self.ctx
        if name not in ctx.inputs:
            if not self.withholding:
                variable = ctx.input_vars.get(name)
                self.missing.append(Missing("env", variable) if variable else Missing("input", name))
            return ""
        value = ctx.inputs[name]
        # A policy input read from the environment holds a caller variable's value; a default a config
        # declares or a literal in mcp-lock.yaml is written in the repository.
        if value and value in ctx.environ.values() and not self.give(f"input:{name}", value):
            return ""
        return value

    def _home(self) -> str:
        home = self.ctx.environ.get("HOME") or self.ctx.environ.get("USERPROFILE")
        if home is None and not self.family.unset_empty:
            self.missing.append(Missing("env", "HOME"))
        return home or ""

    def _file(self, name: str) -> str:
        ref = file_ref(name, self.ctx.here)
        path = Path(self._home() + ref[1:]) if ref.startswith("~") else self.ctx.workspace / ref
        try:
            text = read_regular(path, self.ctx.workspace, ref, FILE_REF_LIMIT).decode("utf-8").strip()
            self.give(f"file:{name}", text)  # may hold a secret kept out of git (a `.env` file)
            return text
        except MissingFile:
            self.missing.append(Missing("file", ref))
        except RefusedFile as error:
            reason = f"{{file:{ref}}} is not read: {error.reason} (pass a secret with {{env:NAME}})"
            self.missing.append(Missing("file", ref, reason))
        except UnicodeDecodeError:
            self.missing.append(Missing("file", ref, f"{{file:{ref}}} is not read: not UTF-8"))
        return ""

    def check(self) -> None:
        """Raise InterpolationError for everything missing so far."""
        if self.missing:
            raise InterpolationError(self.missing)


def resolve(text: str, family: Family | str, ctx: Context) -> str:
    """Substitute real values; raises InterpolationError naming every missing item in `text`."""
    resolver = Resolver(family, ctx)
    result = resolver(text)
    resolver.check()
    return result


_POSIX_LOOKING = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")


def literal_placeholders(text: str, family: Family | str) -> list[str]:
    """`${VAR}`-shaped text the family passes through unexpanded (a common copy-paste mistake)."""
    return [m.group() for seg in parse(text, family) if isinstance(seg, str) for m in _POSIX_LOOKING.finditer(seg)]
