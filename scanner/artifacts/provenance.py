"""The provenance screen of one package version new to a server: its attestations verified offline (Sigstore,
scanner.artifacts.sigstore_check), bound to the artifact the lock records, and its build identity compared with
the one of the version it replaces.

- attested, verifying, about the recorded artifact: no finding; its identity (repository, workflow, ref, commit,
  issuer) is what the lock records beside the package (`provenance`);
- attested but not verifying, or about another artifact: `provenance-invalid` (critical);
- built from another repository or workflow than the version it replaces: `provenance-source-changed` (high);
- not attested although the version it replaces was: `provenance-lost` (high);
- a trust root that cannot verify (unreadable, expired): `provenance-trust-root-unusable`, never a pass;
- the attestations could not be fetched: `package-metadata-failed`, the screen was not made.

A version without attestations whose predecessor had none costs nothing: no request, no sigstore import.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scanner.artifacts.attestations import AttestationError
from scanner.artifacts.inventory import Package
from scanner.artifacts.release_screen import package_digest
from scanner.artifacts.sigstore_check import BundleError, Identity, TrustRoot, TrustRootError, check_trust_root, verify
from scanner.model.findings import Finding, LockLocation
from scanner.model.rule_base import Rule
from scanner.model.rules import (
    PACKAGE_METADATA_FAILED,
    PROVENANCE_INVALID,
    PROVENANCE_LOST,
    PROVENANCE_SOURCE_CHANGED,
    PROVENANCE_TRUST_ROOT_UNUSABLE,
)


@dataclass(frozen=True)
class Version:
    """One package version, as the lock records it and its registry describes it."""

    package: Package
    digests: tuple[str, ...]  # npm: the SRI integrity the lock pins; PyPI: each pinned file's sha256 (hex)
    attested: bool  # the registry publishes attestations for it
    recorded: Mapping[str, Any] | None = None  # the `provenance` the lock records for it, if any


@dataclass(frozen=True)
class Screened:
    findings: list[Finding] = field(default_factory=list)
    provenance: dict[str, str] | None = None  # what the lock records beside the package (None: nothing)


Bundles = Callable[[Version], "list[dict[str, Any]]"]  # the version's bundles; AttestationError when not had
Root = Callable[[], TrustRoot]  # the trust root; TrustRootError when it cannot be had


@dataclass(frozen=True)
class Subject:
    server: str
    location: str  # JSON pointer of the package's record in the lock
    via: str = ""  # where a dependency sits: " (pulled in by a@1.0.0 (top@1.0.0 → a@1.0.0 → b@2.0.0))"


def screen(
    where: Subject, new: Version, old: Version | None, bundles: Bundles, root: Root, now: datetime.datetime
) -> Screened:
    """The provenance findings of `new` (which replaces `old`, if any) and the provenance to record for it."""
    if not new.attested:
        if old is not None and (old.attested or old.recorded):
            return Screened([_lost(where, new, old)])
        return Screened()
    try:
        trust = root()
        check_trust_root(trust, now)
        identity = _verified(new, bundles, trust)
    except TrustRootError as error:
        return Screened([_trust_root(where, new, str(error))])
    except AttestationError as error:
        return Screened([_unfetched(where, new, str(error))])
    except BundleError as error:
        return Screened([_invalid(where, new, str(error))])
    record = identity.record()
    before = _previous_identity(old, bundles, trust)
    if before is not None and _source(before) != _source(record):
        return Screened([_changed(where, new, old, before, record)], record)
    return Screened([], record)


def _verified(version: Version, bundles: Bundles, trust: TrustRoot) -> Identity:
    """The one identity every provenance bundle of `version` verifies with; BundleError otherwise."""
    found = bundles(version)
    if not found:
        raise BundleError("the registry says it has provenance, but serves no provenance bundle for it")
    identities = []
    for bundle in found:
        statement, identity = verify(bundle, trust)
        _check_subject(statement, version)
        identities.append(identity)
    if len({_source(i.record()) for i in identities}) > 1:
        raise BundleError("its provenance bundles name different repositories or workflows")
    return identities[0]


def _previous_identity(old: Version | None, bundles: Bundles, trust: TrustRoot) -> Mapping[str, Any] | None:
    """The identity of the version `new` replaces: the one the lock records, else its own verified bundles; None
    when it has none (or they cannot be had: the predecessor is not under review, its failure is not a finding)."""
    if old is None:
        return None
    if old.recorded:
        return old.recorded
    if not old.attested:
        return None
    try:
        return _verified(old, bundles, trust).record()
    except (AttestationError, BundleError):
        return None


def _check_subject(statement: Mapping[str, Any], version: Version) -> None:
    """BundleError unless the statement names the artifact the lock records for `version`."""
    subjects = statement.get("subject")
    if not isinstance(subjects, list) or not subjects:
        raise BundleError("the signed statement names no subject")
    wanted = _wanted(version)
    npm_name = f"pkg:npm/{urllib.parse.quote(version.package.name, safe='/')}@{version.package.version}"
    for subject in subjects:
        if not isinstance(subject, dict) or not isinstance(subject.get("digest"), dict):
            continue
        digest = subject["digest"]
        if version.package.ecosystem == "npm":
            if subject.get("name") == npm_name and str(digest.get("sha512", "")).lower() in wanted:
                return
        elif str(digest.get("sha256", "")).lower() in wanted:
            return
    shown = ", ".join(f"{s.get('name')!s:.120}" for s in subjects[:3] if isinstance(s, dict))
    raise BundleError(f"the signed statement is about another artifact ({shown}) than the one the lock records")


def _wanted(version: Version) -> set[str]:
    """The hex digests the lock pins for `version`: npm's sha512 integrity decoded, or PyPI's sha256s."""
    if version.package.ecosystem != "npm":
        return {d.lower() for d in version.digests}
    wanted = set()
    for integrity in version.digests:
        algorithm, _, value = integrity.partition("-")
        if algorithm == "sha512":
            try:
                wanted.add(base64.b64decode(value, validate=True).hex())
            except (binascii.Error, ValueError):
                continue
    return wanted


def _source(record: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    repository = record.get("repository")
    return (repository, record.get("workflow"), None if repository else record.get("signer"))


def _shown(record: Mapping[str, Any]) -> str:
    if record.get("repository"):
        return f"{record['repository']} ({record.get('workflow') or 'no workflow named'})"
    return f"{record.get('signer') or 'an unnamed signer'}"


def _lost(where: Subject, new: Version, old: Version) -> Finding:
    was = f", built by {_shown(old.recorded)}" if old.recorded else ""
    message = (f"{where.server}: {new.package}{where.via} has no provenance, but {old.package.spec} had{was}: it "
               "was not published by the project's build")
    steps = [f"next step: compare {new.package.spec} with the project's repository; pin {old.package.spec}; or, "
             "once reviewed, " + _ignore(PROVENANCE_LOST, where, new)]
    return _finding(PROVENANCE_LOST, where, new, message, steps)


def _changed(where: Subject, new: Version, old: Version | None, before: Mapping[str, Any],
             after: Mapping[str, Any]) -> Finding:
    replaced = old.package.spec if old else "the version it replaces"
    message = (f"{where.server}: {new.package}{where.via} was built from {_shown(after)}, but {replaced} from "
               f"{_shown(before)}")
    steps = [f"before: {_shown(before)}", f"after: {_shown(after)}",
             "next step: confirm the move with the project; or, once reviewed, "
             + _ignore(PROVENANCE_SOURCE_CHANGED, where, new)]
    return _finding(PROVENANCE_SOURCE_CHANGED, where, new, message, steps)


def _invalid(where: Subject, new: Version, reason: str) -> Finding:
    message = f"{where.server}: {new.package}{where.via} has provenance that does not verify: {reason}"
    steps = ["next step: do not install or re-pin this release; pin another version and report it to the project "
             "and the registry"]
    return _finding(PROVENANCE_INVALID, where, new, message, steps)


def _trust_root(where: Subject, new: Version, reason: str) -> Finding:
    message = f"{where.server}: the provenance of {new.package} cannot be verified: {reason}"
    steps = ["next step: upgrade mcp-lock, or set MCP_LOCK_SIGSTORE_TRUSTED_ROOT to a current trusted_root.json "
             "from the Sigstore TUF repository, and run the check again"]
    return _finding(PROVENANCE_TRUST_ROOT_UNUSABLE, where, new, message, steps)


def _unfetched(where: Subject, new: Version, reason: str) -> Finding:
    message = f"{where.server}: {new.package}{where.via} has provenance, and its registry could not serve it: {reason}"
    steps = ["next step: run the check again; if the registry is unreachable from here, point npm_config_registry "
             "(for PyPI, UV_DEFAULT_INDEX) at one that is (a mirror that serves attestations)"]
    return _finding(PACKAGE_METADATA_FAILED, where, new, message, steps)


def _finding(rule: Rule, where: Subject, new: Version, message: str, details: list[str]) -> Finding:
    return Finding(rule, where.server, message, LockLocation(where.location), subject=new.package.spec,
                   details=details, digest=package_digest(rule.id, new.package))


def _ignore(rule: Rule, where: Subject, new: Version) -> str:
    entry = (f"rule: {rule.id}, server: {where.server}, tool: {new.package.spec}, "
             f"digest: {package_digest(rule.id, new.package)}, reason: …")
    return f"add an `ignore:` entry ({{{entry}}}) to mcp-lock.yaml"


def with_provenance(tree: Mapping[str, Any], found: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """`tree` (a lock's `launch.tree`) with each package's `provenance` set from `found` (keyed by the package's
    `path` for npm, its `name` for uv; a package not in it records none) and its digest recomputed."""
    keys = [record_key(record) for record in tree.get("packages") or []]
    return with_facts(tree, {key: {"provenance": dict(found[key]) if found.get(key) else None} for key in keys})


def record_key(record: Mapping[str, Any]) -> str:
    """What a tree tells a package record apart by: npm's install path, else uv's name at its version (a
    universal resolution may hold one name at two versions)."""
    return str(record.get("path") or f"{record.get('name')}@{record.get('version')}")


def with_facts(tree: Mapping[str, Any], facts: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """`tree` with the fields `facts` gives each package (keyed by `record_key`; a field given as None is
    removed), its format kept and its digest recomputed over the packages as recorded."""
    from scanner.lock.canonical import tree_digest

    packages = []
    for record in tree.get("packages") or []:
        updated = dict(record)
        for name, value in facts.get(record_key(record), {}).items():
            if value is None:
                updated.pop(name, None)
            else:
                updated[name] = value
        packages.append(updated)
    form = tree.get("format")
    form = form if isinstance(form, int) else None
    recorded = {"manager": tree["manager"], **({"format": form} if form is not None else {})}
    return {**recorded, "digest": tree_digest(tree["manager"], packages, form), "packages": packages}
