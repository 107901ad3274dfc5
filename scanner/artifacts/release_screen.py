"""Screens of a package version that is new to a server (a version bump, a new server, a release behind an
unchanged launch): how old the release is, whether it newly runs an install script, and whether the name it
claims in the official MCP registry is the one its `server.json` declaration uses.

A release younger than `min-release-age` is `release-too-young`: the malicious MCP releases seen so far were
reported within days, so a young one waits until the community had that time. A package that runs install
code its previous version did not (npm `hasInstallScript` or lifecycle scripts; a PyPI version with no wheel,
which is installed by building its sdist) is `install-script-added`. Each finding names the
package version, says the date it becomes acceptable or what changed, and gives a next step that works: wait,
pin another version, or an `ignore:` entry bound to that version (`tool: name@version`).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from scanner.artifacts.inventory import Package, ServerPackage
from scanner.artifacts.packument import RegistryError, Release
from scanner.lock.canonical import digest
from scanner.model.findings import Finding, LockLocation
from scanner.model.rule_base import Rule
from scanner.model.rules import (
    INSTALL_SCRIPT_ADDED,
    LICENSE_CHANGED,
    MCP_NAME_MISMATCH,
    PACKAGE_METADATA_FAILED,
    RELEASE_TOO_YOUNG,
)


@dataclass(frozen=True)
class NewPackage:
    """A package version one server runs that it did not before."""

    server: str
    entry: ServerPackage
    previous: ServerPackage | None  # the version of the same package it ran before, if any
    registry_name: str | None = None  # the official registry name its server.json declaration uses, if any
    # Nothing was known of the server's packages before (a server pinned for the first time, or a pin that
    # recorded none): its first pin is reviewed whole, so a package is not "newly" running an install script.
    fresh: bool = False


def new_packages(
    before: Mapping[str, list[ServerPackage]], after: Mapping[str, list[ServerPackage]]
) -> list[NewPackage]:
    """Every (server, package version) in `after` that `before` did not have, wherever it sits in the tree, with
    the version it replaces: the one at the same place in the tree (npm's install path, uv's name), else another
    version of the same package the server ran."""
    found: list[NewPackage] = []
    for key, entries in after.items():
        old = before.get(key, [])
        held = {e.package for e in old}
        at_place = {(e.package.ecosystem, e.tree_key): e for e in old if e.tree_key is not None}
        by_name: dict[tuple[str, str], ServerPackage] = {}
        for e in sorted(old, key=lambda e: not e.direct):  # the launched package first
            by_name.setdefault((e.package.ecosystem, e.package.name), e)
        for entry in entries:
            if entry.package in held:
                continue
            package = entry.package
            previous = at_place.get((package.ecosystem, entry.tree_key)) if entry.tree_key is not None else None
            if previous is None or previous.package.name != package.name:
                previous = by_name.get((package.ecosystem, package.name))
            found.append(NewPackage(key, entry, previous, fresh=not old))
    return found


Describe = Callable[[NewPackage], "tuple[Release, Release | None] | None"]


def release_findings(
    changes: list[NewPackage], min_age: datetime.timedelta, now: datetime.datetime, describe: Describe
) -> list[Finding]:
    """The findings about each new package version. `describe` asks its registry about it and the version it
    replaces (RegistryError: the registry could not say; None: no registry is known to ask, not screened)."""
    findings: list[Finding] = []
    for change in changes:
        try:
            described = describe(change)
        except RegistryError as error:
            findings.append(_failed(change, str(error)))
            continue
        if described is None:
            continue
        release, before = described
        if not change.fresh:  # a first pin is reviewed whole: screened for advisories, not for its age
            findings += _young(change, release, min_age, now)
        findings += _install_script(change, release, before)
        findings += _mcp_name(change, release)
        findings += _licence(change, release, before)
    return findings


def _young(change: NewPackage, release: Release, min_age: datetime.timedelta, now: datetime.datetime) -> list[Finding]:
    package = change.entry.package
    if release.published is None:
        return [_failed(change, f"the registry does not say when {package.spec} was published")]
    age = now - release.published
    if age >= min_age:
        return []
    ready = release.published + min_age
    days = min_age.days
    message = (
        f"{change.server}: {package}{_where(change)} was published {_age(age)} ago "
        f"({release.published:%Y-%m-%d %H:%M} UTC), younger than the {days}-day min-release-age: acceptable from "
        f"{ready:%Y-%m-%d %H:%M} UTC"
    )
    steps = [
        f"published: {release.published:%Y-%m-%d %H:%M} UTC; acceptable from: {ready:%Y-%m-%d %H:%M} UTC",
        *_tree_line(change),
        f"next step: wait until {ready:%Y-%m-%d} and run the check again; or {_other_version(change)}"
        + "; or, after reviewing the release, " + _ignore(RELEASE_TOO_YOUNG.id, change, f"{ready:%Y-%m-%d}"),
    ]
    return [_finding(RELEASE_TOO_YOUNG, change, message, steps)]


def _install_script(change: NewPackage, release: Release, before: Release | None) -> list[Finding]:
    if not release.install_script or change.fresh:
        return []
    if before is not None and before.install_script:
        return []  # not new: the version it replaces ran one too
    package = change.entry.package
    npm = package.ecosystem == "npm"
    runs = "runs an install script" if npm else "has no wheel, so installing it builds its sdist"
    if change.previous is None:
        what = f"joins what this server runs and {runs}"
    else:
        what = f"{runs}, which {change.previous.package.spec} did not"
    message = (f"{change.server}: {package}{_where(change)} {what} (code that runs when it is installed, before "
               "the server starts)")
    read = f"read its scripts (`npm view {package.spec} scripts`)" if npm else "read its build (setup.py, pyproject)"
    steps = [*_tree_line(change), f"next step: {read}; {_other_version(change)}; or, once reviewed, "
             + _ignore(INSTALL_SCRIPT_ADDED.id, change, None)]
    return [_finding(INSTALL_SCRIPT_ADDED, change, message, steps)]


def _mcp_name(change: NewPackage, release: Release) -> list[Finding]:
    wanted, claimed = change.registry_name, release.mcp_name
    if wanted is None or claimed is None or claimed == wanted:
        return []
    package = change.entry.package
    message = (f"{change.server}: {package} claims the MCP registry name {claimed!r} in its package.json "
               f"(`mcpName`), but its server.json declares {wanted!r}")
    steps = ["the official registry publishes a server only when its package names it: this package is not the "
             "one that name was published for, or the declaration names another server",
             "next step: declare the package the registry entry names, or correct server.json's `name`; or, once "
             "reviewed, " + _ignore(MCP_NAME_MISMATCH.id, change, None)]
    return [_finding(MCP_NAME_MISMATCH, change, message, steps)]


def _licence(change: NewPackage, release: Release, before: Release | None) -> list[Finding]:
    """A note when the license the registry states differs from the one the replaced version stated."""
    if before is None or change.previous is None or not before.license or not release.license:
        return []
    if before.license.strip().lower() == release.license.strip().lower():
        return []
    package = change.entry.package
    message = (f"{change.server}: {package}{_where(change)} is licensed {release.license!r}; "
               f"{change.previous.package.spec} was licensed {before.license!r}")
    steps = ["next step: check the new license against what your project may use; the bill of materials "
             "(`mcp-lock bom`) lists each package's license as the lock records it"]
    return [_finding(LICENSE_CHANGED, change, message, steps)]


def _where(change: NewPackage) -> str:
    """`, pulled in by a@1.0.0 (top@1.0.0 → a@1.0.0 → b@2.0.0),` for a dependency; nothing for the launched one."""
    clause = change.entry.pulled_in_by()
    return f" ({clause})" if clause else ""


def _tree_line(change: NewPackage) -> list[str]:
    via = change.entry.via
    if via is None or change.entry.direct or not via.chain:
        return []
    return [f"in the tree: {via.shown(change.entry.package.spec)}"]


def _other_version(change: NewPackage) -> str:
    """How to run another version: the launched package's own pin, or, for a dependency, the tree pinned before
    (the lock is the install) or a version of the package that pulls it in."""
    before = f" ({change.previous.package.spec}, pinned before)" if change.previous else ""
    if change.entry.direct or change.entry.via is None:
        return "pin another version" + before
    parent = change.entry.via.parent()
    by = f"a version of {parent} that does not pull it in" if parent else "a launch whose tree does not hold it"
    return (f"keep the tree pinned before{before}: do not re-pin (`check` installs what the lock records); "
            f"or pin {by}")


def _failed(change: NewPackage, reason: str) -> Finding:
    package = change.entry.package
    message = (f"{change.server}: {package}{_where(change)} is new here, and its registry could not say how old it "
               f"is or whether it runs an install script: {reason}")
    steps = ["next step: run the check again; if the registry is unreachable from here, point npm_config_registry "
             "(for PyPI, UV_DEFAULT_INDEX) at one that is (a mirror)"]
    return _finding(PACKAGE_METADATA_FAILED, change, message, steps)


def _finding(rule: Rule, change: NewPackage, message: str, details: list[str]) -> Finding:
    return Finding(
        rule,
        change.server,
        message,
        LockLocation(change.entry.location),
        subject=change.entry.package.spec,
        details=details,
        # What an `ignore:` entry accepts: this rule on this package version; another version is judged afresh.
        digest=package_digest(rule.id, change.entry.package),
    )


def package_digest(rule_id: str, package: Package) -> str:
    """The content a package finding is about: its rule and the package version (ecosystem, name, version)."""
    return digest({"rule": rule_id, "package": [package.ecosystem, package.name, package.version]})


def _ignore(rule_id: str, change: NewPackage, until: str | None) -> str:
    accepted = package_digest(rule_id, change.entry.package)
    package = change.entry.package.spec
    entry = f"rule: {rule_id}, server: {change.server}, tool: {package}, digest: {accepted}, reason: …"
    return f"add an `ignore:` entry ({{{entry}{f', until: {until}' if until else ''}}}) to mcp-lock.yaml"


def _age(age: datetime.timedelta) -> str:
    hours = int(age.total_seconds() // 3600)
    return f"{hours // 24} day(s) {hours % 24} h" if hours >= 24 else f"{max(hours, 0)} h"
