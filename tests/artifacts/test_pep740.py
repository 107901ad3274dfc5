"""PEP 740 provenance verified offline: the real sdist of pypi-attestations 0.0.19 and the provenance object its
index published for it (tests/fixtures/provenance/SOURCE.md says where both come from), served by the loopback
PyPI index (tests/loopback_pypi.py) as PyPI publishes them: the JSON simple API names the file's `provenance`, the
Integrity API serves it, the JSON API says nothing of it. Verified against the production trust root sigstore-python
ships, with no other network."""

from __future__ import annotations

import base64
import datetime
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_pypi import Index, serve
from vcs.gitrepo import GitRepo

from scanner.artifacts.attestations import Requests, registry_bundles
from scanner.artifacts.inventory import Package
from scanner.artifacts.provenance import Screened, Subject, Version, screen
from scanner.artifacts.pypi_index import index_releases
from scanner.artifacts.sigstore_check import load_trust_root
from scanner.install.packages import tree_record
from scanner.lock.document import render
from scanner.lock.reader import parse

FIXTURES = Path(__file__).parent.parent / "fixtures" / "provenance"
NAME, VERSION, OLD = "pypi-attestations", "0.0.19", "0.0.18"
SDIST = "pypi_attestations-0.0.19.tar.gz"
DATA = (FIXTURES / SDIST).read_bytes()
PROVENANCE = json.loads((FIXTURES / f"{SDIST}.provenance").read_text())
SHA256 = "9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3"
REPOSITORY = "https://github.com/trailofbits/pypi-attestations"
BUILT = {"repository": REPOSITORY, "workflow": ".github/workflows/release.yml"}
NOW = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    served = Index(tmp_path / "files")
    with serve(served):
        yield served


def publish(index: Index, provenance: dict[str, Any] | None = PROVENANCE) -> None:
    """The real sdist (with its provenance, unless None) and an earlier release with none."""
    index.add(NAME, VERSION, SDIST, DATA, None if provenance is None else json.dumps(provenance).encode(),
              license_expression="Apache-2.0")
    index.add(NAME, OLD, "pypi_attestations-0.0.18.tar.gz", b"an earlier sdist", license_expression="Apache-2.0")


def run(index: Index, old: Version | None, pinned: str = SHA256) -> tuple[Screened, Requests]:
    """The screen of VERSION as the index describes it (its JSON API first, as `check` asks)."""
    release, _ = index_releases(index.url, NAME, VERSION, OLD, time.monotonic() + 30)
    new = Version(Package("PyPI", NAME, VERSION), (pinned,), release.attested)
    requests = Requests(deadline=time.monotonic() + 30)
    where = Subject("attest", "/servers/attest/launch/tree/packages/0")
    return screen(where, new, old, registry_bundles(requests, None, index.url), lambda: load_trust_root({}),
                  NOW), requests


def predecessor(recorded: dict[str, str] | None) -> Version:
    return Version(Package("PyPI", NAME, OLD), ("0" * 64,), False, recorded)


def test_a_real_pep_740_provenance_verifies_offline_to_its_repository(index: Index) -> None:
    publish(index)
    screened, requests = run(index, predecessor(BUILT))
    assert screened.findings == []
    assert screened.provenance == {**BUILT, "ref": "refs/tags/v0.0.19",
                                   "commit": "08802efe1f8e5fec4ad842d6b8ce97656092ee72",
                                   "issuer": "https://token.actions.githubusercontent.com"}
    assert f"/pypi/{NAME}/{VERSION}/json" in index.served  # the JSON API answered the release's age
    assert f"/integrity/{NAME}/{VERSION}/{SDIST}/provenance" in index.served
    assert requests.made == 2  # the simple-API page (which file has provenance), then its provenance


def tampered(where: str) -> dict[str, Any]:
    answer = json.loads(json.dumps(PROVENANCE))
    attestation = answer["attestation_bundles"][0]["attestations"][0]
    if where == "signature":
        raw = bytearray(base64.b64decode(attestation["envelope"]["signature"]))
        raw[-3] ^= 0x01
        attestation["envelope"]["signature"] = base64.b64encode(bytes(raw)).decode()
    else:  # one byte of the signed statement: the subject's digest
        statement = base64.b64decode(attestation["envelope"]["statement"]).decode()
        assert SHA256 in statement
        attestation["envelope"]["statement"] = base64.b64encode(
            statement.replace(SHA256, "8" + SHA256[1:]).encode()).decode()
    return answer


