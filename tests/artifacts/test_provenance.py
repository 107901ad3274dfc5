"""Provenance verified offline: the real npm provenance of @playwright/cli@0.1.1 (tests/fixtures/provenance,
SOURCE.md says where it comes from) served by the loopback npm registry in the published format (`dist.attestations`
in the packument, the bundle at `/-/npm/v1/attestations/<name>@<version>`), verified against the production trust
root sigstore-python ships, with no other network. The real tarball is served too, so the integrity the lock
records is the digest the statement signs."""

from __future__ import annotations

import base64
import copy
import datetime
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from artifacts.npm_registry import Registry, integrity, serve
from scanner.artifacts.attestations import Requests, registry_bundles
from scanner.artifacts.inventory import Package
from scanner.artifacts.packument import releases
from scanner.artifacts.provenance import Screened, Subject, Version, screen, with_provenance
from scanner.artifacts.release_screen import package_digest
from scanner.artifacts.sigstore_check import TRUST_ROOT_VARIABLE, load_trust_root
from scanner.lock.canonical import tree_digest

FIXTURES = Path(__file__).parent.parent / "fixtures" / "provenance"
NAME, NEW, OLD = "@playwright/cli", "0.1.1", "0.1.0"
TARBALL = (FIXTURES / "playwright-cli-0.1.1.tgz").read_bytes()
ANSWER = json.loads((FIXTURES / "playwright-cli-0.1.1-attestations.json").read_text())
REPOSITORY = "https://github.com/microsoft/playwright-cli"
BUILT = {"repository": REPOSITORY, "workflow": ".github/workflows/publish.yml"}
NOW = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
WHERE = Subject("browser", "/servers/browser/launch/tree/packages/1")


@pytest.fixture(scope="module")
def served_registry() -> Iterator[Registry]:
    """One loopback registry for the module (its shutdown costs half a second), emptied before each test."""
    registry = Registry()
    server = serve(registry)
    yield registry
    server.shutdown()
    server.server_close()


@pytest.fixture
def npm_registry(served_registry: Registry) -> Registry:
    for state in (served_registry.packages, served_registry.latest, served_registry.attestations):
        state.clear()
    served_registry.served.clear()
    return served_registry


def publish(registry: Registry, answer: dict[str, Any] | None = ANSWER, version: str = NEW) -> None:
    """The real tarball under `version`, with `answer` as its attestations (None: no provenance)."""
    registry.packages.setdefault(NAME, {})[version] = TARBALL
    registry.latest[NAME] = version
    if answer is not None:
        registry.attestations[NAME, version] = json.dumps(answer).encode()


def run(registry: Registry, old: Version | None, environ: dict[str, str] | None = None,
        pinned: str | None = None) -> tuple[Screened, Requests]:
    """The screen of NEW as the registry describes it, replacing `old`; `pinned` is the integrity the lock records."""
    release, _ = releases(registry.url, NAME, NEW, None, time.monotonic() + 30)
    new = Version(Package("npm", NAME, NEW), (pinned or integrity(TARBALL),), release.attested)
    requests = Requests(deadline=time.monotonic() + 30)
    bundles = registry_bundles(requests, registry.url, None)
    return screen(WHERE, new, old, bundles, lambda: load_trust_root(environ or {}), NOW), requests


def predecessor(recorded: dict[str, str] | None = None, attested: bool = True) -> Version:
    return Version(Package("npm", NAME, OLD), ("sha512-AAAA",), attested, recorded)


def provenance_bundle(answer: dict[str, Any]) -> dict[str, Any]:
    return next(a["bundle"] for a in answer["attestations"] if a["predicateType"].startswith("https://slsa.dev/"))


def test_a_real_bundle_verifies_offline_and_its_repository_is_recorded(npm_registry: Registry) -> None:
    publish(npm_registry)
    screened, requests = run(npm_registry, predecessor(BUILT))
    assert screened.findings == []
    assert screened.provenance == {
        **BUILT, "ref": "refs/tags/v0.1.1", "commit": "d1c6d1113932ddcee243e8b111b6d4aea553df20",
        "issuer": "https://token.actions.githubusercontent.com",
    }
    assert requests.made == 1  # the attestations only; the trust root is the one that ships
    assert "-/npm/v1/attestations/@playwright/cli@0.1.1" in npm_registry.served


