"""Fixtures of the install tests: the loopback OSV API (tests/artifacts) and the listener standing in for the
attacker (tests/vcs). npm's cache and mcp-lock's store in the test's own folder (`npm_env`) come from
tests/conftest.py, so that no other test, pytest-xdist worker or run meets them."""

from __future__ import annotations

from artifacts.conftest import osv_api  # noqa: F401  (the loopback OSV API and listener, shared)
from vcs.conftest import listener  # noqa: F401
