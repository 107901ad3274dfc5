"""`lock` and `update`: what a package's registry says of each package of a newly pinned tree, recorded in the
lock beside it: its verified provenance (npm provenance, PEP 740: repository, workflow, ref, commit, issuer;
scanner.artifacts.provenance) and, for a uv package, the license its index states (npm's comes with npm's own
resolution, scanner.install.npm_record).

A package the replaced pin recorded at the same place (or version) with the same content keeps that record and
costs nothing. The others are asked of the launch's registry, a few at once, all within one deadline and one
count: npm's attestations of the version (and of the one it replaces; a small answer, or 404 for none, where a
packument of a popular package is megabytes to parse), a PyPI package's JSON simple-API page (which file has
PEP 740 provenance) and the index's JSON API for its license; an index without a JSON API leaves the license
to the installed distribution's METADATA (License-Expression, else a short License, else the classifier), read
from the verified store entry, never by running package code. A version with attestations is verified offline
(only then is Sigstore imported) and judged against the version it replaces as the replaced pin records it
(provenance-lost, -source-changed); a bundle that does not verify is provenance-invalid. What could not be asked
is said and left unrecorded: a later check then asks the registry about the version it replaces, as before.
"""

from __future__ import annotations

import datetime
import functools
import time
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.attestations import SLSA, Requests, npm_url, registry_bundles
from scanner.artifacts.inventory import TREE_ECOSYSTEMS, ServerPackage, pin_packages, record_hashes
from scanner.artifacts.kept_alive import Connections
from scanner.artifacts.packument import RegistryError, Release, asked_once, fetch_json, registry_for
from scanner.artifacts.provenance import Subject, Version, record_key, screen, with_facts
from scanner.artifacts.pypi_index import configured_index, json_api, json_release
from scanner.artifacts.record import normalised
from scanner.artifacts.release_screen import NewPackage, new_packages
from scanner.artifacts.sigstore_check import load_trust_root
from scanner.artifacts.simple_index import SIMPLE_JSON
from scanner.artifacts.simple_index import releases_of as file_releases
from scanner.install.dist_metadata import installed_licenses
from scanner.lock.lockfile import ServerPin
from scanner.run.provenance_check import pulled_in, record_at
from scanner.run.recorded import Recorded
from scanner.run.release_check import launch_env
from scanner.run.workspace import Workspace

DEADLINE = 120.0  # seconds for every registry question of one `lock` or `update`, at the least
SECONDS_PER_QUESTION = 0.5  # added per question asked (a first lock of 28 real servers asks about 3,500)
MAX_DEADLINE = 600.0  # and never more, however many are asked
MAX_ASKED = 2000  # package names (and uv versions) asked about in one run; past it, left unrecorded
WORKERS = 16  # registry questions at once, each over a connection kept open (scanner.artifacts.kept_alive)
PACED = 8  # questions the deadline counts as asked at once (the workers before connections were kept open)
ABBREVIATED = "application/vnd.npm.install-v1+json"  # npm's install document: versions and their dist, no readme
MAX_NAMED = 5  # recorded repositories named in the run's message, per server


@dataclass(frozen=True)
class Question:
    """One registry answer: a package's document (npm: its packument; PyPI: its simple-API page) or, with a
    `version`, the PyPI JSON API's answer about that version."""

    source: str
    ecosystem: str
    name: str
    version: str | None = None


def record_registry_facts(
    workspace: Workspace, pins: dict[str, ServerPin], keys: Collection[str],
    previous: Mapping[str, ServerPin], now: datetime.datetime | None = None,
) -> Recorded:
    """Record, in place, the provenance (and uv license) of each package of the trees of `pins[key]` for `keys`,
    against the pins they replace (`previous`)."""
    done = Recorded()
    facts: dict[str, dict[str, dict[str, Any]]] = {}
    changes: list[NewPackage] = []
    records: dict[str, dict[str, Mapping[str, Any]]] = {}  # server -> location -> its new record
    for key in keys:
        pin, old = pins.get(key), previous.get(key)
        if pin is None or pin.tree is None or TREE_ECOSYSTEMS.get(str(pin.tree.get("manager"))) is None:
            continue
        kept, asked = _carried(key, pin, old)
        facts[key] = kept
        entries = pin_packages(key, pin)
        records[key] = {entry.location: record for entry, record in zip(entries, pin.tree["packages"], strict=True)}
        before = {key: pin_packages(key, old) if old is not None and _same_manager(old, pin) else []}
        changes += new_packages(before, {key: [e for e in entries if e.location in asked]})
    if changes:
        trees = {key: pin.tree for key, pin in pins.items() if key in facts and pin.tree is not None}
        _ask_and_screen(workspace, changes, records, trees, previous, facts, done, now)
    for key, found in facts.items():
        pin = pins[key]
        assert pin.tree is not None
        pin.tree = with_facts(pin.tree, found)
        named = sorted({str(p["provenance"].get("repository") or p["provenance"].get("signer"))
                        for p in pin.tree["packages"] if isinstance(p.get("provenance"), dict)})
        if named:
            shown = ", ".join(named[:MAX_NAMED]) + (f" and {len(named) - MAX_NAMED} more" if len(named) > MAX_NAMED
                                                    else "")
            done.messages.append(f"{key}: verified provenance recorded ({shown})")
    return done


