"""The attestations a registry publishes for a package version, fetched within bounds and counted.

npm: a version whose packument entry has `dist.attestations` is served at `<registry>/-/npm/v1/attestations/
<name>@<version>` as `{"attestations": [{"predicateType": …, "bundle": <Sigstore bundle>}]}`; the SLSA
provenance bundle is the one that names the build (npm's own publish attestation is signed by the registry's key,
not a build's certificate, and is not read). The URL is built from the registry the launch uses, never taken
from the packument, so a hostile packument cannot send the check elsewhere.

PyPI (PEP 740): a file of the JSON simple API (PEP 691) with a `provenance` URL serves
`{"version": 1, "attestation_bundles": [{"publisher": …, "attestations": [<attestation>]}]}`; each attestation
is turned into the Sigstore bundle it was made from (certificate, log entries, DSSE envelope over the in-toto
statement). Only a URL on the index's own host is followed.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scanner.artifacts.http_body import read_body, shown_url
from scanner.artifacts.kept_alive import Connections, opened
from scanner.artifacts.record import normalised
from scanner.files.bounded_json import AnswerError, Bounds, parse

# A bundle is a few KB; an answer holds a handful of them.
ANSWER = Bounds(bytes=2 * 1024 * 1024, depth=24, values=100_000)
MAX_BUNDLES = 8  # bundles read from one answer
REQUEST_TIMEOUT = 20.0
SLSA = "https://slsa.dev/provenance/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
PEP_740_BUNDLE = "application/vnd.dev.sigstore.bundle.v0.3+json"


class AttestationError(Exception):
    """The attestations could not be had; the message says why, in one line."""


@dataclass
class Requests:
    """The attestation requests of one run: each counted, all within one deadline and one count."""

    deadline: float
    limit: int = 200
    made: int = 0
    clock: Callable[[], float] = field(default=time.monotonic)
    connections: Connections | None = None  # kept open between requests (scanner.artifacts.kept_alive)

    def get(self, url: str, accept: str) -> Any:
        if self.made >= self.limit:
            raise AttestationError(f"more than {self.limit} attestation requests in one run")
        self.made += 1
        return fetch(url, accept, self.deadline, self.clock, self.connections)


def npm_url(registry: str, name: str, version: str) -> str:
    return f"{registry.rstrip('/')}/-/npm/v1/attestations/{urllib.parse.quote(name, safe='@')}@{version}"


def npm_bundles(requests: Requests, registry: str, name: str, version: str) -> list[dict[str, Any]]:
    """The SLSA provenance bundles `registry` serves for `name@version` (an empty list: it serves none)."""
    answer = requests.get(npm_url(registry, name, version), "application/json")
    entries = answer.get("attestations") if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        raise AttestationError(f"the registry's attestations for {name}@{version} are not a list")
    found = []
    for entry in entries[:MAX_BUNDLES]:
        if not isinstance(entry, dict) or not isinstance(entry.get("bundle"), dict):
            continue
        if str(entry.get("predicateType", "")).startswith(SLSA):
            found.append(entry["bundle"])
    return found


def pypi_files(requests: Requests, index: str, name: str) -> list[dict[str, Any]]:
    """The file entries of `name`'s JSON simple-API page on `index`."""
    answer = requests.get(index.rstrip("/") + "/" + normalised(name) + "/", SIMPLE_JSON)
    files = answer.get("files") if isinstance(answer, dict) else None
    if not isinstance(files, list):
        raise AttestationError(f"the index's answer for {name} is not a JSON simple-API page")
    return [entry for entry in files if isinstance(entry, dict)]


