"""The packages a server runs, as the screens (advisories, release age, install scripts, the bill of materials)
see them: one list of (ecosystem, name, version) per server, each with where the lock records it.

`pin_packages` is the one place that says which packages a pin runs: every package of the launch's dependency
tree when the lock records one (`launch.tree`, lockfile format 3), else the package its launch names
(`launch.artifact`); every screen covers what is listed here.
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


TREE_ECOSYSTEMS = {"npm": "npm", "uv": "PyPI"}  # a tree's manager -> OSV's spelling


def pin_packages(key: str, pin: ServerPin) -> list[ServerPackage]:
    """Every npm and PyPI package `pin` runs: its tree's packages (the one its launch names is `direct`), else
    the package `launch.artifact` names."""
    tree = pin.tree
    ecosystem = TREE_ECOSYSTEMS.get(str(tree.get("manager"))) if tree else None
    if tree is None or ecosystem is None:
        return artifact_packages(key, pin.artifact)
    top = (pin.artifact or {}).get("name")
    listed = []
    for index, record in enumerate(tree.get("packages") or []):
        nested = str(record.get("path", "")).count("node_modules/") > 1
        listed.append(
            ServerPackage(
                Package(ecosystem, str(record["name"]), str(record["version"])),
                pointer("servers", key, "launch", "tree", "packages", str(index)),
                record.get("integrity"),  # a PyPI release's files each have a sha256: no one digest to show
                direct=record["name"] == top and not nested,
            )
        )
    return listed


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
