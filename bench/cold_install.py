"""The package managers' own cold install of the trees a lockfile records, to set beside a cold `mcp-lock check`
(issue 35 item 7: a cold check is no slower than the bare installs of the same trees).

    PYTHONPATH=. python bench/cold_install.py REPO/mcp-lock.json WORKDIR [--concurrency 8]

For every server whose launch records a tree: npm's `npm ci --ignore-scripts` of the package.json and
package-lock.json the record writes (scanner.install.npm_record.npm_files, the files `check` installs from),
or `uv venv` and `uv pip install --require-hashes --no-deps` of its requirements
(scanner.install.uv_record.requirements_text), `--concurrency` at a time as `check` boots. Run it with a fresh
`HOME` (empty npm and uv caches) for a cold figure. Prints each tree's wall time and exit code, then the total
wall time, the CPU of the managers (user + sys, as the kernel accounts reaped children) and the load average
before and after. Nothing is booted and no install script runs.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from scanner.install.npm_record import npm_files, registries_of
from scanner.install.uv_record import requirements_text


def _commands(launch: dict[str, Any], folder: Path) -> list[list[str]]:
    tree = launch["tree"]
    folder.mkdir(parents=True)
    if tree["manager"] == "npm":
        config = json.loads(subprocess.run(["npm", "config", "list", "--json"], capture_output=True,
                                           text=True, check=True).stdout)
        manifest, lock = npm_files(tree, [launch["artifact"]["name"]], registries_of(config))
        (folder / "package.json").write_text(manifest, encoding="utf-8")
        (folder / "package-lock.json").write_text(lock, encoding="utf-8")
        return [["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"]]
    (folder / "requirements.txt").write_text(requirements_text(tree), encoding="utf-8")
    return [["uv", "venv", "-q", ".venv"],
            ["uv", "pip", "install", "-q", "--require-hashes", "--no-deps", "-p", ".venv", "-r", "requirements.txt"]]


def _install(server: str, commands: list[list[str]], folder: Path) -> tuple[str, float, int]:
    started, code = time.perf_counter(), 0
    for argv in commands:
        code = subprocess.run(argv, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True).returncode
        if code:
            break
    return server, time.perf_counter() - started, code


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("lockfile", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    servers = json.loads(args.lockfile.read_text(encoding="utf-8"))["servers"]
    jobs = [(name, s["launch"]) for name, s in sorted(servers.items()) if "tree" in s.get("launch", {})]
    plans = [(name, _commands(launch, args.workdir / name)) for name, launch in jobs]
    print("load before:", Path("/proc/loadavg").read_text().strip())
    started = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        results = list(pool.map(lambda plan: _install(plan[0], plan[1], args.workdir / plan[0]), plans))
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    for server, seconds, code in sorted(results, key=lambda r: -r[1]):
        print(f"{server:24s} {seconds:7.1f} s  exit {code}")
    print(f"{len(results)} trees: wall {wall:.1f} s, CPU {usage.ru_utime + usage.ru_stime:.1f} s "
          f"({usage.ru_utime:.1f} user + {usage.ru_stime:.1f} sys)")
    print("load after:", Path("/proc/loadavg").read_text().strip())
    return 1 if any(code for _s, _t, code in results) else 0


if __name__ == "__main__":
    sys.exit(main())
