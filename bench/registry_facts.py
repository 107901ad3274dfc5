"""Where a first `lock`'s registry questions spend their time (issue 35: the 28 real servers' cold lock spent
about 3 minutes recording the provenance and uv licenses of 3,103 packages).

    PYTHONPATH=. python bench/registry_facts.py REPO OUT.json

Reads REPO's lock, forgets every recorded fact (as a first lock has none: no replaced pin), and records them again
with scanner.run.registry_facts, as `lock` does, timing each registry request (by kind: npm attestations, PyPI
simple page, PyPI JSON API, a PEP 740 provenance) and each provenance screen. Writes the trees it recorded to
OUT.json (sorted keys), so that two trees' facts can be compared byte for byte, and prints the profile with the
load average before and after. Run with the HOME the lock ran with (uv licenses are read from the store's
entries where the index states none).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import scanner.artifacts.attestations as attestations
import scanner.run.registry_facts as facts
from scanner.run.operations import read_lock
from scanner.run.workspace import open_workspace

TIMES: dict[str, list[float]] = defaultdict(list)
LOCK = threading.Lock()


def _kind(url: str) -> str:
    if "/-/npm/v1/attestations/" in url:
        return "npm attestations"
    if "/provenance" in url or "/integrity/" in url:
        return "PEP 740 provenance"
    if url.rstrip("/").endswith("/json"):
        return "PyPI JSON API"
    return "PyPI simple page"


def _timed(name: str, function: Any, where: str) -> Any:
    def wrapper(url: str, *args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return function(url, *args, **kwargs)
        finally:
            with LOCK:
                TIMES[f"{where}: {_kind(url)}"].append(time.monotonic() - start)
    return wrapper


def _timed_call(name: str, function: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return function(*args, **kwargs)
        finally:
            with LOCK:
                TIMES[name].append(time.monotonic() - start)
    return wrapper


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    workspace = open_workspace(args.repo.resolve(), None)
    lockfile = read_lock(workspace)
    pins = {key: copy.deepcopy(pin) for key, pin in lockfile.servers.items()}
    for pin in pins.values():
        for record in (pin.tree or {}).get("packages") or []:
            record.pop("provenance", None)
    if hasattr(facts, "fetch_json"):
        facts.fetch_json = _timed("fetch_json", facts.fetch_json, "pool")
    attestations.fetch = _timed("fetch", attestations.fetch, "screen")
    facts.screen = _timed_call("screen (verify and judge, requests included)", facts.screen)
    load = os.getloadavg()
    start, cpu = time.monotonic(), time.process_time()
    done = facts.record_registry_facts(workspace, pins, list(pins), {})
    wall, cpu = time.monotonic() - start, time.process_time() - cpu
    args.out.write_text(json.dumps({k: p.tree for k, p in sorted(pins.items())}, sort_keys=True, indent=1) + "\n",
                        encoding="utf-8")
    print(f"record_registry_facts: {wall:.1f} s wall, {cpu:.1f} s CPU (this process), "
          f"{len(done.findings)} finding(s), {len(done.messages)} message(s); "
          f"load {load[0]:.1f} -> {os.getloadavg()[0]:.1f}")
    for name, spent in sorted(TIMES.items()):
        spent.sort()
        print(f"  {name}: {len(spent)} x, {sum(spent):.1f} s summed, median {spent[len(spent) // 2]:.3f} s, "
              f"max {spent[-1]:.2f} s")
    for message in done.messages:
        print("  " + message[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
