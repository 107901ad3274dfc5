"""`mcp-lock bom`: a CycloneDX 1.6 bill of materials of every server the lock pins, built from the lock alone
(nothing is booted or fetched) with the CycloneDX project's own library.

Each server is an `application` component: its launch, `serverInfo`, and the digest of every pinned tool, prompt,
prompt body, resource and resource template as `mcp-lock:*` properties, which is what a model actually reads and
what no package inventory carries. Inside it, one component per package it runs (scanner.artifacts.inventory, the
same list the advisory screen uses), with its purl and the registry's hash; a container image or a local script
the launch runs is a component too. The dependency graph says which server runs which component.

The document is the same for the same lock: component references are derived from the lock, the serial number
is a UUID derived from the document's content, and the timestamp is `SOURCE_DATE_EPOCH` when set.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import os
import shlex
import uuid
from collections.abc import Mapping
from typing import Any

from cyclonedx.model import HashAlgorithm, HashType, Property
from cyclonedx.model.bom import Bom
from cyclonedx.model.bom_ref import BomRef
from cyclonedx.model.component import Component, ComponentType
from cyclonedx.model.license import LicenseExpression
from cyclonedx.output import make_outputter
from cyclonedx.schema import OutputFormat, SchemaVersion
from packageurl import PackageURL

from scanner import __version__
from scanner.artifacts.inventory import ServerPackage, pin_packages
from scanner.artifacts.record import FILE, IMAGE
from scanner.lock.lockfile import Lockfile, ServerPin
from scanner.model.kinds import KINDS

SCHEMA = SchemaVersion.V1_6
PROPERTY = "mcp-lock"  # the namespace of every property this document adds
PURL_TYPES = {"npm": "npm", "PyPI": "pypi"}
_NAMESPACE = uuid.UUID("4b1c0f3e-6a52-4d57-9a59-6d2f3c1f0b11")  # fixed: serial numbers derive from content


def bom_json(lock: Lockfile, project: str, environ: Mapping[str, str] = os.environ) -> str:
    """The CycloneDX 1.6 JSON document of `lock`, for the repository called `project`."""
    bom = Bom()
    bom.metadata.timestamp = _timestamp(environ)
    bom.metadata.component = Component(name=project, type=ComponentType.APPLICATION, bom_ref=BomRef("project"))
    bom.metadata.tools.components.add(
        Component(name="mcp-lock", version=__version__, type=ComponentType.APPLICATION, bom_ref=BomRef("mcp-lock"))
    )
    for key in sorted(lock.servers):
        server, parts = _server(key, lock.servers[key])
        bom.components.add(server)
        bom.register_dependency(bom.metadata.component, [server])
        bom.register_dependency(server, parts)
    bom.serial_number = uuid.UUID(int=0)  # the draft's, so that the serial number depends on the content alone
    bom.serial_number = uuid.uuid5(_NAMESPACE, _render(bom))
    return _render(bom)


def _render(bom: Bom) -> str:
    return make_outputter(bom, OutputFormat.JSON, SCHEMA).output_as_string(indent=2) + "\n"


def _timestamp(environ: Mapping[str, str]) -> datetime.datetime:
    """`SOURCE_DATE_EPOCH` (reproducible builds' convention) when it is set, else now."""
    epoch = environ.get("SOURCE_DATE_EPOCH", "")
    moment = int(epoch) if epoch.isdigit() else None
    if moment is None:
        return datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    return datetime.datetime.fromtimestamp(moment, datetime.UTC)


def _server(key: str, pin: ServerPin) -> tuple[Component, list[Component]]:
    """The server's component, and the components of what it runs (nested in it)."""
    version = pin.server_info.get("version")
    server = Component(
        name=key,
        version=version if isinstance(version, str) else None,
        type=ComponentType.APPLICATION,
        bom_ref=BomRef(f"server:{key}"),
        description=_text(pin.server_info.get("name")),
    )
    for name, value in _properties(pin):
        server.properties.add(Property(name=f"{PROPERTY}:{name}", value=value))
    parts = [_package(key, entry) for entry in pin_packages(key, pin)]
    parts += _other_artifact(key, pin.artifact)
    for part in parts:
        server.components.add(part)
    return server, parts


def _properties(pin: ServerPin) -> list[tuple[str, str]]:
    launch = pin.launch
    found = [("transport", str(launch.get("transport", "")))]
    if launch.get("command") is not None:
        args = launch.get("args")
        words = [launch["command"], *(args if isinstance(args, list) else [])]
        found.append(("launch", shlex.join(str(word) for word in words)))
    if launch.get("url") is not None:
        found.append(("url", str(launch["url"])))
    found += [("declared-in", str(d.get("file"))) for d in pin.declarations]
    found += [("protocol-version", pin.protocol_version), ("surface-digest", pin.digest)]
    for kind in KINDS:
        found += [(f"{kind.word}:{name}", p.digest) for name, p in sorted(pin.pins(kind.key).items())]
    found += [(f"prompt-body:{name}", p.digest) for name, p in sorted(pin.prompt_bodies.items())]
    return found


def _package(key: str, entry: ServerPackage) -> Component:
    package = entry.package
    purl = PackageURL(type=PURL_TYPES[package.ecosystem], name=package.name, version=package.version)
    if package.ecosystem == "npm" and package.name.startswith("@"):
        scope, name = package.name.split("/", 1)
        purl = PackageURL(type="npm", namespace=scope, name=name, version=package.version)
    component = Component(
        name=package.name,
        version=package.version,
        type=ComponentType.LIBRARY,
        purl=purl,
        bom_ref=BomRef(f"{key}:{purl.to_string()}"),
        hashes=[h for digest in (entry.hashes or (entry.digest,)) for h in _hashes(digest)],
    )
    if entry.license:
        component.licenses.add(LicenseExpression(entry.license))
    component.properties.add(Property(name=f"{PROPERTY}:direct", value="true" if entry.direct else "false"))
    return component


def _other_artifact(key: str, artifact: Mapping[str, Any] | None) -> list[Component]:
    """A container image or a local script the launch runs, which no package registry lists."""
    if not artifact or artifact.get("type") not in (IMAGE, FILE):
        return []
    if artifact["type"] == IMAGE:
        name, kind = str(artifact.get("name")), ComponentType.CONTAINER
    else:
        name, kind = str(artifact.get("path")), ComponentType.FILE
    digest = artifact.get("digest") if artifact["type"] == IMAGE else artifact.get("sha256")
    return [Component(name=name, type=kind, bom_ref=BomRef(f"{key}:{artifact['type']}:{name}"), hashes=_hashes(digest))]


def _hashes(digest: Any) -> list[HashType]:
    """The hash a record carries, as CycloneDX spells it: npm's SRI `sha512-<base64>`, a hex sha256, an image's
    `sha256:<hex>`. One it cannot read is left out rather than guessed."""
    if not isinstance(digest, str):
        return []
    algorithm, _, value = digest.partition("-") if digest.startswith("sha") and "-" in digest[:7] else ("", "", "")
    if algorithm in ("sha512", "sha256", "sha384"):
        try:
            hexadecimal = base64.b64decode(value, validate=True).hex()
        except (binascii.Error, ValueError):
            return []
        return [HashType(alg=_ALGORITHMS[algorithm], content=hexadecimal)]
    hexadecimal = digest.removeprefix("sha256:")
    if len(hexadecimal) == 64 and all(c in "0123456789abcdef" for c in hexadecimal):
        return [HashType(alg=HashAlgorithm.SHA_256, content=hexadecimal)]
    return []


_ALGORITHMS = {"sha256": HashAlgorithm.SHA_256, "sha384": HashAlgorithm.SHA_384, "sha512": HashAlgorithm.SHA_512}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
