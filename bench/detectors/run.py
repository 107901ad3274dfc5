"""Score the detectors: false positives on real servers' definitions, recall on self-written attacks.

Every definition is scored as `mcp-lock check` scores a definition that is new since the pin (see
`adapter.py`). A benign definition counts as a false positive when any poisoning rule fires on it; a
positive counts as caught when any poisoning rule fires. Proportions come with Wilson 95% intervals.

Run: python bench/detectors/run.py [--verbose] [--json OUT.json]
     python bench/detectors/run.py --tuning   # what tuning may look at, and nothing held out is even scored

`--tuning` scores only the tuning servers (of `data/benign` and each dumped batch's `data/benign_<name>/`,
`servers.BATCHES`, by `per_server.held_out`), the held-out parts the re-split of 2026-12-07 retired to tuning
(`per_server.RETIRED`, printed apart) and the attack sets tuned on, and lists every blocked tuning server and every
definition flagged on them. The held-out figure from that re-split on is `held out now`: the parts it kept.

The positives are written by the project itself: recall on them overestimates recall on attacks
written by others.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter import (
    Detection,
    bump,
    category,
    detections,
    detections_for_new,
    each_added,
    first_lock,
    is_poisoning,
    server_pin,
    without,
)
from corpus import DATA, BenignServer, Example, load_benign, load_examples, wilson
from hard_benign import hard_benign
from per_server import RETIRED, ServerTally, blocked_at_first_lock, held_out, line, score_bumps, score_servers
from servers import BATCHES as DUMPED_BATCHES
from servers import WIDELY_INSTALLED

# Rules that can fire because the adapter's neighbour server owns the tool name a definition mentions (see
# adapter.NEIGHBOUR_TOOLS): the positives name those tools, so every figure is also given for the definition
# declared alone, without the neighbour (MCPL-D022 still knows the widely installed servers' tools then).
NEEDS_NEIGHBOUR: frozenset[str] = frozenset({"MCPL-D021", "MCPL-D022"})


@dataclass
class Tally:
    n: int = 0
    flagged: int = 0
    flagged_alone: int = 0  # flagged when declared without the neighbour server
    blocked_alone: int = 0  # declared alone, a poisoning finding fails `check` at blocking severity (high or above)
    first_lock: int | None = None  # as a server of its own, a first `lock` blocks (attack sets only)
    per_rule: Counter[str] = field(default_factory=Counter)
    hits: list[tuple[str, list[Detection]]] = field(default_factory=list)  # (label, poisoning detections)
    misses: list[str] = field(default_factory=list)

    def add(self, label: str, found: list[Detection], alone: Callable[[], list[Detection]]) -> None:
        """`alone` gives the detections without the neighbour server, asked only when they can differ."""
        self.n += 1
        rules = {d.rule_id for d in found}
        self.per_rule.update(rules)
        poisoning = [d for d in found if is_poisoning(d.rule_id)]
        if any(d.rule_id not in NEEDS_NEIGHBOUR for d in poisoning) or (
            poisoning and any(is_poisoning(d.rule_id) for d in alone())
        ):
            self.flagged_alone += 1
        if any(d.blocks and d.rule_id not in NEEDS_NEIGHBOUR for d in found) or (
            any(d.blocks for d in found) and any(d.blocks for d in alone())
        ):
            self.blocked_alone += 1
        if poisoning:
            self.flagged += 1
            self.hits.append((label, poisoning))
        else:
            self.misses.append(label)

    def summary(self) -> dict[str, Any]:
        low, high = wilson(self.flagged, self.n)
        alone_low, alone_high = wilson(self.flagged_alone, self.n)
        return {"n": self.n, "flagged": self.flagged, "rate": self.flagged / self.n if self.n else 0.0,
                "ci95": [low, high],
                "flagged_without_neighbour": self.flagged_alone,
                "rate_without_neighbour": self.flagged_alone / self.n if self.n else 0.0,
                "ci95_without_neighbour": [alone_low, alone_high],
                "blocked_without_neighbour": self.blocked_alone,
                **({} if self.first_lock is None else {"blocked_at_first_lock": self.first_lock}),
                "per_rule": dict(sorted(self.per_rule.items()))}

    def merge(self, other: Tally) -> None:
        self.n += other.n
        self.flagged += other.flagged
        self.flagged_alone += other.flagged_alone
        self.blocked_alone += other.blocked_alone
        if other.first_lock is not None:
            self.first_lock = (self.first_lock or 0) + other.first_lock
        self.per_rule.update(other.per_rule)


# The servers dumped last (servers.WIDELY_INSTALLED): no rule was chosen or tuned while they were in the corpus
# before this batch's own stop, so their false positives are the closest to held-out servers the corpus has.
FRESH: frozenset[str] = frozenset(f"{package}@{version}" for _eco, package, version, *_ in WIDELY_INSTALLED)


def score_benign(servers: list[BenignServer]) -> tuple[Tally, Tally, Tally, Tally]:
    """(all definitions, tools only, the fresh servers', the older servers'): each definition as newly added to
    its own server's other definitions."""
    everything, tools, fresh, older = Tally(), Tally(), Tally(), Tally()
    for server in servers:
        for kind, key, found, alone in each_added(server.definitions, server.package):
            label = f"{server.label} {kind}/{key}"
            everything.add(label, found, alone)
            (fresh if server.label in FRESH else older).add(label, found, alone)
            if kind == "tools":
                tools.add(label, found, alone)
    return everything, tools, fresh, older


