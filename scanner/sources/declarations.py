"""What discovery produces: declarations of servers in config files, and the servers they name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from scanner.model.locations import SourceLocation as SourceLocation  # re-exported for discovery
from scanner.model.transports import Transport, is_local

__all__ = ["SourceLocation", "Transport"]  # re-exported for the parsers and discovery
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """Something wrong with a config file or one declaration in it.

    `code` is a short stable identifier (e.g. "strict-json", "unresolved-variable"),
    `message` says what is wrong and how to fix it.
    """

    severity: Severity
    code: str
    message: str
    location: SourceLocation


@dataclass(frozen=True)
class LaunchTemplate:
    """How a server is started, exactly as declared: placeholders kept, never resolved.

    This is what the lock records and what identifies a server across files and machines:
    `${workspaceFolder}` and `${env:TOKEN}` stay as written (normalised to one spelling per
    family, see `scanner.sources.interpolate`), so a lock made on one machine matches another.
    `env` maps each declared variable to its template as written (see `env_record`): real servers
    switch toolsets through env (`MODE=rw`), so env is part of what identifies a launch.
    `env_names` (which also names the variables headers are read from) and `header_names` carry names only.
    """

    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    env_names: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # (name, recorded template), sorted by name
    header_names: tuple[str, ...] = ()
    # VS Code and Gemini try Streamable HTTP first and fall back to SSE when only `url` is given.
    sse_fallback: bool = False

    def spec(self) -> dict[str, object]:
        """The normalised launch spec, as the lockfile records it."""
        spec: dict[str, object] = {"transport": self.transport}
        if is_local(self.transport):
            spec["command"] = self.command
            spec["args"] = list(self.args)
            if self.cwd is not None:
                spec["cwd"] = self.cwd
            spec["env"] = dict(sorted(self.env))
        else:
            spec["url"] = self.url
            spec["headers"] = sorted({h.lower() for h in self.header_names})
        return spec

    def identity(self) -> tuple[object, ...]:
        """What makes two declarations the same server: the launch, its environment included (header names aside).

        A variable forwarded under its own name (`X: ${env:X}`, Codex `env_vars`) is left out: a client that
        passes its environment on gives the server X anyway, so it names no other toolset.
        """
        env = tuple(sorted((name, value) for name, value in self.env if value != f"${{env:{name}}}"))
        return (self.transport, self.command, self.args, self.cwd, self.url, env)


@dataclass(frozen=True)
class ResolvedLaunch:
    """A launch with every placeholder resolved: what is actually run or contacted.

    Holds secret values; it is never written anywhere, only used to boot the server.
    """

    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    sse_fallback: bool = False
    # Values taken from outside the repository (label -> value, see interpolate.Resolver): what may be secret.
    outside: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # The same launch without them, for a launch not yet reviewed (None: it uses none), and what it lacks.
    bare: ResolvedLaunch | None = field(default=None, compare=False, repr=False)
    withheld: tuple[str, ...] = field(default=(), compare=False)


@dataclass
class Declaration:
    """One server entry in one config file."""

    name: str
    client: str  # which client's format declared it, e.g. "claude-code", "vscode", "cursor"
    location: SourceLocation  # the line where the entry's key (or list item) starts
    template: LaunchTemplate | None  # None when the entry is too broken to say how to launch it
    resolved: ResolvedLaunch | None  # None when a placeholder could not be resolved
    problems: list[Problem] = field(default_factory=list)
    disabled: bool = False  # the client's own `disabled: true` / `enabled: false`
    # What the launch resolves to except secret values (scanner.sources.closure); None without a launch.
    closure: Mapping[str, object] | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


@dataclass
class ConfigFile:
    """A config file that was read, with the declarations found in it."""

    path: str  # repo-relative POSIX path
    client: str
    declarations: list[Declaration] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Server:
    """A server as mcp-lock pins it: one launch, declared in one or more files."""

    key: str  # the name it is pinned under in mcp-lock.json
    declarations: list[Declaration]
    # Under `check --base`: the names whose `servers:` entry applies (a name that called another server at
    # the merge base brings nothing); None: all of `names`.
    bound: tuple[str, ...] | None = None

    @property
    def primary(self) -> Declaration:
        return self.declarations[0]

    @property
    def names(self) -> tuple[str, ...]:
        """The key, then every other name the declarations give this launch, in discovery order."""
        return tuple(dict.fromkeys((self.key, *(d.name for d in self.declarations))))

    @property
    def policy_names(self) -> tuple[str, ...]:
        """The names to look the server's policy up by (`Policy.for_server`)."""
        return self.names if self.bound is None else self.bound

    @property
    def template(self) -> LaunchTemplate | None:
        return self.primary.template

    @property
    def resolved(self) -> ResolvedLaunch | None:
        return self.primary.resolved

    @property
    def problems(self) -> list[Problem]:
        return [p for d in self.declarations for p in d.problems]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]
