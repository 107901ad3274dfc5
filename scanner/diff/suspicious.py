"""Run the poisoned-text detectors over what a reviewer is about to accept.

`check` scans only text that is new or changed against the pin; `lock` scans the whole baseline, so
nobody pins a poisoned tool without being told.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Set
from typing import Any

from scanner.findings import Finding, LockLocation
from scanner.lock.lockfile import ServerPin
from scanner.model.kinds import KIND_KEYS
from scanner.model.pointer import escape, pointer
from scanner.rules import kind_label, rule


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a definition (descriptions, titles, enum values, defaults…) with its JSON pointer.

    Depth-first in document order, iteratively: nested generators cost a frame per level per string,
    and `lock` walks every string of every pinned definition.
    """
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            stack.extend(
                (f"{where}/{escape(key)}", child) for key, child in reversed(list(item.items()))
            )
        elif isinstance(item, list):
            stack.extend((f"{where}/{index}", item[index]) for index in range(len(item) - 1, -1, -1))


def _texts(value: Any) -> list[str]:
    """The strings `strings(value)` yields, in the same order, without their pointers (built only for a hit)."""
    out: list[str] = []
    if isinstance(value, str):
        out.append(value)
        return out
    try:
        _collect(value, out)
    except RecursionError:  # deeper than any pinned definition can be: the iterative walk
        return [text for _, text in strings(value)]
    return out


def _collect(value: Any, out: list[str]) -> None:
    for child in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        kind = type(child)  # exact types first (a pinned definition has no others), then as `strings`
        if kind is str:
            out.append(child)
        elif kind is dict or kind is list or isinstance(child, dict | list):
            _collect(child, out)
        elif isinstance(child, str):
            out.append(child)


def _paths(value: Any) -> list[str]:
    """The pointer of each string of `_texts(value)`, by index."""
    return [path for path, _ in strings(value)]


# A tool whose name or description says it destroys something. Word-bounded, on the name split at
# separators, so "undo_delete" fires and "deleted_items_count" reads as a noun in prose only.
DESTRUCTIVE = re.compile(
    r"\b(delete|remove|drop|wipe|purge|erase|destroy|truncate|revoke|kill|terminate|overwrite|reset|"
    r"uninstall|deactivate|shutdown|rm)(s|d|ed)?\b",
    re.IGNORECASE,
)
DESTRUCTIVE_RULE_ID = "MCPL-D020"


def destructive_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """A tool that is new since the pin and can destroy something, weighed with its own annotations.

    An honest `destructiveHint: true` is still worth a reviewer's look (low); no hint is medium; a tool
    that says it destroys but is annotated read-only or non-destructive contradicts itself (high).
    """
    findings: list[Finding] = []
    before = pinned.tools if pinned is not None else {}
    for name, pin in live.tools.items():
        if name in before:
            continue
        description = pin.definition.get("description")
        words = name.replace("_", " ").replace("-", " ").replace(".", " ")
        match = DESTRUCTIVE.search(words) or (DESTRUCTIVE.search(description) if isinstance(description, str) else None)
        if match is None:
            continue
        annotations = pin.definition.get("annotations")
        hints = annotations if isinstance(annotations, dict) else {}
        if hints.get("readOnlyHint") is True or hints.get("destructiveHint") is False:
            severity, verdict = "high", "yet annotated read-only or non-destructive"
        elif hints.get("destructiveHint") is True:
            severity, verdict = "low", "and annotated destructiveHint: true"
        else:
            severity, verdict = "medium", "with no destructiveHint annotation"
        findings.append(
            Finding(
                rule("suspicious-text"),
                key,
                f"{key}: new tool `{name}` can {match.group(1).lower()} things, {verdict} [{DESTRUCTIVE_RULE_ID}]",
                LockLocation(pointer("servers", key, "tools", name)),
                subject=name,
                kind="tools",
                details=[f"evidence: {match.group(0)}", f"annotations: {hints or '(none)'}"],
                severity=severity,  # type: ignore[arg-type]
            )
        )
    return findings


