"""Helpers shared by the discovery tests: example repositories live in `data/<name>/`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scanner.sources.declarations import ConfigFile, Declaration
from scanner.sources.discover import Discovery, discover

DATA = Path(__file__).parent / "data"
HOME = "/home/ci"


def scan(name: str, environ: Mapping[str, str] | None = None, **kwargs: object) -> Discovery:
    return discover(DATA / name, {"HOME": HOME, **(environ or {})}, **kwargs)  # type: ignore[arg-type]


def config(discovery: Discovery, path: str) -> ConfigFile:
    matches = [cf for cf in discovery.files if cf.path == path]
    assert len(matches) == 1, [cf.path for cf in discovery.files]
    return matches[0]


def declared(cf: ConfigFile) -> dict[str, Declaration]:
    return {d.name: d for d in cf.declarations}


def codes(problems: list) -> list[tuple[str, str, int]]:
    """Problems as (severity, code, line), the part tests pin exactly."""
    return [(p.severity, p.code, p.location.line) for p in problems]
