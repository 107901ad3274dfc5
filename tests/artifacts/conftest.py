from __future__ import annotations

from collections.abc import Iterator

import pytest

from artifacts.osv_server import OSV
from artifacts.osv_server import serve as serve_osv
from artifacts.simple_index_server import Index
from artifacts.simple_index_server import serve as serve_index


@pytest.fixture
def osv_api() -> Iterator[OSV]:
    osv = OSV()
    server = serve_osv(osv)
    yield osv
    server.shutdown()
    server.server_close()


@pytest.fixture
def simple_index() -> Iterator[Index]:
    index = Index()
    server = serve_index(index)
    yield index
    server.shutdown()
    server.server_close()
