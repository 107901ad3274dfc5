"""The environment a stdio server is started with: minimal, the same on every machine, and no secret.

The tables are read by discovery (what a launch may interpolate without holding a secret) as well as by the
transports, so they live at the bottom of the import graph.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

# How a declaration whose variable or input is unset here is reported (scanner.sources.entry): the report's
# next steps recognise it, since that finding asks for a value, not for a change to the config file.
UNLAUNCHABLE = "cannot be launched here"

# Fixed so that definitions do not depend on whose machine made the pin (mcp-server-time writes
# the local timezone into its parameter descriptions) and so servers print no colour codes.
# A declaration that sets one of these keeps its own value.
REPRODUCIBLE = {
    "TZ": "UTC",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
    "TERM": "dumb",
    "NO_COLOR": "1",
}

# Taken from the caller: what finds programs and their caches, and which certificate authorities
# to trust (paths, not secrets; without them npx/uvx fail behind a TLS-inspecting proxy).
# Nothing else is inherited; in CI the rest of the environment holds secrets.
INHERITED = (
    "PATH",
    "HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
)
# Who runs the server, also taken from the caller: not secrets, and servers may build definitions from
# them (a default user or shell), so leaving them out would change what such a server lists.
IDENTITY = ("USER", "LOGNAME", "SHELL")
# Caller variables every stdio server gets: a launch that interpolates one holds no secret by that.
GIVEN_ANYWAY = frozenset((*INHERITED, *IDENTITY))

def server_environment(
    declared: Mapping[str, str],
    passthrough: Iterable[str] = (),
    caller: Mapping[str, str] | None = None,
    temp_dir: str | None = None,
) -> dict[str, str]:
    """Build the complete environment for one stdio server.

    `declared` is the declaration's own (resolved) env; `passthrough` names extra caller
    variables the repo policy allows this server to see.
    """
    caller = os.environ if caller is None else caller
    env = {name: caller[name] for name in (*IDENTITY, *INHERITED) if name in caller}
    env.setdefault("PATH", os.defpath)
    if temp_dir is not None:
        env["TMPDIR"] = env["TMP"] = env["TEMP"] = temp_dir
    env.update(REPRODUCIBLE)
    # mcp-lock's own variables would tell a server it is being scanned: never passed through.
    env.update({name: caller[name] for name in passthrough if name in caller and not name.startswith("MCP_LOCK_")})
    env.update(declared)
    return env