def test_the_recorded_provenance_is_in_the_lock_tree_and_the_schema_admits_it(npm_registry: Registry) -> None:
    import jsonschema

    publish(npm_registry)
    screened, _ = run(npm_registry, None)
    assert screened.provenance is not None
    packages = [{"path": "node_modules/@playwright/cli", "name": NAME, "version": NEW, "integrity": integrity(TARBALL)},
                {"path": "node_modules/minimist", "name": "minimist", "version": "1.2.8"}]
    tree = {"manager": "npm", "digest": tree_digest("npm", packages), "packages": packages}
    recorded = with_provenance(tree, {"node_modules/@playwright/cli": screened.provenance})
    assert recorded["packages"][0]["provenance"]["repository"] == REPOSITORY
    assert "provenance" not in recorded["packages"][1]
    assert recorded["digest"] == tree_digest("npm", recorded["packages"]) != tree["digest"]
    schema = json.loads((Path(__file__).parents[2] / "scanner" / "lock" / "mcp-lock.schema.json").read_text())
    validator = jsonschema.Draft202012Validator({"$ref": "#/$defs/tree", "$defs": schema["$defs"]})
    assert list(validator.iter_errors(recorded)) == []
    recorded["packages"][0]["provenance"]["unknown"] = "x"  # a closed record: nothing else rides along
    assert list(validator.iter_errors(recorded)) != []


@pytest.mark.parametrize("where", ["signature", "payload"])
def test_one_changed_byte_of_the_bundle_is_critical(npm_registry: Registry, where: str) -> None:
    answer = copy.deepcopy(ANSWER)
    envelope = provenance_bundle(answer)["dsseEnvelope"]
    if where == "signature":
        raw = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
        raw[-5] ^= 0x01
        envelope["signatures"][0]["sig"] = base64.b64encode(bytes(raw)).decode()
    else:  # the subject digest the statement signs, one hex digit changed
        statement = base64.b64decode(envelope["payload"]).decode()
        digest = hashlib.sha512(TARBALL).hexdigest()
        assert digest in statement
        envelope["payload"] = base64.b64encode(statement.replace(digest, ("0" if digest[0] != "0" else "1")
                                                                 + digest[1:]).encode()).decode()
    publish(npm_registry, answer)
    screened, _ = run(npm_registry, predecessor(BUILT))
    assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [("provenance-invalid", "critical")]
    assert "does not verify" in screened.findings[0].message and screened.provenance is None


def test_a_bundle_about_another_artifact_than_the_pinned_one_is_critical(npm_registry: Registry) -> None:
    publish(npm_registry)
    other = integrity(TARBALL + b"x")  # the lock pins another tarball than the one the statement signs
    screened, _ = run(npm_registry, predecessor(BUILT), pinned=other)
    assert [f.rule.id for f in screened.findings] == ["provenance-invalid"]
    assert "another artifact" in screened.findings[0].message


def test_a_release_that_lost_provenance_is_high(npm_registry: Registry) -> None:
    publish(npm_registry, answer=None)
    for old in (predecessor(BUILT, attested=False), predecessor(None, attested=True)):
        screened, requests = run(npm_registry, old)
        assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [("provenance-lost", "high")]
        assert requests.made == 0
    assert f"pin {NAME}@{OLD}" in screened.findings[0].details[0]


def test_no_provenance_before_or_after_is_no_finding_and_no_request(npm_registry: Registry) -> None:
    publish(npm_registry, answer=None)
    screened, requests = run(npm_registry, predecessor(None, attested=False))
    assert screened == Screened() and requests.made == 0


def test_another_source_repository_or_workflow_is_high(npm_registry: Registry) -> None:
    publish(npm_registry)
    for before in ({**BUILT, "repository": "https://github.com/someone/playwright-cli"},
                   {**BUILT, "workflow": ".github/workflows/release.yml"}):
        screened, _ = run(npm_registry, predecessor(before))
        assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [
            ("provenance-source-changed", "high")]
        assert screened.provenance is not None and screened.provenance["repository"] == REPOSITORY
    assert "before: https://github.com/someone" not in screened.findings[0].details[0]


def test_a_predecessor_without_a_recorded_source_is_asked_and_one_that_does_not_verify_is_not_compared(
    npm_registry: Registry,
) -> None:
    publish(npm_registry, version=OLD)  # served with 0.1.1's bundle: about another version, so it gives no source
    publish(npm_registry)
    old = Version(Package("npm", NAME, OLD), (integrity(TARBALL),), True)
    screened, requests = run(npm_registry, old)
    assert screened.findings == [] and screened.provenance is not None
    assert requests.made == 2  # the new version's attestations, then the predecessor's