def score_hard_benign() -> tuple[Tally, Tally]:
    """The hard real benign set (hard_benign.py): (as new beside its own server's other tools, as a server of its
    own, its sibling tools known only from the vendored list)."""
    beside, alone = Tally(), Tally()
    for label, definitions, kind, name in hard_benign():
        full = server_pin(definitions)
        before = without(full, kind, name)
        beside.add(f"{label} {name}", detections(before, full), lambda b=before, f=full: detections(b, f, False))
        definition = next(d for d in definitions[kind] if d["name"] == name)
        alone.add(f"{label} {name}", detections_for_new(kind, definition),
                  lambda d=definition, k=kind: detections_for_new(k, d, neighbour=False))
    return beside, alone


def score_examples(examples: list[Example], first: bool = False) -> dict[str, Tally]:
    """Each example as new since the pin (`check`); with `first`, also as a server a first `lock` pins."""
    groups: dict[str, Tally] = defaultdict(Tally)
    for example in examples:
        groups[example.group].add(example.id, detections_for_new("tools", example.definition),
                                  lambda d=example.definition: detections_for_new("tools", d, neighbour=False))
    if first:
        for group, tally in groups.items():
            tally.first_lock = blocked_at_first_lock([e for e in examples if e.group == group])
    return dict(sorted(groups.items()))


def _total(groups: dict[str, Tally]) -> Tally:
    total = Tally()
    for tally in groups.values():
        total.merge(tally)
    return total


# (key, folder, title, tuned on): the held-out sets' misses are never listed, so that nobody tunes on them.
POSITIVE_SETS: tuple[tuple[str, str, str, bool], ...] = (
    ("positives", "positives", "SELF-WRITTEN positives (overestimates recall on others' attacks)", True),
    ("heldout", "positives_heldout", "HELD-OUT self-written positives (written before tuning, never tuned on)",
     False),
    ("independent", "positives_independent",
     "INDEPENDENT positives (written by an author who never saw the rules; tuned on)", True),
    ("injected", "positives_injected",
     "INJECTED positives (real definitions with attacks by an author who never saw the rules; tuned on)", True),
    ("subtle", "positives_subtle", "SUBTLE positives (an author who never saw the rules; tuned on)", True),
    ("generated", "positives_generated",
     "GENERATED positives (benchmark-style templates by an author who never saw the rules; tuned on)", True),
    ("orders", "positives_orders",
     "ORDERS positives (self-written by the rules' author for issue 38 item 4's checks; tuned on)", True),
    ("independent_heldout", "positives_independent_heldout",
     "INDEPENDENT HELD-OUT positives (an author who never saw the rules; never tuned on)", False),
)

