"""mcp-lock.json: the public face of the lock package, the only code that reads or writes the file.

The format is specified in lockfile-spec/SPEC.md; the schema ships next to this package. Each job has its
own module: the model (`model`), pinning a snapshot (`pin`), the document and its text (`document`), the
schema check (`schema`), reading and verifying (`reader`), writing with proof (`writer`).
"""

from __future__ import annotations

from scanner.lock.document import line_index, render, to_document
from scanner.lock.model import (
    LOCKFILE_VERSION,
    LaunchDiff,
    Lockfile,
    LockfileError,
    Pin,
    ServerPin,
    launch_diff,
    rebuild,
    surface_digest,
)
from scanner.lock.pin import pin_server
from scanner.lock.reader import parse, read
from scanner.lock.schema import SCHEMA_RESOURCE
from scanner.lock.writer import write

__all__ = [
    "LOCKFILE_VERSION",
    "SCHEMA_RESOURCE",
    "LaunchDiff",
    "Lockfile",
    "LockfileError",
    "Pin",
    "ServerPin",
    "launch_diff",
    "line_index",
    "parse",
    "pin_server",
    "read",
    "rebuild",
    "render",
    "surface_digest",
    "to_document",
    "write",
]