def pypi_bundles(requests: Requests, index: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The Sigstore bundles of one simple-API file entry's PEP 740 provenance (none: it has no `provenance`)."""
    link = entry.get("provenance")
    if not isinstance(link, str) or not link:
        return []
    url = urllib.parse.urljoin(index.rstrip("/") + "/", link)
    if urllib.parse.urlsplit(url).netloc != urllib.parse.urlsplit(index).netloc:
        raise AttestationError(f"the index names provenance on another host ({shown_url(url)})")
    answer = requests.get(url, "application/json")
    groups = answer.get("attestation_bundles") if isinstance(answer, dict) else None
    if not isinstance(groups, list):
        raise AttestationError(f"the provenance of {entry.get('filename')!s:.200} is not a PEP 740 provenance")
    bundles = []
    for group in groups[:MAX_BUNDLES]:
        attestations = group.get("attestations") if isinstance(group, dict) else None
        for attestation in (attestations if isinstance(attestations, list) else [])[:MAX_BUNDLES]:
            bundles.append(pep740_bundle(attestation))
    return bundles[:MAX_BUNDLES]


def pep740_bundle(attestation: Any) -> dict[str, Any]:
    """The Sigstore bundle a PEP 740 attestation was made from (a malformed one gives a bundle that does not
    verify, never a skipped one)."""
    material = attestation.get("verification_material") if isinstance(attestation, dict) else None
    envelope = attestation.get("envelope") if isinstance(attestation, dict) else None
    material = material if isinstance(material, dict) else {}
    envelope = envelope if isinstance(envelope, dict) else {}
    stamps = material.get("timestamps") if isinstance(material.get("timestamps"), list) else []
    return {
        "mediaType": PEP_740_BUNDLE,
        "verificationMaterial": {
            "certificate": {"rawBytes": material.get("certificate")},
            "tlogEntries": material.get("transparency_entries"),
            "timestampVerificationData": {"rfc3161Timestamps": [{"signedTimestamp": s} for s in stamps]},
        },
        "dsseEnvelope": {
            "payload": envelope.get("statement"),
            "payloadType": "application/vnd.in-toto+json",
            "signatures": [{"sig": envelope.get("signature")}],
        },
    }


def fetch(
    url: str, accept: str, deadline: float, clock: Callable[[], float], connections: Connections | None = None
) -> Any:
    """The JSON answer at `url`, read and parsed within ANSWER; AttestationError when it cannot be had."""
    shown = shown_url(url)
    left = deadline - clock()
    if left <= 0:
        raise AttestationError(f"no time was left to ask {shown}")
    try:
        with opened(url, accept, min(REQUEST_TIMEOUT, left), connections) as response:
            raw = read_body(response, ANSWER.bytes, deadline, clock, answer=f"the answer from {shown}",
                            late="did not arrive in time", error=AttestationError)
    except urllib.error.HTTPError as error:
        raise AttestationError(f"the registry answered HTTP {error.code} for {shown}") from None
    except TimeoutError:
        raise AttestationError(f"the registry did not answer in time at {shown}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error
        raise AttestationError(f"the registry could not be reached at {shown}: {reason}") from None
    try:
        return parse(raw, ANSWER)
    except AnswerError as error:
        raise AttestationError(f"the answer from {shown} is {error}") from None


def registry_bundles(
    requests: Requests, registry: str | None, index: str | None
) -> Callable[[Any], list[dict[str, Any]]]:
    """The provenance screen's `bundles` for one launch: a version's bundles from the npm `registry` or the PyPI
    `index` the launch installs from (PyPI: of each file whose sha256 the lock pins, so the attestation read is
    about a file that can install)."""

    def bundles(version: Any) -> list[dict[str, Any]]:
        package = version.package
        if package.ecosystem == "npm":
            if registry is None:
                raise AttestationError("no npm registry is configured to ask for its attestations")
            return npm_bundles(requests, registry, package.name, package.version)
        if index is None:
            raise AttestationError("no package index is configured to ask for its attestations")
        pinned = {d.lower() for d in version.digests}
        found: list[dict[str, Any]] = []
        for entry in pypi_files(requests, index, package.name):
            hashes = entry.get("hashes")
            sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
            if isinstance(sha256, str) and sha256.lower() in pinned and len(found) < MAX_BUNDLES:
                found += pypi_bundles(requests, index, entry)
        return found

    return bundles
