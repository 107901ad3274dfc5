"""The pre-commit hook's cost: `mcp-lock check --offline` on 50 declared servers, and `mcp-lock --version` (issue 5).

    python bench/offline.py [--servers 50] [--runs 10]

Pins a repo of SERVERS copies of bench/scale_server.py once (`mcp-lock lock`, booting them), then times, each
run a fresh process: `mcp-lock check --offline` (what the hook in .pre-commit-hooks.yaml runs: the lock against
the declarations, booting nothing) and `mcp-lock --version`. Targets: 0.5 s and 0.2 s of wall time. Beside
them, interleaved, the floor: the same interpreter starting and doing nothing (`python -c pass`), which no
Python command can beat; the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from scale import make_repo  # noqa: E402

TARGETS = {"check --offline": 0.5, "--version": 0.2}


FLOOR = "python -c pass (floor)"


def seconds(args: list[str], expect: int = 0) -> float:
    started = time.perf_counter()
    command = [sys.executable, "-c", "pass"] if args == [FLOOR] else [sys.executable, "-m", "scanner", *args]
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != expect:
        raise SystemExit(f"mcp-lock {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    repo = make_repo(args.servers, 10)
    seconds(["lock", "--repo", str(repo), "--quiet"])
    commands = {"check --offline": ["check", "--offline", "--repo", str(repo)], "--version": ["--version"],
                FLOOR: [FLOOR]}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, command in commands.items():
            samples[name].append(seconds(command))
    print(f"nproc={os.cpu_count()}, python {sys.version.split()[0]}, load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end, {args.servers} servers, median of {args.runs} interleaved")
    floor = statistics.median(samples[FLOOR])
    for name, times in samples.items():
        median = statistics.median(times)
        shown = name if name == FLOOR else f"mcp-lock {name}"
        line = f"{shown:<25} {median:6.3f} s  (min {min(times):.3f}, max {max(times):.3f}"
        if name in TARGETS:
            verdict = "ok" if median <= TARGETS[name] else "OVER"
            line += f"; {median / floor:.1f}x the floor; target <= {TARGETS[name]} s: {verdict}"
        print(line + ")")


if __name__ == "__main__":
    main()
