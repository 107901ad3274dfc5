"""MCP registry `server.json`: each package becomes a launch
`<runtimeHint> <runtimeArguments> <identifier>[@version] <packageArguments>`, each remote an HTTP/SSE
server. `{name}` in values names a variable the user supplies (defaults from `variables`)."""

from __future__ import annotations

import posixpath

from scanner.model.transports import STDIO, is_local
from scanner.sources import interpolate as ip
from scanner.sources import jsonc
from scanner.sources.common import Scan, load_recognised, problem
from scanner.sources.declarations import ConfigFile, Declaration
from scanner.sources.entry import TRANSPORTS, Dialect, Fields, Forward, Launch, Where, finish
from scanner.sources.mcpjson import syntax_problems

REGISTRY = Dialect("mcp-registry", "MCP registry", ip.REGISTRY)
FILENAME = "server.json"
RUNTIMES = {"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}

Item = dict[str, object]


def is_registry_entry(value: object) -> bool:
    """`server.json` is a common name (json-server mocks); require the registry's own markers."""
    if not isinstance(value, dict):
        return False
    schema = value.get("$schema")
    marked = isinstance(schema, str) and "modelcontextprotocol" in schema
    return marked or isinstance(value.get("packages"), list) or isinstance(value.get("remotes"), list)


def read(scan: Scan, rel: str) -> ConfigFile | None:
    doc = load_recognised(scan.repo, rel, is_registry_entry)
    if doc is None:
        return None
    server: Item = doc.value  # type: ignore[assignment]
    cf = ConfigFile(rel, REGISTRY.client, problems=syntax_problems(doc, rel, REGISTRY))
    base = server.get("name")
    base = base if isinstance(base, str) else posixpath.dirname(rel) or "server"
    items = [(key, i, item) for key in ("packages", "remotes") for i, item in enumerate(_list(server.get(key)))]
    for (key, i, item), name in zip(items, _names(base, items), strict=True):
        cf.declarations.append(_declare(scan, rel, doc, name, key, i, item))
    return cf


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _names(base: str, items: list[tuple[str, int, object]]) -> list[str]:
    """One launch keeps the server's name; several get `#npm`, `#remote`, `#npm-2`, ..."""
    if len(items) == 1:
        return [base]
    names: list[str] = []
    for key, _, item in items:
        kind = item.get("registryType") if isinstance(item, dict) and key == "packages" else "remote"
        label = f"{base}#{kind if isinstance(kind, str) else 'package'}"
        count = sum(1 for n in names if n == label or n.startswith(label + "-"))
        names.append(f"{label}-{count + 1}" if count else label)
    return names


def _declare(scan: Scan, rel: str, doc: jsonc.Document, name: str, key: str, i: int, item: object) -> Declaration:
    where = Where.of(doc, rel, (key, i), item)
    decl = Declaration(name, REGISTRY.client, where.at(), None, None)
    if not isinstance(item, dict):
        decl.problems.append(problem("error", "invalid-entry", f"`{key}[{i}]` must be an object", rel, where.line))
        return decl
    f = Fields(decl, item, where)
    defaults: dict[str, str] = {}
    launch = _package(f, defaults) if key == "packages" else _remote(f, defaults)
    if launch is not None and not f.invalid:
        finish(decl, launch, REGISTRY, scan.context(name, rel, defaults))
    return decl


def _package(f: Fields, defaults: dict[str, str]) -> Launch | None:
    kind = f.text("registryType")
    transport = f.raw.get("transport")
    transport_type = transport.get("type") if isinstance(transport, dict) else "stdio"
    if transport_type != "stdio":  # the registry format's own spelling of its only local transport
        note = f"the package serves {transport_type} itself; mcp-lock only starts stdio packages"
        f.report("warning", "not-launchable", note, "transport")
        return None
    if kind == "mcpb":
        note = "an MCPB bundle is unpacked by the client; pin the bundle's manifest.json instead"
        f.report("warning", "not-launchable", note, "registryType")
        return None
    identifier, version = f.text("identifier"), f.text("version")
    runtime = f.text("runtimeHint") or RUNTIMES.get(kind or "")
    if identifier is None or runtime is None:
        missing = "`identifier`" if identifier is None else f"`runtimeHint` (unknown registryType '{kind}')"
        f.report("error", "no-launch", f"a package needs {missing}", "identifier")
        return None
    target = identifier if kind == "oci" or not version else f"{identifier}@{version}"
    runtime_args = _arguments(f, "runtimeArguments", defaults)
    if runtime == "docker" and "run" not in runtime_args:
        runtime_args = ["run", "-i", "--rm", *runtime_args]  # stdio needs an attached stdin
    launch = Launch(STDIO, runtime, [*runtime_args, target, *_arguments(f, "packageArguments", defaults)])
    for var in _items(f, "environmentVariables"):
        text, var_name = _text(var, defaults), var.get("name")
        if not isinstance(var_name, str):
            continue
        if text is not None:
            launch.env[var_name] = text
        else:
            launch.env_from[var_name] = Forward(var_name, required=var.get("isRequired") is True)
    return launch


def _remote(f: Fields, defaults: dict[str, str]) -> Launch | None:
    kind, url = f.text("type"), f.text("url")
    transport = TRANSPORTS.get(kind or "")
    if url is None:
        f.report("error", "no-launch", "a remote needs `url`", "url")
        return None
    if transport is None or is_local(transport):
        f.report("error", "unknown-transport", f"unknown remote type '{kind}' (streamable-http or sse)", "type")
        return None
    _text(f.raw, defaults)  # the remote's own `variables` (e.g. {tenant_id} in the URL)
    launch = Launch(transport, url=url)
    for header in _items(f, "headers"):
        text, header_name = _text(header, defaults), header.get("name")
        if isinstance(header_name, str) and (text is not None or header.get("isRequired") is True):
            launch.headers[header_name] = text if text is not None else f"{{{header_name}}}"
    return launch


def _items(f: Fields, key: str) -> list[Item]:
    value = f.raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        f.invalid = True
        f.report("error", "invalid-field", f"`{key}` must be a list of objects", key)
        return []
    return value


def _text(item: Item, defaults: dict[str, str]) -> str | None:
    """An input's value (or default); records the defaults of the `{variables}` it uses."""
    variables = item.get("variables")
    for name, spec in (variables if isinstance(variables, dict) else {}).items():
        if isinstance(spec, dict) and isinstance(spec.get("default"), str):
            defaults.setdefault(name, spec["default"])
    for key in ("value", "default"):
        if isinstance(item.get(key), str):
            return item[key]  # type: ignore[return-value]
    return None


def _arguments(f: Fields, key: str, defaults: dict[str, str]) -> list[str]:
    argv: list[str] = []
    for arg in _items(f, key):
        text, name = _text(arg, defaults), arg.get("name")
        named = arg.get("type") == "named" and isinstance(name, str)
        if text is None:
            if named and arg.get("format") in (None, "boolean"):
                argv.append(name)  # type: ignore[arg-type]  # a flag
                continue
            if arg.get("isRequired") is not True:
                continue
            hint = next(h for h in (arg.get("valueHint"), name, key) if isinstance(h, str))
            text = f"{{{hint}}}"  # the user supplies it as an input
        argv += [name, text] if named else [text]  # type: ignore[list-item]
    return argv