@pytest.mark.parametrize("where", ["signature", "statement"])
def test_one_changed_byte_of_the_provenance_is_critical(index: Index, where: str) -> None:
    publish(index, tampered(where))
    screened, _ = run(index, predecessor(BUILT))
    assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [("provenance-invalid", "critical")]
    assert "does not verify" in screened.findings[0].message and screened.provenance is None


def test_a_provenance_about_another_file_than_the_pinned_one_is_critical(index: Index) -> None:
    """The index says the pinned file has provenance, and serves the real one of another file."""
    other = index.add(NAME, VERSION, "pypi_attestations-0.0.19-py3-none-any.whl", b"a wheel nobody attested",
                      json.dumps(PROVENANCE).encode())
    index.add(NAME, OLD, "pypi_attestations-0.0.18.tar.gz", b"an earlier sdist")
    screened, _ = run(index, predecessor(BUILT), pinned=other)
    assert [f.rule.id for f in screened.findings] == ["provenance-invalid"]
    assert "another artifact" in screened.findings[0].message


def test_a_release_without_provenance_after_one_with_it_is_high(index: Index) -> None:
    publish(index, provenance=None)
    screened, requests = run(index, predecessor(BUILT))
    assert [(f.rule.id, f.effective_severity) for f in screened.findings] == [("provenance-lost", "high")]
    assert requests.made == 0


def test_a_release_built_by_another_repository_is_high(index: Index) -> None:
    publish(index)
    screened, _ = run(index, predecessor({**BUILT, "repository": "https://github.com/someone/pypi-attestations"}))
    assert [f.rule.id for f in screened.findings] == ["provenance-source-changed"]


def uv_tree(version: str, sha256: str, provenance: dict[str, str] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"name": NAME, "version": version, "sha256": [sha256]}
    if provenance:
        record["provenance"] = provenance
    return tree_record("uv", [record])


def pin(repo: GitRepo, tree: dict[str, Any]) -> None:
    lock = parse(repo.lock_path.read_text(encoding="utf-8"))
    lock.servers["attest"].artifact = {"type": "pypi", "name": NAME, "version": tree["packages"][0]["version"]}
    lock.servers["attest"].tree = tree
    repo.lock_path.write_text(render(lock), encoding="utf-8")


@pytest.mark.parametrize("tamper", [False, True])
def test_check_base_verifies_a_re_pinned_pypi_release_through_the_json_api(
    tmp_path: Path, index: Index, tamper: bool
) -> None:
    """A pull request re-pins the uv tree to 0.0.19 on an index with a JSON API (which never names
    provenance): the release is verified, and a tampered provenance is critical."""
    publish(index, tampered("signature") if tamper else PROVENANCE)
    repo = GitRepo(tmp_path / "top")
    repo.add_in_dir("attest", "attest")
    assert repo.run("lock").exit_code == 0
    pin(repo, uv_tree(OLD, "0" * 64, BUILT))
    repo.commit("Pin attest with its tree")
    repo.branch("feature")
    pin(repo, uv_tree(VERSION, SHA256))
    repo.commit("Re-pin attest")
    out = tmp_path / "report.json"
    repo.run("check", "--offline", "--base", "main", "--format", "json", "--output", str(out),
             env={"UV_DEFAULT_INDEX": index.url})
    found = {f["rule"]: f for f in json.loads(out.read_text(encoding="utf-8"))["findings"]}
    if tamper:
        assert found["provenance-invalid"]["severity"] == "critical"
        assert found["provenance-invalid"]["subject"] == f"{NAME}@{VERSION}"
    else:
        assert not {"provenance-invalid", "provenance-lost", "provenance-source-changed"} & found.keys(), found
        assert f"/integrity/{NAME}/{VERSION}/{SDIST}/provenance" in index.served