# The batches dumped after the first one, each with a tuning and a held-out part (`servers.FRESH2` …).
BATCHES = tuple(batch for batch in DUMPED_BATCHES if batch != "fresh")
# The held-out bases printed beside the first four parts, each the one before it and one batch more.
HELD_OUT_BASES = (("first_five", "fresh4"), ("first_six", "fresh5"), ("first_seven", "fresh6"),
                  ("first_eight", "fresh7"), ("first_nine", "fresh8"), ("first_ten", "fresh9"),
                  ("first_eleven", "fresh10"), ("first_twelve", "fresh11"),
                  ("first_thirteen", "fresh12"), ("first_fourteen", "fresh13"), ("first_fifteen", "fresh14"),
                  ("first_sixteen", "fresh15"), ("first_seventeen", "fresh16"),
                  ("first_eighteen", "fresh17"), ("first_nineteen", "fresh18"), ("first_twenty", "fresh19"),
                  ("first_twenty_one", "fresh20"), ("first_twenty_two", "fresh21"),
                  ("first_twenty_three", "fresh22"), ("first_twenty_four", "fresh23"),
                  ("first_twenty_five", "fresh24"), ("first_twenty_six", "fresh25"),
                  ("first_twenty_seven", "fresh26"), ("first_twenty_eight", "fresh27"),
                  ("first_twenty_nine", "fresh28"), ("first_thirty", "fresh29"),
                  ("first_thirty_one", "fresh30"), ("first_thirty_two", "fresh31"),
                  ("first_thirty_three", "fresh32"),
                  ("first_thirty_four", "fresh33"), ("first_thirty_five", "fresh34"),
                  ("first_thirty_six", "fresh35"), ("first_thirty_seven", "fresh36"),
                  ("all", "fresh37"))
# The batches whose held-out part the re-split kept held out (`per_server.RETIRED`).
KEPT = tuple(batch for batch in BATCHES if f"benign_{batch}" not in RETIRED)
KEPT_TITLE = f"held out now ({KEPT[0]}-{KEPT[-1].removeprefix('fresh')})"
HISTORY = ("  (the held-out parts before fresh8 are tuning since the re-split of 2026-12-07: each basis above "
           "that counts them is history)")
# How each basis is printed: the parts so far, each basis adding one batch's held-out part.
BASIS_TITLES = {"first_four": "first four held-out", **{basis: ("all held-out parts" if basis == "all" else
                                                                 basis.replace("_", " ") + " held-out")
                                                         for basis, _batch in HELD_OUT_BASES}}


