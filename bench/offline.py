"""The pre-commit hook's cost: `mcp-lock check --offline` on 50 declared servers, and `mcp-lock --version` (issue 5).

    python bench/offline.py [--servers 50] [--runs 10]

Pins a repo of SERVERS copies of bench/scale_server.py once (`mcp-lock lock`, booting them), then times, each
run a fresh process: `mcp-lock check --offline` (what the hook in .pre-commit-hooks.yaml runs: the lock against
the declarations, booting nothing) and `mcp-lock --version`. Targets: 0.5 s and 0.2 s of wall time.
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


def seconds(args: list[str], expect: int = 0) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "scanner", *args], capture_output=True, text=True)
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
    commands = {"check --offline": ["check", "--offline", "--repo", str(repo)], "--version": ["--version"]}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            samples[name].append(seconds(command))
    print(f"nproc={os.cpu_count()}, python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, "
          f"{args.servers} servers, median of {args.runs}")
    for name, times in samples.items():
        median = statistics.median(times)
        verdict = "ok" if median <= TARGETS[name] else "OVER"
        print(f"mcp-lock {name:<16} {median:6.3f} s  (min {min(times):.3f}, max {max(times):.3f}; "
              f"target <= {TARGETS[name]} s: {verdict})")


if __name__ == "__main__":
    main()
