"""Same face for every client: a second listing of each server, under another client, compared with the first.

MCP 2026-07-28 says a server's listings MUST NOT vary per connection. A server that shows a checker clean
definitions and an agent poisoned ones would pass any review made from one listing, so every boot lists the
server twice in the same run: as the declaring client (the listing the lock, the diff and the detectors use)
and as a checker (`clients.second_face`; the protocol version and capabilities stay the declaring client's).

Two ways, measured side by side (bench/README.md): SESSION, the default, sends a second `initialize` over the
first listing's connection and lists again (the SDKs' servers take a new handshake and answer the new client):
about 3 % of a warm check (ratio of medians 1.03, within the noise). PROCESS starts a fresh process beside the
first: a connection like any other, which a server cannot tell from an agent's, but it doubles every server's
boot: 1.69x the wall time of a warm check of four SDK servers on two cores. A server that remembers its first
handshake can defeat SESSION; PROCESS is there for the run that pays for it (`boot_servers(second_listing=)`).

Any difference is a critical finding quoting both texts, unless it is not the client's doing: when the two listings
differ, a third listing as the first client is the control, made as the second was (SESSION: over the same
connection; PROCESS: from a fresh process, so that what a process draws at start, an id or its start time, varies
between the first listing and the control too). A definition that also differs between the
first listing and the control varies per listing (a timestamp, a counter): it is client-dependent only when, with
every number masked, the first and the control agree and the second does not (a counter cannot hide a second face);
otherwise it is the note `listing-varies`. A second listing that fails where the first did not (a server that
refuses a second handshake, or one that can run only once) is a note, never a verdict.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from scanner.model.findings import Finding
from scanner.model.kinds import KINDS
from scanner.model.rules import rule
from scanner.snapshot import Snapshot
from scanner.sources.declarations import Server
from scanner.transports.channel import describe
from scanner.transports.listing import ListingCaps
from scanner.transports.probe import Channel, probe
from scanner.transports.stage import Stage
from scanner.transports.stdio import StderrTail

SESSION = "session"  # the second listing over the first one's connection: a new `initialize`, then the lists
PROCESS = "process"  # the second listing from a fresh process started beside the first
OFF = "off"
MARGIN = 0.2  # seconds of the boot's budget the second session leaves, so that it never fails the first listing
MAX_QUOTED = 10  # differences quoted one by one; the rest are counted
QUOTE_CHARS = 600  # of each text quoted


@dataclass(frozen=True)
class Face:
    """Who a listing is made as, and where its process's stderr goes."""

    client: dict[str, str]
    errlog: StderrTail
    bodies: bool = True  # also `prompts/get` (the first listing only)


@dataclass(frozen=True)
class SecondListing:
    """What the server listed for the second client (`snapshot` None: it failed, `error` says how)."""

    client: dict[str, str]
    snapshot: Snapshot | None
    error: str | None = None
    control: Snapshot | None = None  # listed again as the first client, the same way, when the two listings differed


@dataclass(frozen=True)
class Difference:
    where: str  # "tool `send`", "the server's instructions"
    first: str | None  # the text the first client was shown (None: nothing)
    second: str | None


async def relist(
    channel: Channel, client: dict[str, str], caps: ListingCaps, hello: tuple[str, dict[str, Any]], ends: float
) -> SecondListing:
    """The second listing over the first one's connection: `initialize` again as `client`, then every list.

    Bounded by what is left of the boot's budget (less MARGIN), so a server that stalls here costs its
    note, never the first listing. Any error is the note's text, never the boot's.
    """
    stage = Stage()
    with anyio.move_on_after(ends - time.monotonic() - MARGIN) as scope:
        try:
            return SecondListing(client, await probe(channel, stage, client, caps=caps, hello=hello, bodies=False))
        except Exception as error:  # whatever the server does here, the first listing stands
            return SecondListing(client, None, describe(error, stage))
    assert scope.cancelled_caught
    return SecondListing(client, None, f"timed out waiting for {stage}")


async def relist_with_control(
    channel: Channel, client: dict[str, str], caps: ListingCaps, hello: tuple[str, dict[str, Any]], ends: float,
    first: Snapshot, first_client: dict[str, str],
) -> SecondListing:
    """`relist` as `client`; when it differs from `first`, a control listing as `first_client` over the same
    connection, so that what varies per listing is not taken for what varies per client. Costs nothing when the
    listings agree (the common case)."""
    second = await relist(channel, client, caps, hello, ends)
    return await controlled(second, first, lambda: relist(channel, first_client, caps, hello, ends))


async def controlled(
    second: SecondListing, first: Snapshot, again: Callable[[], Awaitable[SecondListing]]
) -> SecondListing:
    """`second`, with a control listing made by `again` (the first client's, made the way the second listing was:
    over the same connection for SESSION, from a fresh process for PROCESS) when it differs from `first`."""
    if second.snapshot is None or not differences(first, second.snapshot):
        return second
    control = await again()
    return dataclasses.replace(second, control=control.snapshot)


