from __future__ import annotations

from collections.abc import Iterator

import pytest

from artifacts.npm_registry import Registry, serve
from artifacts.osv_server import OSV
from artifacts.osv_server import serve as serve_osv


@pytest.fixture
def npm_registry() -> Iterator[Registry]:
    registry = Registry()
    server = serve(registry)
    yield registry
    server.shutdown()
    server.server_close()


@pytest.fixture
def osv_api() -> Iterator[OSV]:
    osv = OSV()
    server = serve_osv(osv)
    yield osv
    server.shutdown()
    server.server_close()
