"""The package's own YAML tables (rules, the detector catalogue, the meaning vocabulary), read without PyYAML.

Each table is written as YAML for the people who edit it, and every command reads one or more of them, two before
its first server starts: importing PyYAML and parsing cost more than the rest of the start-up they sit in (issue 39
item 2). So each `x.yaml` has an `x.compiled.json` beside it, its parsed value as JSON with the SHA-256 of the
YAML it was made from. `value` takes the JSON only when that digest is the YAML's of today, and parses the YAML
otherwise, so a compiled file the YAML has changed since, one that is missing or one that does not parse costs
time, never a different table; whoever reads the value checks it the same way either way. The owner of each
table rewrites its compiled file (`python -m` of the owning module), and a test fails while one is stale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

DIGEST_KEY = "yaml_sha256"
VALUE_KEY = "value"

Parse = Callable[[str], Any]


def compiled_path(source: Path) -> Path:
    return source.with_name(source.stem + ".compiled.json")


def value(source: Path, parse: Parse) -> Any:
    """The parsed value of the YAML file `source`: its compiled JSON when that records this YAML, else `parse`."""
    data = source.read_bytes()
    return value_of(data, _read(compiled_path(source)), parse)


def value_of(data: bytes, compiled: str | None, parse: Parse) -> Any:
    """The parsed value of YAML `data`, from `compiled` (a compiled file's text) when it records `data`'s digest."""
    try:
        recorded = json.loads(compiled) if compiled is not None else None
    except ValueError:
        recorded = None
    if isinstance(recorded, dict) and recorded.get(DIGEST_KEY) == hashlib.sha256(data).hexdigest():
        return recorded.get(VALUE_KEY)
    return parse(data.decode("utf-8"))


def compiled_text(data: bytes, parse: Parse) -> str:
    """What the compiled file of YAML `data` holds: the YAML's digest and `parse`'s value of it, as JSON."""
    parsed = parse(data.decode("utf-8"))
    text = json.dumps({DIGEST_KEY: hashlib.sha256(data).hexdigest(), VALUE_KEY: parsed}, ensure_ascii=False,
                      indent=1) + "\n"
    if json.loads(text)[VALUE_KEY] != parsed:  # a number as a key, a tuple: JSON would hand back another value
        raise ValueError("this YAML's value does not survive JSON unchanged; it cannot be compiled")
    return text


def rewrite(source: Path, parse: Parse) -> Path:
    """Write `source`'s compiled file from the YAML of today (a developer's command, not a run's)."""
    target = compiled_path(source)
    target.write_text(compiled_text(source.read_bytes(), parse), encoding="utf-8")
    return target


def safe_load(text: str) -> Any:
    """PyYAML's safe loader, libyaml's parser when PyYAML has it (a tenth of the pure-Python one's time)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