def evaluate() -> dict[str, Any]:
    started = time.perf_counter()
    servers = load_benign()
    benign, benign_tools, fresh, older = score_benign(servers)
    hard = score_examples(load_examples(DATA / "hard_negatives"))
    hard_real, hard_real_alone = score_hard_benign()
    result: dict[str, Any] = {"servers": len(servers), "benign": benign, "benign_tools": benign_tools,
                              "fresh": fresh, "older": older, "fresh_servers": len(FRESH & {s.label for s in servers}),
                              "hard_negatives": hard, "hard_real": hard_real, "hard_real_alone": hard_real_alone}
    result["servers_tuning"], result["servers_heldout"] = score_servers(servers)
    result["fresh_tuning"], result["fresh_heldout"] = score_servers(load_benign(DATA / "benign_fresh"))
    result["bump_tuning"], result["bump_heldout"] = score_bumps(servers)
    result["fresh_bump_tuning"], result["fresh_bump_heldout"] = score_bumps(load_benign(DATA / "benign_fresh"))
    for batch in BATCHES:
        dumped = load_benign(DATA / f"benign_{batch}")
        result[f"{batch}_tuning"], result[f"{batch}_heldout"] = score_servers(dumped)
        result[f"{batch}_bump_tuning"], result[f"{batch}_bump_heldout"] = score_bumps(dumped)
    for kind in ("", "bump_"):
        parts = ("servers_heldout", "fresh_heldout", "fresh2_heldout", "fresh3_heldout") if not kind else (
            "bump_heldout", "fresh_bump_heldout", "fresh2_bump_heldout", "fresh3_bump_heldout")
        so_far = result[f"first_four_{kind}heldout"] = _together(*(result[part] for part in parts))
        # Each later basis adds one batch's held-out part: the last round's basis, then all parts.
        for basis, batch in HELD_OUT_BASES:
            so_far = result[f"{basis}_{kind}heldout"] = _together(so_far, result[f"{batch}_{kind}heldout"])
        # What is held out now: the parts the re-split kept (`per_server.RETIRED`), no tuning has read them.
        result[f"kept_{kind}heldout"] = _together(*(result[f"{batch}_{kind}heldout"] for batch in KEPT))
    for key, folder, _title, _tuned in POSITIVE_SETS:
        groups = score_examples(load_examples(DATA / folder), first=True)
        result[key], result[key + "_all"] = groups, _total(groups)
    result["seconds"] = time.perf_counter() - started
    return result


def _together(*tallies: ServerTally) -> ServerTally:
    """Several parts' server tallies as one."""
    total = ServerTally()
    for tally in tallies:
        total.n += tally.n
        total.blocked += tally.blocked
        for rule_id, count in tally.rules.items():
            total.rules[rule_id] = total.rules.get(rule_id, 0) + count
    return total


def _pct(summary: dict[str, Any], suffix: str = "") -> str:
    low, high = summary["ci95" + suffix]
    flagged, rate = summary["flagged" + suffix], summary["rate" + suffix]
    return f"{flagged:4d}/{summary['n']:<5d} {rate:7.2%}  [{low:6.2%}, {high:6.2%}]"


def _both(summary: dict[str, Any]) -> str:
    return f"{_pct(summary)}   {_pct(summary, '_without_neighbour')}"