def _same_manager(old: ServerPin, pin: ServerPin) -> bool:
    return old.tree is not None and pin.tree is not None and old.tree.get("manager") == pin.tree.get("manager")


def _carried(key: str, pin: ServerPin, old: ServerPin | None) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """What the replaced pin recorded of each package it held at the same place (else version) with the same
    content, by record key; and the locations of the packages to ask about."""
    assert pin.tree is not None
    uv = pin.tree.get("manager") == "uv"
    held: dict[str, Mapping[str, Any]] = {}
    releases: dict[tuple[Any, Any], Mapping[str, Any]] = {}
    if old is not None and _same_manager(old, pin):
        assert old.tree is not None
        for record in old.tree.get("packages") or []:
            held[record_key(record)] = record
            releases.setdefault((record.get("name"), record.get("version")), record)
    kept: dict[str, dict[str, Any]] = {}
    asked: set[str] = set()
    for entry, record in zip(pin_packages(key, pin), pin.tree["packages"], strict=True):
        was = held.get(record_key(record))
        if was is None or (was.get("name"), was.get("version")) != (record.get("name"), record.get("version")):
            was = releases.get((record.get("name"), record.get("version")))
        if was is not None and _same_content(was, record):
            kept[record_key(record)] = {"provenance": was.get("provenance"),
                                        **({"license": was.get("license") or record.get("license")} if uv else {})}
        else:
            asked.add(entry.location)
    return kept, asked


