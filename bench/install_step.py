"""What the gated network and hidden home add to one package-manager step (issue 35 item 4).

    PYTHONPATH=. python bench/install_step.py [--runs 15] [--npm-config]

Runs `uv --version` (a step that starts and ends at once, so the figure is the sandbox's own cost) through
scanner.install.runner.run_manager three ways, interleaved so that all see the same load: unsandboxed, in the
sandbox as it was before (host network, home readable: `sandboxed(..., network=allow)`), and in today's step
room (own network namespace, the relay, the gate, the home tmpfs). Prints the median and spread of the wall
time of each, and the load average before and after. `--npm-config` times `npm config list --json` instead (the
step each npm install needed before issue 35 made it once a run per npm environment, scanner.install.npm_config).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import anyio

from scanner.install.install import CONFIG_COMMAND
from scanner.install.npm_launch import npm_environment
from scanner.install.runner import ROOM, Step, run_manager
from scanner.install.sandboxed import Room
from scanner.run.installing import package_room
from scanner.transports.isolation import ALLOW
from scanner.transports.sandbox import sandboxed


def _host_network(argv, env, cwd, writable, readable, scope):  # the sandbox before the gate
    return sandboxed(argv, env=env, cwd=cwd, network=ALLOW, readable=[*writable, *readable], writable=writable)


def _time(room: Room, command: list[str], env: dict[str, str], folder: str) -> float:
    async def one() -> float:
        token = ROOM.set(room)
        try:
            started = time.perf_counter()
            await run_manager(command, env, folder, Step().name)
            return time.perf_counter() - started
        finally:
            ROOM.reset(token)

    return anyio.run(one)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--npm-config", action="store_true", help="time `npm config list --json`, not `uv --version`")
    args = parser.parse_args()
    runs = args.runs
    if args.npm_config:
        command, env = CONFIG_COMMAND, npm_environment(os.environ, {})
    else:
        uv = shutil.which("uv")
        if uv is None:
            sys.exit("uv is not on PATH")
        command, env = [uv, "--version"], {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]}
    rooms = {"direct": Room(None), "sandbox, host network": Room(_host_network),
             "sandbox, gated network": package_room("on", frozenset())}
    times: dict[str, list[float]] = {name: [] for name in rooms}
    print("load before:", os.getloadavg())
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            for name, room in rooms.items():
                times[name].append(_time(room, command, env, folder))
    print("load after:", os.getloadavg())
    for name, values in times.items():
        values.sort()
        print(f"{name:24} median {statistics.median(values) * 1000:6.1f} ms  "
              f"(min {values[0] * 1000:.1f}, max {values[-1] * 1000:.1f}, n={len(values)})")


if __name__ == "__main__":
    main()