def report(result: dict[str, Any], verbose: bool) -> str:
    lines = [
        f"benign corpus: {result['servers']} real servers, {result['benign'].n} definitions "
        f"({result['benign_tools'].n} tools)   ({result['seconds']:.1f}s)",
        "",
        "false positives (any poisoning rule fires)   flagged/n   rate   [Wilson 95%]   | declared alone",
        f"  all definitions        {_both(result['benign'].summary())}",
        f"  tools only             {_both(result['benign_tools'].summary())}",
        f"  servers dumped last     {_both(result['fresh'].summary())}   ({result['fresh_servers']} servers)",
        f"  the older servers       {_both(result['older'].summary())}",
        "per server: real servers a first `lock` blocks (a poisoning finding at high or above; wording only is",
        "shown, not blocking), each declared alone   blocked/n   rate   [Wilson 95%]",
        line("held-out half", result["servers_heldout"]),
        line("tuning half", result["servers_tuning"]),
        line("fresh held-out part", result["fresh_heldout"]),
        line("fresh tuning part", result["fresh_tuning"]),
        *(line(f"{batch} {part} part", result[f"{batch}_{key}"]) for batch in BATCHES
          for part, key in (("held-out", "heldout"), ("tuning", "tuning"))),
        *(line(title, result[f"{basis}_heldout"]) for basis, title in BASIS_TITLES.items()),
        HISTORY,
        line(KEPT_TITLE, result["kept_heldout"]),
        "per server: a dependency bump that brings all of a server's text (graded as a change), declared alone",
        line("held-out half", result["bump_heldout"]),
        line("tuning half", result["bump_tuning"]),
        line("fresh held-out part", result["fresh_bump_heldout"]),
        line("fresh tuning part", result["fresh_bump_tuning"]),
        *(line(f"{batch} {part} part", result[f"{batch}_bump_{key}"]) for batch in BATCHES
          for part, key in (("held-out", "heldout"), ("tuning", "tuning"))),
        *(line(title, result[f"{basis}_bump_heldout"]) for basis, title in BASIS_TITLES.items()),
        HISTORY,
        line(KEPT_TITLE, result["kept_bump_heldout"]),
        "hard real benign set (must stay clean)",
        f"  beside its own server   {_both(result['hard_real'].summary())}",
        f"  as a server of its own  {_both(result['hard_real_alone'].summary())}",
        "per rule on benign definitions (all rules, poisoning or not):",
    ]
    benign = result["benign"]
    for rule_id, count in sorted(benign.per_rule.items()):
        low, high = wilson(count, benign.n)
        tag = "" if is_poisoning(rule_id) else f"  ({category(rule_id)}, not a poisoning rule)"
        lines.append(f"  {rule_id}  {count:4d}/{benign.n}  {count / benign.n:7.2%}  [{low:6.2%}, {high:6.2%}]{tag}")
    for key, _folder, title, _tuned in POSITIVE_SETS:
        lines += ["", f"recall on {title}",
                  f"  {'class':26s} caught/n  recall  [Wilson 95%]         | declared alone (no neighbour server)"]
        for group, tally in result[key].items():
            lines.append(f"  {group:26s} {_both(tally.summary())}")
        lines.append(f"  {'all classes':26s} {_both(result[key + '_all'].summary())}")
        total = result[key + "_all"]
        low, high = wilson(total.blocked_alone, total.n)
        first = total.first_lock or 0
        first_low, first_high = wilson(first, total.n)
        lines.append(f"  at blocking severity, declared alone: {total.blocked_alone}/{total.n} "
                     f"{total.blocked_alone / total.n:.2%} [{low:.2%}, {high:.2%}] on a change (`check`); "
                     f"{first}/{total.n} {first / total.n:.2%} [{first_low:.2%}, {first_high:.2%}] as a server's "
                     "first `lock` (payload quoted only)")
        lines.append("  per rule: " + ", ".join(
            f"{rule_id} {count}" for rule_id, count in sorted(result[key + "_all"].per_rule.items())))
    lines += ["", "self-written hard negatives (benign, phrased like attacks)   flagged/n"]
    for group, tally in result["hard_negatives"].items():
        lines.append(f"  {group:26s} {_both(tally.summary())}")
    if verbose:
        lines += ["", "tuning-half servers a first `lock` blocks (the held-out half's are never listed):"]
        lines += [f"  BLOCKED {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:100]!r}" for d in found)
                  for label, found in result["servers_tuning"].labels]
        lines += ["", "benign definitions flagged:"]
        lines += [f"  FP {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:100]!r}" for d in found)
                  for label, found in benign.hits]
        for tally in (*result["hard_negatives"].values(), result["hard_real"], result["hard_real_alone"]):
            lines += [f"  HARD-NEG FP {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:100]!r}" for d in found)
                      for label, found in tally.hits]
        lines += ["", "positives missed (sets tuned on only):"]
        for key, _folder, _title, tuned in POSITIVE_SETS:
            for group, tally in result[key].items() if tuned else ():
                lines += [f"  MISS {key} {group} {label}" for label in tally.misses]
    return "\n".join(lines)


