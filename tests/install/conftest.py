from __future__ import annotations

from collections.abc import Iterator

import pytest
from artifacts.npm_registry import Registry, serve


@pytest.fixture
def npm_registry() -> Iterator[Registry]:
    registry = Registry()
    server = serve(registry)
    yield registry
    server.shutdown()
    server.server_close()
