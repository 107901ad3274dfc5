"""The packages a server runs, as the screens (advisories, release age, install scripts, the bill of materials)
see them: one list of (ecosystem, name, version) per server, each with where the lock records it.

`pin_packages` is the one place that says which packages a pin runs: every package of the launch's dependency
tree when the lock records one (`launch.tree`, lockfile format 3), else the package its launch names
(`launch.artifact`); every screen covers what is listed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.record import NPM, PYPI, content
from scanner.artifacts.tree_paths import TreePath, tree_paths
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
    # Where it sits in the launch's tree (which package pulls it in); None for a package no tree records.
    via: TreePath | None = None
    hashes: tuple[str, ...] = ()  # every digest the record pins (a uv package: each published file's sha256)

    @property
    def tree_key(self) -> str | None:
        """What a tree tells this package apart by: npm's install path, uv's name (None outside a tree)."""
        return self.via.path if self.via is not None else None

    def pulled_in_by(self) -> str | None:
        """The clause a finding adds about where this package sits (None for the launched package)."""
        return self.via.pulled_in_by(self.package.spec) if self.via is not None and not self.direct else None


TREE_ECOSYSTEMS = {"npm": "npm", "uv": "PyPI"}  # a tree's manager -> OSV's spelling


def pin_packages(key: str, pin: ServerPin) -> list[ServerPackage]:
    """Every npm and PyPI package `pin` runs: its tree's packages (the one its launch names is `direct`), else
    the package `launch.artifact` names."""
    tree = pin.tree
    if tree is None or TREE_ECOSYSTEMS.get(str(tree.get("manager"))) is None:
        return artifact_packages(key, pin.artifact)
    top = (pin.artifact or {}).get("name")
    return tree_packages(tree, top if isinstance(top, str) else None,
                         lambda index: pointer("servers", key, "launch", "tree", "packages", str(index)))


def tree_packages(tree: Mapping[str, Any], top: str | None, where: Callable[[int], str]) -> list[ServerPackage]:
    """Every package of a recorded tree (`where(index)`: its record's JSON pointer), the one named `top` direct."""
    ecosystem = TREE_ECOSYSTEMS[str(tree.get("manager"))]
    paths = tree_paths(tree, top)
    listed = []
    for index, record in enumerate(tree.get("packages") or []):
        via = paths.get(str(record.get("path") if ecosystem == "npm" else record.get("name")))
        hashes = record_hashes(record)
        licence = record.get("license")
        listed.append(
            ServerPackage(
                Package(ecosystem, str(record["name"]), str(record["version"])),
                where(index),
                hashes[0] if len(hashes) == 1 else None,  # several files of a uv release: `hashes` has each
                direct=via is not None and via.known and not via.chain,
                license=licence if isinstance(licence, str) and licence else None,
                via=via,
                hashes=hashes,
            )
        )
    return listed


def record_hashes(record: Mapping[str, Any]) -> tuple[str, ...]:
    """The digests a tree record pins: npm's integrity, or the sha256 of each file of a uv package's release
    (uv installs with --require-hashes: the wheel that installs is one of them)."""
    integrity = record.get("integrity")
    if isinstance(integrity, str):
        return (integrity,)
    listed = record.get("sha256")
    return tuple(h for h in listed if isinstance(h, str)) if isinstance(listed, list) else ()


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
