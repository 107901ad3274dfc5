"""Per-server precision on the bump users meet every week: a release that edits every definition of a pinned server.

    python bench/detectors/edit_bump.py [--json OUT.json] [--verbose]

`run.py`'s bump brings all of a server's text at once (pinned with none of it): the worst case, and what a first
`lock` of a changed server would say. A real release usually edits text the lock already pins. Here every real
server of the benign folders (`data/benign`, each dumped batch's `data/benign_<name>/`) is pinned as dumped, then
checked against a release whose every tool, prompt, resource and template description (and the instructions) has
one sentence appended that carries no cue ("Results are paginated since this release."), declared alone and graded
as `check` grades a change. A server counts as blocked when a poisoning finding fails the run. What blocks here is
what the change wrote (nothing: the sentence is plain) or what `check` re-reads on changed text: a payload in the
pinned text blocks again (it blocked the first lock too), wording the pin already held does not (scanner.diff.
carried). Held-out, retired held-out (`per_server.RETIRED`, tuning since the re-split of 2026-12-07) and tuning
servers (`per_server.held_out`) are counted apart; nothing is tuned on this figure.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter import detections, server_pin
from corpus import DATA, BenignServer, load_benign
from per_server import RETIRED, ServerTally, held_out, line
from servers import BATCHES

EDIT = "\n\nResults are paginated since this release."


def edited(definitions: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Every definition with `EDIT` appended to its description (one given where it had none)."""
    out = copy.deepcopy(definitions)
    for items in out.values():
        for item in items:
            if isinstance(item, dict):
                item["description"] = str(item.get("description") or "") + EDIT
    return out


def blocked_by_edit(server: BenignServer) -> list[Any]:
    pinned = server_pin(server.definitions, server.instructions, package=server.package)
    instructions = server.instructions + EDIT if server.instructions else None
    live = server_pin(edited(server.definitions), instructions, package=server.package)
    return detections(pinned, live, neighbour=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true", help="list the blocked tuning servers (never held-out)")
    args = parser.parse_args()
    tuning, retired, held = ServerTally(), ServerTally(), ServerTally()
    for folder in ["benign", "benign_fresh", *(f"benign_{batch}" for batch in BATCHES if batch != "fresh")]:
        for server in load_benign(DATA / folder):
            # the held-out parts the re-split retired (`per_server.RETIRED`) are tuning now, counted apart
            tally = tuning if not held_out(server.package) else retired if folder in RETIRED else held
            tally.add(server.label, blocked_by_edit(server))
    print("per server: a release that appends a plain sentence to every description of a pinned server (a change)")
    print(line("held-out servers now", held))
    print(line("retired held-out servers", retired))
    print(line("tuning servers", tuning))
    if args.verbose:
        for label, found in [*retired.labels, *tuning.labels]:
            print(f"    BLOCKED {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:100]!r}" for d in found))
    if args.json:
        args.json.write_text(json.dumps({"heldout": held.summary(), "retired": retired.summary(),
                                         "tuning": tuning.summary()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