# Counters, timestamps, ids, hashes. An id is tried first and whole: tried after the numbers, an id that begins
# with a digit lost that digit to them and was left half-masked, so two random ids masked apart by their letters.
_NUMBER = re.compile(r"\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b|\d+(?:[.:,-]\d+)*", re.IGNORECASE)


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return _NUMBER.sub("#", value)
    if isinstance(value, dict):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item) for item in value]
    return value


def _masked_snapshot(snapshot: Snapshot) -> Snapshot:
    return dataclasses.replace(snapshot, instructions=_masked(snapshot.instructions),
                               definitions=_masked(snapshot.definitions))


def client_dependent(first: Snapshot, second: Snapshot, control: Snapshot | None) -> tuple[list[Difference],
                                                                                        list[Difference]]:
    """(differences the client made, differences that vary per listing) between the first and second listings."""
    found = differences(first, second)
    if control is None:
        return found, []
    varying = {d.where for d in differences(first, control)}
    if not varying:
        return found, []
    masked_first = _masked_snapshot(first)
    still = {d.where for d in differences(masked_first, _masked_snapshot(second))}
    masked_varying = {d.where for d in differences(masked_first, _masked_snapshot(control))}
    by_client = [d for d in found if d.where not in varying or (d.where in still and d.where not in masked_varying)]
    return by_client, [d for d in found if d not in by_client]


def differences(first: Snapshot, second: Snapshot) -> list[Difference]:
    """Every definition (and the instructions) that differs between the two listings, in listing order."""
    found: list[Difference] = []
    if first.instructions != second.instructions:
        found.append(Difference("the server's instructions", first.instructions, second.instructions))
    for kind in KINDS:
        ones = _by_name(first.definitions.get(kind.key, []), kind.name_field)
        others = _by_name(second.definitions.get(kind.key, []), kind.name_field)
        for name in [*ones, *(n for n in others if n not in ones)]:
            one, other = ones.get(name), others.get(name)
            if one != other:
                found.append(Difference(f"{kind.noun} `{name}`", *_texts(one, other)))
    return found


def _by_name(definitions: list[dict[str, Any]], field: str) -> dict[str, list[dict[str, Any]]]:
    """Definitions by their name (a list: a server may list one name twice; order within a name counts)."""
    named: dict[str, list[dict[str, Any]]] = {}
    for definition in definitions:
        named.setdefault(str(definition.get(field)), []).append(definition)
    return named


def _texts(one: list[dict[str, Any]] | None, other: list[dict[str, Any]] | None) -> tuple[str | None, str | None]:
    """What to quote of each side: the descriptions when only they differ, else the whole definitions."""
    if one is not None and other is not None and len(one) == len(other) == 1:
        a, b = one[0], other[0]
        if {**a, "description": None} == {**b, "description": None}:
            return _text(a.get("description")), _text(b.get("description"))
    return _text(one), _text(other)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + f"… ({len(text)} characters)"


def face_findings(
    server: Server, shown: dict[str, str], second: SecondListing | None, first: Snapshot
) -> list[Finding]:
    """A critical finding when the second client was shown other definitions; a note when it was not shown any."""
    if second is None:
        return []
    other = _name(second.client)
    if second.snapshot is None:
        message = (
            f"{server.key}: the second listing, as {other}, failed ({second.error}); whether this server shows every "
            "client the same definitions was not checked"
        )
        return [Finding(rule("second-listing-failed"), server.key, message, server.primary.location)]
    found, varying = client_dependent(first, second.snapshot, second.control)
    notes = [_varies(server, varying)] if varying else []
    if not found:
        return notes
    me = _name(shown)
    details: list[str] = []
    for difference in found[:MAX_QUOTED]:
        details += [
            f"{difference.where}, as {me}: {_shown(difference.first)}",
            f"{difference.where}, as {other}: {_shown(difference.second)}",
        ]
    if len(found) > MAX_QUOTED:
        details.append(f"and {len(found) - MAX_QUOTED} more difference(s)")
    listed = ", ".join(d.where for d in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    message = (
        f"{server.key}: lists different definitions to different clients ({listed}): {me} and {other} were shown "
        "different text in the same run"
    )
    return [Finding(rule("client-dependent-listing"), server.key, message, server.primary.location, details=details),
            *notes]


def _varies(server: Server, varying: list[Difference]) -> Finding:
    """The note for definitions that differ from one listing to the next under the same client."""
    listed = ", ".join(d.where for d in varying[:3]) + (f" and {len(varying) - 3} more" if len(varying) > 3 else "")
    message = (f"{server.key}: {listed} changed between two listings as the same client (a timestamp or a counter): "
               "not a difference between clients")
    details = [f"{d.where}: {_shown(d.first)} then {_shown(d.second)}" for d in varying[:MAX_QUOTED]]
    return Finding(rule("listing-varies"), server.key, message, server.primary.location, details=details)


def _name(client: dict[str, str]) -> str:
    return f"{client.get('name')} {client.get('version')}"


def _shown(text: str | None) -> str:
    return "(not listed)" if text is None else repr(text)