def _same_content(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The same release: npm's one integrity, or (uv) a file sha256 in common."""
    before, after = set(record_hashes(old)), set(record_hashes(new))
    return bool(before & after) if "sha256" in new else before == after and bool(after)


def _ask_and_screen(
    workspace: Workspace, changes: list[NewPackage], records: Mapping[str, Mapping[str, Mapping[str, Any]]],
    trees: Mapping[str, Mapping[str, Any]], previous: Mapping[str, ServerPin],
    facts: dict[str, dict[str, dict[str, Any]]], done: Recorded, now: datetime.datetime | None,
) -> None:
    servers = {change.server for change in changes}
    envs = {key: launch_env(workspace, key) for key in servers}
    npm_default = asked_once()
    registries = {key: registry_for(envs[key], workspace.environ, npm_default) for key in servers}
    indexes = {key: configured_index(envs[key], workspace.environ) for key in servers}
    questions: dict[Question, None] = {}
    for change in changes:
        source = indexes[change.server] if change.entry.package.ecosystem == "PyPI" else registries[change.server]
        if source is None:
            continue
        for question in _questions(source, change):
            questions[question] = None
    asked = list(questions)[:MAX_ASKED]
    deadline = time.monotonic() + registry_deadline(len(asked))
    with Connections() as connections:  # one kept open per host and worker: no handshake per question
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            ask = functools.partial(_answer, deadline=deadline, connections=connections)
            answers = dict(zip(asked, pool.map(ask, asked), strict=True))
        _screen(workspace, changes, records, trees, previous, facts, done, now, answers,
                Requests(deadline=deadline, limit=MAX_ASKED, connections=connections), registries, indexes)


def _screen(
    workspace: Workspace, changes: list[NewPackage], records: Mapping[str, Mapping[str, Mapping[str, Any]]],
    trees: Mapping[str, Mapping[str, Any]], previous: Mapping[str, ServerPin],
    facts: dict[str, dict[str, dict[str, Any]]], done: Recorded, now: datetime.datetime | None,
    answers: Mapping[Question, dict[str, Any] | str], requests: Requests, registries: Mapping[str, str | None],
    indexes: Mapping[str, str | None],
) -> None:
    """Record what `answers` say of each of `changes` and screen the attested ones (their bundles asked with
    `requests`)."""
    installed: dict[str, dict[tuple[str, str], str]] = {}  # server -> its installed distributions' licenses
    root = functools.cache(lambda: load_trust_root(workspace.environ))
    moment = now or datetime.datetime.now(datetime.UTC)
    unasked: dict[str, list[str]] = {}
    pages: dict[Question, dict[str, Release]] = {}  # each simple-API page's releases, read in one pass
    for change in changes:
        package = change.entry.package
        pypi = package.ecosystem == "PyPI"
        source = indexes[change.server] if pypi else registries[change.server]
        questions_here = _questions(source, change) if source else []
        asked_here = [answers.get(q) for q in questions_here] or [None]
        key = record_key(records[change.server][change.entry.location])
        found = facts[change.server].setdefault(key, {})
        if pypi:  # the installed distribution states its license even when the index could not be asked
            described = json_release(asked_here[1]) if len(asked_here) > 1 and isinstance(asked_here[1], dict) else None
            stated = described.license if described is not None else None
            if stated is None and change.server not in installed:  # no JSON API, or it states none
                installed[change.server] = installed_licenses(workspace.environ, trees[change.server])
            found["license"] = stated or installed.get(change.server, {}).get((normalised(package.name),
                                                                               package.version))
        if not isinstance(asked_here[0], dict):  # the version's own answer; the others only add to it
            why = (asked_here[0] if isinstance(asked_here[0], str)
                   else f"past the {MAX_ASKED:,} questions one run asks" if source else "no registry is configured")
            unasked.setdefault(change.server, []).append(f"{package.spec} ({why})")
            continue
        release, before = _described(asked_here, change, pages, questions_here[0])
        if release is None:
            continue
        new = Version(package, change.entry.hashes, release.attested)
        old = _predecessor(change, before, previous)
        bundles = registry_bundles(requests, registries[change.server], indexes[change.server])
        where = Subject(change.server, change.entry.location, pulled_in(change))
        screened = screen(where, new, old, bundles, root, moment)
        done.findings += screened.findings
        found["provenance"] = screened.provenance
    for key, missed in unasked.items():
        done.messages.append(f"{key}: the provenance of {len(missed)} package(s) was not recorded, as their registry "
                             f"could not be asked: {', '.join(missed[:MAX_NAMED])}"
                             + (f" and {len(missed) - MAX_NAMED} more" if len(missed) > MAX_NAMED else ""))


def registry_deadline(questions: int) -> float:
    """Seconds for `questions` registry questions, PACED at a time: a first lock of many servers asks thousands,
    and a fixed deadline left every one of them unasked on a slow network; bounded all the same."""
    return min(MAX_DEADLINE, DEADLINE + questions * SECONDS_PER_QUESTION / PACED)


def _questions(source: str, change: NewPackage) -> list[Question]:
    """What to ask about `change`: npm, the attestations of its version and of the one it replaces; PyPI, the
    package's simple-API page and the JSON API's answer about its version."""
    package = change.entry.package
    if package.ecosystem == "PyPI":
        return [Question(source, "PyPI", package.name), Question(source, "PyPI", package.name, package.version)]
    asked = [Question(source, "npm", package.name, package.version)]
    if change.previous is not None and change.previous.package.name == package.name:
        asked.append(Question(source, "npm", package.name, change.previous.package.version))
    return asked


def _answer(question: Question, deadline: float, connections: Connections | None = None) -> dict[str, Any] | str:
    """The registry's parsed answer to `question` (npm attestations: `{}` when it has none), or why it could not
    be had (one line)."""
    if question.ecosystem == "npm":
        assert question.version is not None
        url, accept, absent = npm_url(question.source, question.name, question.version), "application/json", {}
    elif question.version is None:
        url, accept, absent = f"{question.source.rstrip('/')}/{normalised(question.name)}/", SIMPLE_JSON, None
    else:
        url, accept, absent = json_api(question.source, question.name, question.version), "application/json", {}
    try:
        answer = fetch_json(url, accept, deadline, time.monotonic, absent=absent, connections=connections)
    except RegistryError as error:
        return str(error)
    return answer if isinstance(answer, dict) else f"the registry's answer about {question.name} is not an object"


def _described(
    answers: list[Any], change: NewPackage, pages: dict[Question, dict[str, Release]], page: Question
) -> tuple[Release | None, Release | None]:
    """What the answers say of the new version and the one it replaces (only whether each is attested); `pages`
    holds the releases of each simple-API page read so far, by the question `page` that asked for it."""
    package = change.entry.package
    if package.ecosystem == "npm":
        attested = [_npm_attested(answer) for answer in answers]
        return Release(None, False, None, attested=attested[0]), (
            Release(None, False, None, attested=attested[1]) if len(attested) > 1 else None)
    if page not in pages:  # one pass over a page, for every server that installs the package
        files = answers[0].get("files")
        pages[page] = file_releases(files if isinstance(files, list) else [], package.name)
    releases = pages[page]
    before = change.previous.package.version if change.previous is not None else None
    return releases.get(package.version), releases.get(before) if before else None


def _npm_attested(answer: Any) -> bool:
    """Whether an npm attestations answer holds SLSA provenance (npm's own publish attestation names no build)."""
    entries = answer.get("attestations") if isinstance(answer, dict) else None
    return isinstance(entries, list) and any(
        isinstance(e, dict) and str(e.get("predicateType", "")).startswith(SLSA) for e in entries)


def _predecessor(change: NewPackage, before: Release | None, previous: Mapping[str, ServerPin]) -> Version | None:
    """The version `change` replaces, with what the replaced pin records of it (its provenance, judged from the
    lock, never re-fetched when it is there)."""
    was: ServerPackage | None = change.previous
    if was is None:
        return None
    pin = previous.get(change.server)
    record = record_at({change.server: pin}, was.location) if pin is not None else None
    recorded = record.get("provenance") if record is not None else None
    return Version(was.package, was.hashes, before.attested if before is not None else False,
                   recorded if isinstance(recorded, dict) else None)