def suspicious_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Detector hits on text in `live` that `pinned` did not already contain (all text when unpinned)."""
    findings: list[Finding] = destructive_findings(key, pinned, live) if pinned is not None else []
    if live.instructions and (pinned is None or pinned.instructions != live.instructions):
        findings += _scan(key, live.instructions, "instructions", None, None, LockLocation(pointer("servers", key)))
    for kind, name, definition, texts, known in _changed(live, pinned):
        paths: list[str] | None = None
        for index, text in enumerate(texts):
            if text in known or not _hits(text):
                continue
            paths = paths or _paths(definition)
            location = LockLocation(pointer("servers", key, kind, name))
            findings += _scan(key, text, f"{kind_label(kind)} `{name}` {paths[index]}", name, kind, location)
    return findings


def _scan(
    key: str, text: str, where: str, subject: str | None, kind: str | None, location: LockLocation
) -> list[Finding]:
    return [
        Finding(
            rule("suspicious-text"),
            key,
            f"{key}: {where}: {hit.summary} [{hit.rule_id}]",
            location,
            subject=subject,
            kind=kind,
            details=[f"evidence: {hit.evidence}"],
            severity=hit.severity,  # type: ignore[arg-type]
        )
        for hit in _hits(text)
    ]


@functools.lru_cache(maxsize=65536)
def _hits(text: str) -> tuple[Any, ...]:
    """`scan_text`, once per distinct text: schemas repeat the same descriptions, types and enum values."""
    return tuple(_scan_text()(text))


@functools.cache
def _scan_text() -> Any:
    from scanner.detectors import scan_text  # on first use: it loads the catalogue

    return scan_text


# A name distinctive enough that mentioning it is a reference, not an English word: a separator or an
# inner capital (send_email, get-docs, readFile) and at least five characters.
DISTINCTIVE = re.compile(r"^(?=.{5,}$)[A-Za-z0-9]+(?:[_\-.][A-Za-z0-9]+)+$|^[a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
SHADOWING_RULE_ID = "MCPL-D021"


def cross_server_findings(
    live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]
) -> list[Finding]:
    """New text in one server that names a tool of another declared server: how shadowing starts.

    `live` holds every server's current pin; `baseline[key]` is what was pinned before (None: all new).
    """
    owners: dict[str, str] = {}
    for key, server in sorted(live.items()):
        for name in server.tools:
            if DISTINCTIVE.match(name):
                owners.setdefault(name, key)
    if not owners:
        return []
    findings: list[Finding] = []
    for key, server in sorted(live.items()):
        before = baseline.get(key)
        for kind, name, definition, texts, known in _changed(server, before):
            paths: list[str] | None = None
            for index, text in enumerate(texts):
                # Every owned name has a separator between letters or digits, or a capital after one: text
                # without either (most descriptions) mentions none.
                if text in known or not _MAYBE_NAME.search(text):
                    continue
                for mentioned, start, end in _mentions(text, owners):
                    owner = owners[mentioned]
                    if owner == key or mentioned in server.tools:
                        continue  # its own tool, or a name both servers offer
                    paths = paths or _paths(definition)
                    path = paths[index]
                    if path == "/name":
                        break  # a definition's own name is not a mention
                    findings.append(
                        Finding(
                            rule("suspicious-text"),
                            key,
                            f"{key}: {kind_label(kind)} `{name}` {path}: names `{mentioned}`, a tool of server "
                            f"{owner} [{SHADOWING_RULE_ID}]",
                            LockLocation(pointer("servers", key, kind, name)),
                            subject=name,
                            kind=kind,
                            details=[f"evidence: {text[max(0, start - 60):end + 60]}"],
                            severity="high",
                        )
                    )
                    break
    return findings


# Finds what every DISTINCTIVE name contains (see `cross_server_findings`): a separator between two letters or
# digits, or a capital after a small letter or digit. It starts at the separator or capital, so that the search
# skips to those characters at C speed (a class first), then looks around.
_MAYBE_NAME = re.compile(r"[_.\-A-Z](?:(?<=[A-Za-z0-9][_.\-])(?=[A-Za-z0-9])|(?<=[a-z0-9][A-Z]))")


# A run of name characters; a mention starts at its start or after a dot in it, and ends at a dot or its end.
_RUN = re.compile(r"[\w.-]+")


def _mentions(text: str, names: Mapping[str, str]) -> Iterator[tuple[str, int, int]]:
    """Each `(name, start, end)` of `names` in `text` not inside a longer word, left to right, longest first.

    What `(?<![\\w-])(n1|n2|…)(?![\\w-])` with the names longest first finds, without building that
    alternation: with ten thousand tool names it cost seconds per `lock`.
    """
    for run in _RUN.finditer(text):
        token = run.group()
        if "." not in token:
            if token in names:
                yield token, run.start(), run.end()
            continue
        parts = token.split(".")
        starts = [0]
        for part in parts:
            starts.append(starts[-1] + len(part) + 1)
        i = 0
        while i < len(parts):
            for j in range(len(parts), i, -1):
                candidate = token[starts[i] : starts[j] - 1]
                if candidate in names:
                    yield candidate, run.start() + starts[i], run.start() + starts[j] - 1
                    i = j
                    break
            else:
                i += 1


_NOTHING: frozenset[str] = frozenset()


def _changed(server: ServerPin, before: ServerPin | None) -> Iterator[tuple[str, str, Any, list[str], Set[str]]]:
    """(kind, name, definition, its texts, texts the pinned definition already had) of each changed definition."""
    for kind in KIND_KEYS:
        old = before.pins(kind) if before is not None else {}
        for name, pin in server.pins(kind).items():
            if name in old and old[name].digest == pin.digest:
                continue  # the same canonical definition: no new text
            known = set(_texts(old[name].definition)) if name in old else _NOTHING
            yield kind, name, pin.definition, _texts(pin.definition), known
