"""One server entry → one Declaration: typed fields, transport inference, template, resolved launch.

Every client writes an entry as a variation of one shape (`command`/`args`/`env` for a local
server, `url`/`headers` for a remote one); what differs between clients is data in `Dialect`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from scanner.model.environment import GIVEN_ANYWAY
from scanner.model.secret_values import recorded_env_value
from scanner.model.transports import HTTP, SSE, STDIO, is_local
from scanner.sources import jsonc
from scanner.sources.closure import Sealed, closure_of
from scanner.sources.common import Scan, problem
from scanner.sources.declarations import (
    Declaration,
    LaunchTemplate,
    ResolvedLaunch,
    Severity,
    SourceLocation,
    Transport,
)
from scanner.sources.interpolate import (
    NONE,
    Context,
    Family,
    Missing,
    Resolver,
    literal_placeholders,
    normalise,
)

# Every transport name some client uses, and what it means.
TRANSPORTS: dict[str, Transport] = {
    "stdio": STDIO,
    "local": STDIO,  # opencode, Copilot CLI
    "http": HTTP,
    "streamable-http": HTTP,
    "streamableHttp": HTTP,  # Cline
    "streamable_http": HTTP,  # Goose
    "remote": HTTP,  # opencode
    "sse": SSE,
}

Entry = dict[str, object]


@dataclass(frozen=True)
class Dialect:
    """How one client reads a server entry."""

    client: str  # Declaration.client, e.g. "claude-code"
    label: str  # for messages, e.g. "Claude Code"
    family: Family = NONE
    # `url` without `type`: "error" (Claude Code), "http", or "http+sse" (try HTTP, fall back to SSE).
    url_only: Literal["error", "http", "http+sse"] = "http"
    # Keys that hold a remote URL, and the transport a key implies by itself (Gemini `httpUrl`).
    url_keys: Mapping[str, Transport | None] = field(default_factory=lambda: {"url": None})
    http_fallback: bool = False  # VS Code falls back to SSE even when `type` is "http"
    types: frozenset[str] | None = None  # the `type` values the client accepts, when documented
    env_key: str = "env"
    headers_key: str = "headers"
    argv_command: bool = False  # opencode: `command` is the whole argv array
    strict: frozenset[jsonc.NoteKind] = frozenset()  # JSON leniencies the client rejects
    reserved: frozenset[str] = frozenset()  # server names the client skips
    # Rewrites an entry of an older shape; None means "not launchable from the repo" (skip_note).
    reshape: Callable[[Entry], Entry | None] | None = None
    skip_note: str = ""


@dataclass(frozen=True)
class Forward:
    """A value copied from the environment at launch (Codex `env_vars`, server.json variables)."""

    var: str
    prefix: str = ""
    required: bool = True


@dataclass
class Launch:
    """An entry's launch fields, type-checked, placeholders still as written."""

    transport: Transport
    command: str | None = None
    args: list[str] = field(default_factory=list)
    cwd: str | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    sse_fallback: bool = False
    env_from: dict[str, Forward] = field(default_factory=dict)
    headers_from: dict[str, Forward] = field(default_factory=dict)

    def strings(self) -> list[str]:
        fixed = [s for s in (self.command, self.cwd, self.url) if s is not None]
        return [*fixed, *self.args, *self.env.values(), *self.headers.values()]


@dataclass(frozen=True)
class Where:
    """Where an entry is: its file, its line, and the lines of its fields when known."""

    file: str
    line: int
    fields: Mapping[str, int] = field(default_factory=dict)

    def at(self, key: str | None = None) -> SourceLocation:
        return SourceLocation(self.file, self.fields.get(key, self.line) if key else self.line)

    @classmethod
    def of(cls, doc: jsonc.Document, rel: str, path: tuple[str | int, ...], raw: object) -> Where:
        """The entry at `path` of a parsed document, with the lines of its fields."""
        line = doc.line(*path)
        fields = {k: doc.line(*path, k, default=line) for k in raw} if isinstance(raw, dict) else {}
        return cls(rel, line, fields)


