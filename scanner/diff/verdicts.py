"""Which pinned definitions the detectors found nothing in, kept across runs (scanner.detectors.verdict_cache).

Only "nothing found" is remembered, keyed by the detectors' own code and the definition's digest; a definition with
any finding is scanned on every run. A clean verdict holds in every context: it means no text detector hit at all,
and the context-dependent steps (a server's own tool names, the cross-tool check) only remove or re-score hits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from scanner.detectors import directives
from scanner.detectors.checks import SCREENED, screen_part
from scanner.detectors.out_of_scope import demands
from scanner.detectors.texts import pin_texts, property_names_of
from scanner.detectors.verdict_cache import Verdicts
from scanner.diff.text_hits import MIN_NAME, hits
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.kinds import KIND_BY_KEY, KIND_KEYS

# A verdict has parts, kept apart: a definition whose texts hold a sentence that might order another tool about
# is scanned by the cross-tool check on every run (its verdict depends on every server's names), but it need not be
# scanned by the text detectors again; one that names no code identifier need not be read by the checks across
# servers (D021, D022, D025) either, each of which screens one definition alone (`checks.SCREENED`).
TEXT = "text"  # the text detectors, property names and D024 found nothing
# One part per screened check across servers: its screen found nothing in the definition, whatever the names.
SCREENS = {part: screen for part, screen in SCREENED.values()}
PARTS = (TEXT, *SCREENS)
NO_DIRECTIVE = screen_part(directives.RULE)  # no text a cross-tool directive (D022) could be made of


def judged(part: str, kind: str, pin: Pin) -> bool:
    """Whether `pin` earns the verdict `part` (TEXT or a screened check's part)."""
    if part != TEXT:
        return SCREENS[part](pin)
    texts = pin_texts(pin)
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
                for part in PARTS:
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


def screened_baselines(
    live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None], verdicts: Verdicts
) -> dict[str, dict[str, ServerPin | None]]:
    """Per screened part, `baseline` with each server scanned in full (None) replaced by its definitions held clean
    of that part: nothing in them is new to that check, whatever the other servers list."""
    return {
        part: {key: clean_of(live[key], verdicts, part) if pin is None else pin for key, pin in baseline.items()}
        for part in SCREENS
    }


def clean_of(server: ServerPin, verdicts: Verdicts, part: str) -> ServerPin:
    """Only the definitions of `server` held clean of `part`, as a baseline (no instructions: they are not pins)."""
    return dataclasses.replace(_with_pins(server, _pins_where(server, verdicts, part, True)), instructions=None)
