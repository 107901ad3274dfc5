"""A launch's closure: everything it resolves to except secret values, so that two runs can tell whether a
change under review altered what a launch runs or where it sends what it is given.

The launch template keeps placeholders as written, so `${input:host}`, a header's `${DOCS_TOKEN}` (the lock
records header names only) or opencode's `{file:url.txt}` look the same whatever they resolve to. The closure
resolves every placeholder as the launch will, except that a value from outside the repository is replaced by
the name it is read under: a caller variable by `${env:NAME}`, a policy input read from the environment by
`${input:ID}`. Inputs (a VS Code default, a policy literal) and the contents of `{file:…}` are kept as
resolved, and listed again under `sources` so a difference can be named by where it came from. The closure is
compared and never written anywhere; findings name the fields that differ, never their values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scanner.sources.declarations import Declaration, ResolvedLaunch, Server
from scanner.sources.interpolate import Context, Family, Placeholder, Resolver, file_ref

Closure = Mapping[str, object]


class Sealed(Resolver):
    """Resolves like `Resolver`, with every value from outside the repository replaced by its name."""

    def __init__(self, family: Family | str, ctx: Context) -> None:
        outside = set(ctx.environ.values())
        sealed = dataclasses.replace(
            ctx,
            environ={name: f"${{env:{name}}}" for name in ctx.environ},
            # The same test as Resolver._input: an input whose value is a caller variable's was read from one.
            inputs={k: f"${{input:{k}}}" if v and v in outside else v for k, v in ctx.inputs.items()},
        )
        super().__init__(family, sealed)
        self.sources: dict[str, str | None] = {}

    def _value(self, p: Placeholder) -> str:
        here = self.ctx.here
        if p.kind == "workspace" or (p.kind == "here" and not here):
            return "${workspaceFolder}"  # the checkout's own path differs from the base's temporary copy
        if p.kind == "here":
            return f"${{workspaceFolder}}/{here}"
        if p.kind == "basename":
            return "${workspaceFolderBasename}"
        if p.kind == "file":
            ref, before = file_ref(p.name, here), len(self.missing)
            text = self._file(p.name)
            self.sources[f"file:{ref}"] = text if len(self.missing) == before else None
            return f"${{file:{ref}}}"
        return super()._value(p)

    def _input(self, name: str) -> str:
        value = super()._input(name)
        self.sources[f"input:{name}"] = value if name in self.ctx.inputs else None
        return value


def closure_of(declaration: Declaration, launch: ResolvedLaunch, sources: Mapping[str, str | None]) -> Closure:
    """The closure of `declaration`, whose launch `Sealed` resolved to `launch`."""
    return {
        "client": declaration.client,
        "transport": launch.transport,
        "command": launch.command,
        "args": list(launch.args),
        "cwd": launch.cwd,
        "url": launch.url,
        "env": dict(launch.env),
        "headers": {name.lower(): value for name, value in launch.headers.items()},
        "sse_fallback": launch.sse_fallback,
        "sources": dict(sources),
    }


def file_refs(closures: Iterable[Closure | None]) -> set[str]:
    """The repository-relative files whose contents the closures hold (`{file:…}`)."""
    refs: set[str] = set()
    for closure in closures:
        sources = closure.get("sources", {}) if closure is not None else {}
        assert isinstance(sources, dict)
        refs.update(key[len("file:") :] for key in sources if key.startswith("file:"))
    return {ref for ref in refs if not ref.startswith(("/", "~"))}


@dataclass(frozen=True)
class LaunchView:
    """What decides whether a server's launch is the one reviewed at the merge base: its closure (the
    primary declaration's, whose launch is booted), every name it is declared under, and where."""

    closure: Closure | None
    names: frozenset[str]
    declared: frozenset[tuple[str, str]]  # (file, name) of each declaration


def view_of(server: Server) -> LaunchView:
    declared = frozenset((d.location.file, d.name) for d in server.declarations)
    return LaunchView(server.primary.closure, frozenset(d.name for d in server.declarations), declared)


def differences(old: Closure | None, new: Closure | None) -> list[str]:
    """The fields in which closure `new` differs from `old`: `args`, `env.API_URL`, `input:host`, …"""
    if old is None or new is None:
        return [] if old is new else ["launch"]
    names: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            prefix = "" if key == "sources" else f"{key}."
            names += [f"{prefix}{sub}" for sub in sorted(a.keys() | b.keys()) if a.get(sub) != b.get(sub)]
        else:
            names.append(key)
    return names
