"""Per-server precision on real releases: each server's previous release pinned, then checked against the one dumped.

    python bench/detectors/version_bump.py --dump 60 [--jobs 2] [--timeout 150]   # boots the previous releases
    python bench/detectors/version_bump.py [--json OUT.json]                      # scores the pairs dumped

`edit_bump.py` edits every description by hand; this reads what servers really changed between two releases. From
the corpus servers (`servers.SERVERS`, dumped in `data/benign/`) a seeded draw (`random.Random(38).sample` of the
name-sorted list) takes `--dump` servers; each one's release just before the dumped one (npm: the version before it
in `npm view PKG versions`; PyPI: the next lower in `pip index versions PKG`) is booted and dumped as `lock` pins it,
into `data/bump_pairs/` (`dump_benign.dump`, the same sandbox and arguments). Scoring pins the previous release and
checks the dumped one against it, declared alone, graded as `check` grades a change (`adapter.detections`); a server
counts as blocked when a poisoning finding fails the run. Beside it, the same servers' all-text bump (`adapter.bump`)
and their first lock. Held-out and tuning servers (`per_server.kept_held_out`) are counted apart; nothing is tuned on
it. Every pair is of `data/benign`, whose held-out half the re-split of 2026-12-07 retired to tuning (`per_server.
RETIRED`): all count as tuning now.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter import bump, detections, first_lock, server_pin
from corpus import DATA, BenignServer, load_benign
from per_server import ServerTally, kept_held_out, line
from servers import SERVERS, Server

PAIRS = DATA / "bump_pairs"
SEED = 38


def previous_release(ecosystem: str, package: str, version: str) -> str | None:
    """The release published before `version` (by the registry's own order), or None."""
    if ecosystem == "npm":
        done = subprocess.run(["npm", "view", package, "versions", "--json"], capture_output=True, text=True,
                              timeout=120)
        versions = json.loads(done.stdout or "[]") if done.returncode == 0 else []
        versions = [versions] if isinstance(versions, str) else versions
        stable = [v for v in versions if "-" not in v or "-" in version]
        return stable[stable.index(version) - 1] if version in stable and stable.index(version) > 0 else None
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package], capture_output=True, text=True,
                          timeout=120)
    found = re.search(r"Available versions: (.+)", done.stdout)
    versions = [v.strip() for v in found[1].split(",")] if found else []  # newest first
    return versions[versions.index(version) + 1] if version in versions[:-1] else None


def drawn(count: int) -> list[Server]:
    dumped = {(s.package, s.version) for s in load_benign(DATA / "benign")}
    servers = sorted((s for s in SERVERS if (s[1], s[2]) in dumped), key=lambda s: s[1])
    return random.Random(SEED).sample(servers, min(count, len(servers)))


def dump_pairs(count: int, jobs: int, timeout: int) -> None:
    import dump_benign

    dump_benign.boot_timeout = timeout
    PAIRS.mkdir(exist_ok=True)
    older: list[Server] = []
    for ecosystem, package, version, arguments, env in drawn(count):
        before = previous_release(ecosystem, package, version)
        print(f"{package}: {version} <- {before}", file=sys.stderr, flush=True)
        if before is not None:
            older.append((ecosystem, package, before, arguments, env))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda s: dump_benign.dump(s, PAIRS), older))
    failures = {f"{s[1]}@{s[2]}": why for s, why in results if why}
    (PAIRS / "failures.json").write_text(json.dumps(failures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    dump_benign.write_sources(failures, PAIRS, older)


def pairs() -> list[tuple[BenignServer, BenignServer]]:
    now = {s.package: s for s in load_benign(DATA / "benign")}
    return [(old, now[old.package]) for old in load_benign(PAIRS) if old.package in now]


def score() -> dict[str, Any]:
    tallies = {name: (ServerTally(), ServerTally()) for name in ("release", "all_text_bump", "first_lock")}
    changed = [0, 0]
    for old, new in pairs():
        part = 1 if kept_held_out("benign", new.package) else 0  # `data/benign` is tuning since the re-split
        pinned = server_pin(old.definitions, old.instructions, package=old.package)
        live = server_pin(new.definitions, new.instructions, package=new.package)
        changed[part] += pinned.digest != live.digest or old.definitions != new.definitions
        tallies["release"][part].add(new.label, detections(pinned, live, neighbour=False))
        tallies["all_text_bump"][part].add(new.label, bump(new.definitions, new.package, new.instructions))
        tallies["first_lock"][part].add(new.label, first_lock(new.definitions, new.package, new.instructions))
    print("per server: the previous release pinned, the dumped release checked against it (a change)")
    for name, (tuning, held) in tallies.items():
        print(line(f"{name} held out", held))
        print(line(f"{name} tuning", tuning))
    print(f"  releases whose definitions changed: held out {changed[1]}, tuning {changed[0]}")
    return {name: {"tuning": t.summary(), "heldout": h.summary()} for name, (t, h) in tallies.items()} | {
        "changed": {"tuning": changed[0], "heldout": changed[1]}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", type=int, help="boot and dump the previous release of this many drawn servers")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=150)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.dump:
        dump_pairs(args.dump, args.jobs, args.timeout)
        return
    result = score()
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
