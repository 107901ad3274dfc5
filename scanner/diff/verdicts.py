"""Which pinned definitions the detectors found nothing in, kept across runs (scanner.detectors.verdict_cache).

Only "nothing found" is remembered, keyed by the detectors' own code and the definition's digest; a definition with
any finding is scanned on every run. A clean verdict holds in every context: it means no text detector hit at all,
and the context-dependent steps (a server's own tool names, the cross-tool check) only remove or re-score hits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from scanner.detectors.directives import may_direct
from scanner.detectors.out_of_scope import demands
from scanner.detectors.texts import pin_texts, property_names_of
from scanner.detectors.verdict_cache import Verdicts
from scanner.diff.text_hits import MIN_NAME, hits
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS

# A verdict has two parts, kept apart: a definition whose texts hold a sentence that might order another tool
# about is scanned by the cross-tool check on every run (its verdict depends on every server's names), but it
# need not be scanned by the text detectors again.
TEXT = "text"  # the text detectors, property names and D024 found nothing
NO_DIRECTIVE = "no-directive"  # no text a cross-tool directive (D022) could be made of, whatever the names


def judged(part: str, kind: str, pin: Pin) -> bool:
    """Whether `pin` earns the verdict `part` (TEXT or NO_DIRECTIVE)."""
    texts = pin_texts(pin)
    if part == NO_DIRECTIVE:
        return not any(map(may_direct, texts))
    if any(map(hits, texts)):
        return False
    if any(hits(name) for name in property_names_of(pin.definition) if len(name) >= MIN_NAME):
        return False
    return kind != "tools" or next(demands(pin.definition), None) is None


def learn(verdicts: Verdicts, servers: Mapping[str, ServerPin], keys: Collection[str]) -> None:
    """Remember the verdicts the definitions of `keys` (pins just judged in full) earned."""
    for key in keys:
        for kind in KIND_KEYS:
            for pin in servers[key].pins(kind).values():
                for part in (TEXT, NO_DIRECTIVE):
                    if not verdicts.is_clean(f"{part}:{kind}", pin.digest) and judged(part, kind, pin):
                        verdicts.add(f"{part}:{kind}", pin.digest)


def _pins_where(server: ServerPin, verdicts: Verdicts, part: str, clean: bool) -> dict[str, dict[str, Pin]]:
    return {
        kind: {
            name: pin for name, pin in server.pins(kind).items()
            if verdicts.is_clean(f"{part}:{kind}", pin.digest) == clean
        }
        for kind in KIND_KEYS
    }


def _with_pins(server: ServerPin, pins: dict[str, dict[str, Pin]]) -> ServerPin:
    """`server` holding only `pins` (its surface digest is not recomputed: a view for the detectors only)."""
    return dataclasses.replace(server, **{KIND_BY_KEY[kind].attribute: chosen for kind, chosen in pins.items()})


def unjudged(server: ServerPin, verdicts: Verdicts) -> ServerPin:
    """`server` without the definitions `verdicts` hold as TEXT-clean: what the text detectors still read."""
    if verdicts.empty:
        return server
    return _with_pins(server, _pins_where(server, verdicts, TEXT, False))


def clean_of_directives(server: ServerPin, verdicts: Verdicts) -> ServerPin:
    """Only the definitions of `server` held as NO_DIRECTIVE, as a baseline: nothing in them is new to D022."""
    return dataclasses.replace(_with_pins(server, _pins_where(server, verdicts, NO_DIRECTIVE, True)), instructions=None)
