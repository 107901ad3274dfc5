"""`script-hosts:` — the hosts a named npm package's install script may download from; none by default.

    script-hosts:
      puppeteer: [storage.googleapis.com]          # its browser download
      playwright-core: [cdn.playwright.dev, playwright.download.prss.microsoft.com]

Install scripts run in the sandbox, one package at a time, and reach only the configured registry through
mcp-lock's gate (scanner.install.netgate); a package named here reaches these hosts too (`host` or
`host:port`, port 443 when not given; compared normalised, scanner.model.hosts, and to the TLS server name the
script asks for). The name is the package fetched: an alias `puppeteer@npm:other` is `other`. The list is
judged from the base under `check --base`: a host the base does not list is `policy-loosened` and stays
refused until merged; a host removed applies at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from scanner.model.hosts import host_identity
from scanner.policy.differences import Difference, as_json
from scanner.policy.values import PolicyError

KEY = "script-hosts"
NPM_NAME = re.compile(r"(@[a-z0-9][a-z0-9._~-]{0,100}/)?[a-z0-9][a-z0-9._~-]{0,113}")
HOST_PORT = re.compile(r"(?P<host>[^\s:/\[\]@]{1,253}|\[[0-9a-fA-F:.]{2,45}\])(:(?P<port>[0-9]{1,5}))?")
MAX_PACKAGES, MAX_HOSTS = 200, 20
ScriptHostList = Mapping[str, tuple[str, ...]]  # package -> "host:port", normalised


def script_hosts(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    """The packages of `script-hosts:` and their hosts, each as `host:port` in its one spelling."""
    if value is None:
        return {}
    usage = f"{where}: {KEY} maps npm package names to lists of hosts, e.g. {KEY}: {{puppeteer: [host.example]}}"
    if not isinstance(value, dict) or len(value) > MAX_PACKAGES:
        raise PolicyError(usage)
    found: dict[str, tuple[str, ...]] = {}
    for name, hosts in value.items():
        if not isinstance(name, str) or not NPM_NAME.fullmatch(name) or not isinstance(hosts, list):
            raise PolicyError(usage)
        if len(hosts) > MAX_HOSTS or not all(isinstance(h, str) for h in hosts):
            raise PolicyError(usage)
        found[name] = tuple(dict.fromkeys(_host_port(h, f"{where}: {KEY}.{name}") for h in hosts))
    return found


def _host_port(text: str, where: str) -> str:
    matched = HOST_PORT.fullmatch(text.strip())
    host = host_identity(matched["host"].strip("[]")) if matched else None
    port = int(matched["port"]) if matched and matched["port"] else 443
    if host is None or not 0 < port < 65536:
        raise PolicyError(f"{where}: {text!r} is not a host or host:port (no scheme, no path)")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def judge_script_hosts(
    base: ScriptHostList, change: ScriptHostList, where: str, out: list[Difference]
) -> dict[str, tuple[str, ...]]:
    """The hosts both allow, per package; a host only the change adds loosens the policy."""
    kept: dict[str, tuple[str, ...]] = {}
    for name in sorted(set(base) | set(change)):
        was, now = base.get(name, ()), change.get(name, ())
        added = [h for h in now if h not in was]
        removed = [h for h in was if h not in now]
        if added:
            says = f"lets the install script of {as_json(name)} reach {as_json(added)} (the base does not)"
            out.append(Difference(f"{KEY}.{name}", (KEY, name), where, True, says))
        if removed:
            says = f"no longer lets the install script of {as_json(name)} reach {as_json(removed)}"
            out.append(Difference(f"{KEY}.{name}", (KEY, name), where, False, says))
        both = tuple(h for h in now if h in was)
        if both:
            kept[name] = both
    return kept