class Fields:
    """Typed access to an entry's fields; a field of the wrong type becomes an error Problem."""

    def __init__(self, decl: Declaration, raw: Entry, where: Where) -> None:
        self.decl = decl
        self.raw = raw
        self.where = where
        self.invalid = False

    def report(self, severity: Severity, code: str, message: str, key: str | None = None) -> None:
        loc = self.where.at(key)
        text = f"server '{self.decl.name}': {message}"
        self.decl.problems.append(problem(severity, code, text, loc.file, loc.line))

    def _wrong(self, key: str, expected: str, field: str | None = None) -> None:
        self.invalid = True
        self.report("error", "invalid-field", f"`{key}` must be {expected}", field or key)

    def text(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is None or isinstance(value, str):
            return value
        self._wrong(key, "a string")
        return None

    def strings(self, key: str) -> list[str] | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self._wrong(key, "a list of strings")
            return None
        bad = [i for i, item in enumerate(value) if not isinstance(item, str)]
        for i in bad:
            self._wrong(f"{key}[{i}]", "a string", key)
        return None if bad else list(value)

    def table(self, key: str) -> dict[str, str]:
        value = self.raw.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self._wrong(key, "an object of string values")
            return {}
        bad = [k for k, v in value.items() if not isinstance(v, str)]
        for k in bad:
            self._wrong(f"{key}.{k}", "a string", key)
        return {} if bad else dict(value)

    def flag(self, key: str) -> bool | None:
        value = self.raw.get(key)
        if value is None or isinstance(value, bool):
            return value
        self._wrong(key, "true or false")
        return None


# -- reading an entry -------------------------------------------------------------------------


def parse_entry(name: str, raw: object, where: Where, dialect: Dialect) -> tuple[Declaration, Launch | None]:
    """Read one entry into a Declaration (no template yet) and its Launch, if it has one."""
    decl = Declaration(name, dialect.client, where.at(), None, None)
    f = Fields(decl, raw if isinstance(raw, dict) else {}, where)
    if name in dialect.reserved:
        f.report("warning", "reserved-name", f"{dialect.label} reserves this name and skips the server")
    if isinstance(raw, dict) and dialect.reshape is not None:
        raw = dialect.reshape(raw)
        if raw is None:
            f.report("warning", "not-launchable", dialect.skip_note)
            return decl, None
        f.raw = raw
    if not isinstance(raw, dict):
        f.report("error", "invalid-entry", "the entry must be an object")
        return decl, None
    decl.disabled = f.flag("disabled") is True or f.flag("enabled") is False
    launch = _launch(f, dialect)
    return decl, None if f.invalid else launch


def _launch(f: Fields, d: Dialect) -> Launch | None:
    command, args = _command(f, d)
    url_key = next((k for k in d.url_keys if f.raw.get(k) is not None), None)
    url = f.text(url_key) if url_key else None
    env, headers, cwd, kind = f.table(d.env_key), f.table(d.headers_key), f.text("cwd"), f.text("type")
    if f.invalid:  # each wrong field is already reported; guessing a launch would only add noise
        return None
    inferred = _transport(f, d, kind, command is not None, url_key)
    if inferred is None:
        return None
    transport, fallback = inferred
    if is_local(transport):
        if command is None:
            f.report("error", "no-launch", "a local (stdio) server needs `command`", "type")
            return None
        return Launch(transport, command, args or [], cwd, env=env)
    if url is None:
        f.report("error", "no-launch", f"a remote ({transport}) server needs `url`", "type")
        return None
    return Launch(transport, url=url, headers=headers, sse_fallback=fallback)


def _command(f: Fields, d: Dialect) -> tuple[str | None, list[str] | None]:
    if not d.argv_command:
        return f.text("command"), f.strings("args")
    if isinstance(f.raw.get("command"), str):
        f._wrong("command", f"an array: {d.label} takes the whole argv in `command`")
        return None, None
    argv = f.strings("command")
    if argv == []:
        f._wrong("command", "a non-empty array")
    return (argv[0], argv[1:]) if argv else (None, None)


def _transport(
    f: Fields, d: Dialect, kind: str | None, has_command: bool, url_key: str | None
) -> tuple[Transport, bool] | None:
    """The transport and whether it falls back to SSE, following the client's own rules."""
    if kind is not None:
        transport = TRANSPORTS.get(kind)
        if transport is None:
            f.report(
                "error",
                "unknown-transport",
                f"unknown transport type '{kind}' (known: {', '.join(TRANSPORTS)})",
                "type",
            )
            return None
        if d.types is not None and kind not in d.types:
            accepted = ", ".join(sorted(d.types))
            f.report(
                "warning",
                "unsupported-type",
                f"{d.label} does not accept type '{kind}' (it accepts {accepted})",
                "type",
            )
        return transport, transport == HTTP and d.http_fallback
    if has_command:
        return STDIO, False
    if url_key is None:
        f.report("error", "no-launch", "needs `command` (local server) or `url` (remote server)")
        return None
    implied = d.url_keys[url_key]
    if implied is not None:
        return implied, False
    if d.url_only == "error":
        hint = 'add "type": "http" (or "sse")'
        f.report("error", "remote-without-type", f"{d.label} rejects a remote server without type: {hint}", url_key)
        return None
    return HTTP, d.url_only == "http+sse"


# -- template and resolution ------------------------------------------------------------------


def finish(decl: Declaration, launch: Launch, dialect: Dialect, ctx: Context) -> Declaration:
    """Set the declaration's template (normalised) and resolved launch (or unresolved problems)."""
    fam = dialect.family

    def norm(text: str | None) -> str | None:
        return None if text is None else normalise(text, fam, ctx.here)

    decl.template = LaunchTemplate(
        transport=launch.transport,
        command=norm(launch.command),
        args=tuple(normalise(a, fam, ctx.here) for a in launch.args),
        cwd=norm(launch.cwd),
        url=norm(launch.url),
        # A header taken from an environment variable names that variable too (Codex).
        env_names=(*launch.env, *launch.env_from, *(f.var for f in launch.headers_from.values())),
        env=_env_record(launch, fam, ctx.here),
        header_names=(*launch.headers, *launch.headers_from),
        sse_fallback=launch.sse_fallback,
    )
    _warn_literals(decl, launch, dialect)
    sealed = Sealed(fam, ctx)  # its context names every value from outside the repository instead
    decl.closure = closure_of(decl, _resolve(launch, sealed.ctx, sealed), sealed.sources)
    resolver = Resolver(fam, ctx)
    resolved = _resolve(launch, ctx, resolver)
    if resolver.missing:
        _report_missing(decl, resolver.missing)
        return decl
    withholding = Resolver(fam, ctx, given=GIVEN_ANYWAY)
    bare = _resolve(launch, ctx, withholding)
    withheld = tuple(dict.fromkeys(withholding.withheld))
    decl.resolved = dataclasses.replace(
        resolved, outside=resolver.outside, bare=bare if withheld else None, withheld=withheld
    )
    return decl


def _resolve(launch: Launch, ctx: Context, resolver: Resolver) -> ResolvedLaunch:
    """The launch with every placeholder resolved; withholding, an env or header entry that held a withheld
    value is left out whole (`Authorization: Bearer ` would still tell the server something was meant)."""

    def table(values: Mapping[str, str], forwards: Mapping[str, Forward]) -> dict[str, str]:
        resolved: dict[str, str] = {}
        for name, template in values.items():
            before = len(resolver.withheld)
            value = resolver(template)
            if len(resolver.withheld) == before:
                resolved[name] = value
        return resolved | _forward(forwards, ctx, resolver)

    return ResolvedLaunch(
        transport=launch.transport,
        command=None if launch.command is None else resolver(launch.command),
        args=tuple(resolver(a) for a in launch.args),
        cwd=None if launch.cwd is None else resolver(launch.cwd),
        url=None if launch.url is None else resolver(launch.url),
        env=table(launch.env, launch.env_from),
        headers=table(launch.headers, launch.headers_from),
        sse_fallback=launch.sse_fallback,
    )


def _env_record(launch: Launch, fam: Family, here: str) -> tuple[tuple[str, str], ...]:
    """Each declared variable with what the lock records for it (see `recorded_env_value`)."""
    declared = {name: normalise(value, fam, here) for name, value in launch.env.items()}
    declared |= {name: f"{fwd.prefix}${{env:{fwd.var}}}" for name, fwd in launch.env_from.items()}
    return tuple(sorted((name, recorded_env_value(name, value)) for name, value in declared.items()))


def _forward(forwards: Mapping[str, Forward], ctx: Context, resolver: Resolver) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, fwd in forwards.items():
        value = ctx.environ.get(fwd.var)
        if value is not None:
            if resolver.give(fwd.var, value, fwd.var):
                values[name] = fwd.prefix + value
        elif fwd.required and not resolver.withholding:
            resolver.missing.append(Missing("env", fwd.var))
    return values


def _report_missing(decl: Declaration, missing: list[Missing]) -> None:
    unique = list(dict.fromkeys(missing))
    for code, kinds in (("unresolved-variable", ("env", "file")), ("unresolved-input", ("input",))):
        hints = [m.hint() for m in unique if m.kind in kinds]
        if hints:
            message = f"server '{decl.name}' cannot be launched here: " + "; ".join(hints)
            decl.problems.append(problem("error", code, message, decl.location.file, decl.location.line))


def _warn_literals(decl: Declaration, launch: Launch, dialect: Dialect) -> None:
    found = list(dict.fromkeys(p for s in launch.strings() for p in literal_placeholders(s, dialect.family)))
    if found:
        message = (
            f"server '{decl.name}': {dialect.label} does not expand {', '.join(found)}; "
            "the server receives the text as written"
        )
        decl.problems.append(problem("warning", "literal-placeholder", message, decl.location.file, decl.location.line))


def declare(name: str, raw: object, where: Where, dialect: Dialect, ctx: Context) -> Declaration:
    """Parse one entry and, when it has a launch, build its template and resolved launch."""
    decl, launch = parse_entry(name, raw, where, dialect)
    return decl if launch is None else finish(decl, launch, dialect, ctx)


def declare_in(
    doc: jsonc.Document,
    path: tuple[str, ...],
    name: str,
    raw: object,
    dialect: Dialect,
    scan: Scan,
    rel: str,
    defaults: Mapping[str, str] | None = None,
) -> Declaration:
    """`declare` for the entry at `path/name` of a parsed document."""
    where = Where.of(doc, rel, (*path, name), raw)
    return declare(name, raw, where, dialect, scan.context(name, rel, defaults))