def expired_root(tmp_path: Path) -> Path:
    root = json.loads(load_trust_root({}).raw)
    for member in ("certificateAuthorities", "tlogs"):
        for entry in root[member]:
            window = entry["validFor"] if "validFor" in entry else entry["publicKey"].setdefault("validFor", {})
            window["end"] = "2025-01-01T00:00:00Z"
    path = tmp_path / "trusted_root.json"
    path.write_text(json.dumps(root))
    return path


def test_an_expired_trust_root_is_a_finding_never_a_pass(npm_registry: Registry, tmp_path: Path) -> None:
    publish(npm_registry)
    screened, requests = run(npm_registry, predecessor(BUILT), {TRUST_ROOT_VARIABLE: str(expired_root(tmp_path))})
    assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [
        ("provenance-trust-root-unusable", "high")]
    assert "expired" in screened.findings[0].message and screened.provenance is None
    assert requests.made == 0  # refused before anything is fetched


@pytest.mark.parametrize("content", [None, b"{}", b"not json", b"x" * (2 << 20)])
def test_an_unusable_trust_root_file_is_a_finding(npm_registry: Registry, tmp_path: Path, content: Any) -> None:
    publish(npm_registry)
    path = tmp_path / "root.json"
    if content is not None:
        path.write_bytes(content)
    screened, _ = run(npm_registry, predecessor(BUILT), {TRUST_ROOT_VARIABLE: str(path)})
    assert [f.rule.id for f in screened.findings] == ["provenance-trust-root-unusable"]


def test_a_refreshed_trust_root_file_is_used(npm_registry: Registry, tmp_path: Path) -> None:
    publish(npm_registry)
    path = tmp_path / "trusted_root.json"
    path.write_bytes(load_trust_root({}).raw)
    screened, _ = run(npm_registry, predecessor(BUILT), {TRUST_ROOT_VARIABLE: str(path)})
    assert screened.findings == [] and screened.provenance is not None


@pytest.mark.parametrize("body", [b"x" * (3 << 20), b"[" * 100 + b"]" * 100, b'{"attestations": 3}'])
def test_a_hostile_attestations_answer_is_a_blocking_finding(npm_registry: Registry, body: bytes) -> None:
    publish(npm_registry)
    npm_registry.attestations[NAME, NEW] = body
    screened, _ = run(npm_registry, predecessor(BUILT))
    assert [f.rule.id for f in screened.findings] == ["package-metadata-failed"]


def test_a_registry_that_promises_provenance_and_serves_none_is_critical(npm_registry: Registry) -> None:
    publish(npm_registry, {"attestations": [a for a in ANSWER["attestations"] if "publish" in a["predicateType"]]})
    screened, _ = run(npm_registry, predecessor(BUILT))
    assert [f.rule.id for f in screened.findings] == ["provenance-invalid"]


def test_a_finding_is_bound_to_the_package_version(npm_registry: Registry) -> None:
    publish(npm_registry, answer=None)
    screened, _ = run(npm_registry, predecessor(BUILT))
    finding = screened.findings[0]
    assert finding.digest == package_digest("provenance-lost", Package("npm", NAME, NEW))
    assert finding.digest != package_digest("provenance-lost", Package("npm", NAME, "0.1.2"))
    assert f"tool: {NAME}@{NEW}, digest: {finding.digest}" in finding.details[-1]


def test_a_check_without_attestations_never_imports_sigstore(npm_registry: Registry) -> None:
    publish(npm_registry, answer=None)
    code = f"""
import sys, time
from scanner.artifacts.attestations import Requests, registry_bundles
from scanner.artifacts.inventory import Package
from scanner.artifacts.packument import releases
from scanner.artifacts.provenance import Subject, Version, screen
release, _ = releases({npm_registry.url!r}, {NAME!r}, {NEW!r}, None, time.monotonic() + 30)
new = Version(Package("npm", {NAME!r}, {NEW!r}), ("sha512-AAAA",), release.attested)
old = Version(Package("npm", {NAME!r}, {OLD!r}), ("sha512-AAAA",), False)
def root():
    raise AssertionError("the trust root was read")
bundles = registry_bundles(Requests(deadline=time.monotonic() + 30), {npm_registry.url!r}, None)
assert screen(Subject("s", "/x"), new, old, bundles, root, None).findings == []
assert not [m for m in sys.modules if m.split(".")[0] in ("sigstore", "cryptography")], "sigstore was imported"
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
