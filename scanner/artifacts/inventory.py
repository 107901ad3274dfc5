"""The packages a server runs, as the screens (advisories, release age, install scripts, the bill of materials)
see them: one list of (ecosystem, name, version) per server, each with where the lock records it.

`pin_packages` is the one place that says which packages a pin runs. Today that is the package its launch
names (`launch.artifact`); when the lock records a launch's whole dependency tree, the tree's packages are
listed here and every screen covers them without another change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.record import NPM, PYPI, content
from scanner.lock.lockfile import ServerPin
from scanner.model.pointer import pointer

# OSV's (and the bill of materials' purl) spelling of the lock's artifact types.
ECOSYSTEMS = {NPM: "npm", PYPI: "PyPI"}


@dataclass(frozen=True, order=True)
class Package:
    ecosystem: str  # OSV's spelling: npm, PyPI
    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.ecosystem} {self.name}@{self.version}"

    @property
    def spec(self) -> str:
        """`name@version`: what an `ignore:` entry's `tool` names to accept a finding about this version."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class ServerPackage:
    """One package of one server's launch."""

    package: Package
    location: str  # JSON pointer of its record in the lock
    digest: str | None = None  # the registry's integrity (npm SRI) or the wheel's sha256, when recorded
    direct: bool = True  # the package the launch names (False: a dependency of it)
    license: str | None = None  # an SPDX expression, when the record carries one


def pin_packages(key: str, pin: ServerPin) -> list[ServerPackage]:
    """Every npm and PyPI package `pin` runs. THE place the lock's dependency tree plugs in: today only the
    top-level `launch.artifact` is recorded, so only it is listed."""
    return artifact_packages(key, pin.artifact)


def artifact_packages(key: str, artifact: Mapping[str, Any] | None) -> list[ServerPackage]:
    """The package one artifact record names (none for an image, a local file or a record without a version)."""
    if not artifact or artifact.get("type") not in ECOSYSTEMS:
        return []
    name, version = artifact.get("name"), artifact.get("version")
    if not isinstance(name, str) or not isinstance(version, str) or not name or not version:
        return []
    package = Package(ECOSYSTEMS[artifact["type"]], name, version)
    return [ServerPackage(package, pointer("servers", key, "launch", "artifact"), content(artifact))]


def server_packages(
    pins: Mapping[str, ServerPin], ran: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, list[ServerPackage]]:
    """Per server: the packages its pin runs, then those a live check saw it run that the pin does not list."""
    found: dict[str, list[ServerPackage]] = {}
    for key, pin in pins.items():
        listed = pin_packages(key, pin)
        known = {entry.package for entry in listed}
        listed += [p for p in artifact_packages(key, (ran or {}).get(key)) if p.package not in known]
        found[key] = listed
    return found


def distinct(packages: Iterable[ServerPackage]) -> list[Package]:
    """Each package once, in a stable order."""
    return sorted({entry.package for entry in packages})
