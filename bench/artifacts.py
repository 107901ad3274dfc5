"""What reading the artifact records costs a warm live check, per server (target: <= 20 ms).

Boots real servers through npx and uvx (already in the caches: run a `mcp-lock lock` of them once first, or
let the first run warm them) with mcp-lock's own boot, in the sandbox, and times the one call that reads the
records (scanner.artifacts.resolve.resolved_artifact: the process tree, npx's package-lock.json, uv's
dist-info and wheel cache entry) separately from the boot. Prints the median and the maximum of N runs.

    . .venv/bin/activate && python bench/artifacts.py --runs 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from scanner.run.boot import boot_one
from scanner.sources.declarations import ResolvedLaunch
from scanner.transports import local

BIN = str(Path(sys.executable).parent)
REFERENCE = "@modelcontextprotocol/server-"
LAUNCHES = {
    "npx server-filesystem": ResolvedLaunch("stdio", "npx", ("-y", f"{REFERENCE}filesystem@2026.8.31", ".")),
    "npx server-everything": ResolvedLaunch("stdio", "npx", ("-y", f"{REFERENCE}everything@2026.1.14")),
    "uvx mcp-server-time": ResolvedLaunch("stdio", f"{BIN}/uvx", ("mcp-server-time==2026.10.19",)),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    timings: list[float] = []
    original = local.resolved_artifact

    def timed(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args)
        finally:
            timings.append(time.perf_counter() - started)

    local.resolved_artifact = timed
    with tempfile.TemporaryDirectory() as repo:
        for name, launch in LAUNCHES.items():
            timings.clear()
            boots, artifact = [], None
            for _ in range(runs + 1):  # the first run warms the cache
                result = anyio.run(lambda key=name, launch=launch: boot_one(key, launch, Path(repo), timeout=240))
                boots.append(result.seconds)
                artifact = result.snapshot.artifact if result.snapshot else result.error
            read = [t * 1000 for t in timings[1:]]
            print(
                f"{name}: records read in median {statistics.median(read):.1f} ms, max {max(read):.1f} ms "
                f"(boot median {statistics.median(boots[1:]):.2f} s) -> {artifact}"
            )


if __name__ == "__main__":
    main()
