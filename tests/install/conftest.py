"""Fixtures of the install tests: the loopback OSV API (tests/artifacts), the listener standing in for the
attacker (tests/vcs) and a loopback TLS server (tests/install/tls_server.py). npm's cache and mcp-lock's store
in the test's own folder (`npm_env`) come from tests/conftest.py, so that no other test, pytest-xdist worker or
run meets them."""

from __future__ import annotations

from artifacts.conftest import osv_api  # noqa: F401  (the loopback OSV API and listener, shared)
from vcs.conftest import listener  # noqa: F401

from install.tls_server import certificate, tls_server  # noqa: F401  (a loopback TLS server, for the gate)