def as_json(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "servers": result["servers"],
        "benign": result["benign"].summary(),
        "benign_tools": result["benign_tools"].summary(),
        **{key: {group: tally.summary() for group, tally in result[key].items()} for key, *_ in POSITIVE_SETS},
        **{key + "_all": result[key + "_all"].summary() for key, *_ in POSITIVE_SETS},
        "hard_negatives": {group: tally.summary() for group, tally in result["hard_negatives"].items()},
        "fresh_servers": result["fresh"].summary(),
        "older_servers": result["older"].summary(),
        "hard_benign_real": result["hard_real"].summary(),
        "hard_benign_real_alone": result["hard_real_alone"].summary(),
        "categories": {rule_id: category(rule_id) for rule_id in sorted(result["benign"].per_rule)},
        "servers_first_lock_tuning": result["servers_tuning"].summary(),
        "servers_first_lock_heldout": result["servers_heldout"].summary(),
        "fresh_servers_first_lock_tuning": result["fresh_tuning"].summary(),
        "fresh_servers_first_lock_heldout": result["fresh_heldout"].summary(),
        **{f"servers_bump_{part}": result[f"bump_{part}"].summary() for part in ("tuning", "heldout")},
        **{f"fresh_servers_bump_{part}": result[f"fresh_bump_{part}"].summary() for part in ("tuning", "heldout")},
        **{f"{batch}_servers_{grade}_{part}": result[f"{batch}_{key}{part}"].summary() for batch in BATCHES
           for grade, key in (("first_lock", ""), ("bump", "bump_")) for part in ("tuning", "heldout")},
        **{f"{basis}_heldout_servers_{grade}": result[f"{basis}_{key}heldout"].summary()
           for basis in (*BASIS_TITLES, "kept") for grade, key in (("first_lock", ""), ("bump", "bump_"))},
    }


def tuning_report() -> str:
    """Only what tuning may see: the tuning servers (old and fresh; held-out ones are not even scored), the
    definitions flagged on them, and recall at blocking severity on the attack sets tuned on."""
    lines = ["per server, tuning servers only: blocked at first `lock`"]
    flagged = Tally()
    named = (("tuning half", "benign", False), ("fresh tuning part", "benign_fresh", False),
             *((f"{batch} tuning part", f"benign_{batch}", False) for batch in BATCHES))
    # The held-out parts the re-split retired (`per_server.RETIRED`) are tuning now; each is printed apart.
    retired = ((name.replace("tuning", "retired held-out"), folder, True) for name, folder, _ in named
               if folder in RETIRED)
    for name, folder, held in (*named, *retired):
        tally, bumps = ServerTally(), ServerTally()
        for server in load_benign(DATA / folder):
            if held_out(server.package) != held:
                continue
            tally.add(server.label, first_lock(server.definitions, server.package, server.instructions))
            bumps.add(server.label, bump(server.definitions, server.package, server.instructions))
            for kind, key, found, alone in each_added(server.definitions, server.package):
                flagged.add(f"{server.label} {kind}/{key}", found, alone)
        lines.append(line(name, tally))
        lines += [f"    BLOCKED {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:160]!r}" for d in found)
                  for label, found in tally.labels]
        lines.append(line(name + " (bump)", bumps))
        lines += [f"    BUMP BLOCKED {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:160]!r}" for d in found)
                  for label, found in bumps.labels]
    lines += ["definitions flagged on tuning servers (any poisoning rule, as new to their server):"]
    lines += [f"    FP {label}: " + "; ".join(f"{d.rule_id} {d.evidence[:120]!r}" for d in found)
              for label, found in flagged.hits]
    lines += ["recall at blocking severity, declared alone, attack sets tuned on: on a change / first `lock`"]
    for key, folder, _title, tuned in POSITIVE_SETS:
        if tuned:
            total = _total(score_examples(load_examples(DATA / folder), first=True))
            lines.append(f"  {key:22s} {total.blocked_alone:4d}/{total.n:<4d} {total.blocked_alone / total.n:7.2%}"
                         f"   first lock {total.first_lock:4d} {(total.first_lock or 0) / total.n:7.2%}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every false positive and every miss")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--tuning", action="store_true", help="score only what tuning may look at")
    opts = parser.parse_args()
    if opts.tuning:
        print(tuning_report())
        return
    result = evaluate()
    print(report(result, opts.verbose))
    if opts.json:
        opts.json.write_text(json.dumps(as_json(result), indent=1) + "\n")


if __name__ == "__main__":
    main()
