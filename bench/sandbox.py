"""What the bubblewrap sandbox adds to one stdio server's boot.

    python bench/sandbox.py [--runs 20]

Boots the raw fixture server (tests/fixtures/servers/raw_server.py, one tool) with `boot_one`, in this
process, alternately with `sandbox: on` and `sandbox: off`, so both see the same load. Reports the
one-off probe of bwrap (once per process), then min / median / max of the boot times and of the
added time per pair (on minus off), in milliseconds; and, less noisy, the same for starting and ending
`/bin/true` directly and through the sandbox's command line (the sandbox's own cost, no server in it).
With --network-deny both runs use `network: deny` (off: util-linux unshare; on: bwrap's own network
namespace).

    python bench/sandbox.py --launcher npx|uvx [--runs 10] [--network-deny]

boots a real server through a launcher mcp-lock installs itself instead (`npx -y
@modelcontextprotocol/server-filesystem@2025.7.1`, `uvx --with 'mcp<2' mcp-server-time==2025.9.25`): each boot
resolves the tree and finds it in mcp-lock's store (scanner/install; the warm-up boot fills the store), then
runs the server from the store entry, bound read-only in the sandbox, so "added per boot" is the sandbox's
cost for a warm launch. "added per start" then starts `/bin/true` through the same command line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scanner.run.boot import boot_one  # noqa: E402
from scanner.sources.declarations import ResolvedLaunch  # noqa: E402
from scanner.transports import sandbox  # noqa: E402

RAW_SERVER = ROOT / "tests" / "fixtures" / "servers" / "raw_server.py"
TOOL = {"name": "a", "description": "Tool a.", "inputSchema": {"type": "object"}}
LAUNCHERS = {
    "npx": ("npx", ("-y", "@modelcontextprotocol/server-filesystem@2025.7.1", ".")),
    "uvx": ("uvx", ("--with", "mcp<2", "mcp-server-time==2025.9.25")),
}


def boot_seconds(launch: ResolvedLaunch, repo: Path, mode: str, network: str, timeout: float = 120) -> float:
    started = time.perf_counter()
    result = anyio.run(lambda: boot_one("bench", launch, repo, timeout=timeout, sandbox=mode, network=network))
    if result.error is not None:
        raise SystemExit(f"boot with sandbox: {mode} failed: {result.error}")
    return time.perf_counter() - started


def true_seconds(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True)
    return time.perf_counter() - started


def summary(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{label:<22} min {min(ms):7.1f}  median {statistics.median(ms):7.1f}  max {max(ms):7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--network-deny", action="store_true")
    parser.add_argument("--launcher", choices=sorted(LAUNCHERS))
    args = parser.parse_args()
    network = "deny" if args.network_deny else "allow"
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="mcp-lock-bench-") as temp:
        repo = Path(temp)
        behaviour = repo / "b.json"
        behaviour.write_text(json.dumps({"pages": [[TOOL]]}))
        launch = ResolvedLaunch(transport="stdio", command=sys.executable, args=(str(RAW_SERVER), str(behaviour)))
        if args.launcher:
            command, launcher_args = LAUNCHERS[args.launcher]
            launch = ResolvedLaunch(transport="stdio", command=command, args=launcher_args)
        started = time.perf_counter()
        sandbox.require_bwrap()
        print(f"probe of bwrap (once per process): {(time.perf_counter() - started) * 1000:.1f} ms")
        boot_seconds(launch, repo, "off", network, timeout=600)  # warm the store and the interpreter's caches
        on: list[float] = []
        off: list[float] = []
        for _ in range(args.runs):
            off.append(boot_seconds(launch, repo, "off", network))
            on.append(boot_seconds(launch, repo, "on", network))
        env = {"PATH": os.environ.get("PATH", os.defpath)}
        started = time.perf_counter()
        true = ["/bin/true"]
        wrapped, wrapped_env = sandbox.sandboxed(true, env=env, cwd=temp, network=network, readable=[temp])
        print(f"building the command line: {(time.perf_counter() - started) * 1000:.1f} ms")
        bare: list[float] = []
        boxed: list[float] = []
        for _ in range(args.runs):
            bare.append(true_seconds(true, env))
            boxed.append(true_seconds(wrapped, wrapped_env))
    print(f"{args.runs} boots each, interleaved, network: {network}; nproc={os.cpu_count()}, load average "
          f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end (sandbox: off is the floor)")
    print(summary("sandbox: off", off))
    print(summary("sandbox: on", on))
    print(summary("added per boot", [a - b for a, b in zip(on, off, strict=True)]))
    print(summary(f"{true[0]} direct", bare))
    print(summary(f"{true[0]} sandboxed", boxed))
    print(summary("added per start", [a - b for a, b in zip(boxed, bare, strict=True)]))


if __name__ == "__main__":
    main()
