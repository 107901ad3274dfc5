"""The licenses a uv tree's installed distributions state in their METADATA (`License-Expression`, else a short
`License`, else the license classifier), read by mcp-lock from the verified store entry (never by running
package code): the license of a PyPI package whose index has no JSON API to state it.

Bounded: at most MAX_PACKAGES METADATA files, each read up to MAX_HEADERS bytes (the headers come first), never
through a link; an entry that does not verify is not read.
"""

from __future__ import annotations

import email.parser
import itertools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scanner.artifacts.pypi_index import info_license
from scanner.install.packages import MAX_PACKAGES, normalised
from scanner.install.store import ready_entry, store_root
from scanner.install.verify import seal_key

MAX_HEADERS = 256 * 1024  # bytes of one METADATA read (a long description follows the headers)


def installed_licenses(caller: Mapping[str, str], tree: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(normalised name, version) -> the license its installed METADATA states, for `tree`'s store entry."""
    entry = ready_entry(store_root(caller), tree, seal_key(caller))
    if entry is None:
        return {}
    found: dict[tuple[str, str], str] = {}
    files = entry.glob("venv/lib/python*/site-packages/*.dist-info/METADATA")
    for path in itertools.islice(files, MAX_PACKAGES):
        headers = _headers(path)
        name, version = headers.get("Name"), headers.get("Version")
        stated = info_license({"license_expression": headers.get("License-Expression"),
                               "license": headers.get("License"), "classifiers": headers.get_all("Classifier")})
        if name and version and stated:
            found[(normalised(str(name)), str(version))] = stated
    return found


def _headers(path: Path) -> email.message.Message:
    try:
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as handle:
            data = handle.read(MAX_HEADERS)
    except OSError:
        data = b""
    head = data.split(b"\n\n", 1)[0]
    return email.parser.BytesHeaderParser().parsebytes(head)
