"""What a stdio server's environment holds besides its declaration: the same on every machine, and no secret."""

from __future__ import annotations

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
