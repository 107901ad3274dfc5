"""mcp-lock against its two closest Python peers, on the same servers, in the same run (issue 5).

    python bench/peers.py [--runs 3] [--fixture-servers 10] [--skip-real]

Installs once, each in its own venv under bench/.cache/ (gitignored): `mcp-warden-cli==2.2.0` (command
`mcp-warden`) and `heldfast==0.2.3` (command `heldfast`). Two repos:

  real     the six published servers of bench/live_overhead.py (its install() and servers() are imported),
           launched by absolute path, so no npx/uvx download is timed;
  fixture  --fixture-servers copies of bench/scale_server.py, 50 tools each; they read bench/.cache/drift.json,
           which no launch argument names, so a drift changes what a server says and nothing else.

The equivalent work per tool:

  mcp-lock    `mcp-lock lock --repo R` / `mcp-lock check --repo R` (discovers .mcp.json, boots every server).
  heldfast    `heldfast approve --probe --yes --no-user-configs R` / `heldfast scan --probe --no-user-configs R`
              (discovers .mcp.json, launches every server; writes/reads R/.mcp-pin.lock).
  mcp-warden  has no repo discovery: `pin` and `check` take ONE server's argv and one lock file. The work is
              one `mcp-warden pin CMD... --lock R/warden/NAME.lock` per server, then one `check` per server,
              timed both one after another (a shell loop) and 8 at a time (mcp-lock's default concurrency).

Wall time is the median of --runs, each a fresh process, runs interleaved across tools so that load on a
shared machine hits all of them alike; ratios are peer / mcp-lock from the same run. Then, on the fixture
repo, one drift at a time (a sentence appended to one tool's description; a new required parameter in
another tool's schema): does each tool's check fail, and does its output name the tool?
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import live_overhead  # noqa: E402
import scale_server  # noqa: E402

CACHE = HERE / ".cache"
WORK = CACHE / "peers"
DRIFT = Path(scale_server.DEFAULT_DRIFT)
PEERS = {
    "warden": ("mcp-warden-cli", "2.2.0", "mcp-warden"),
    "heldfast": ("heldfast", "0.2.3", "heldfast"),
}
TOOLS_PER_SERVER = 50
CONCURRENCY = 8


def install_peers(only: tuple[str, ...] = tuple(PEERS)) -> dict[str, Path]:
    found = {}
    for key, (package, version, command) in PEERS.items():
        if key not in only:
            continue
        venv = CACHE / f"peer-{key}"
        executable = venv / "bin" / command
        if not executable.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{package}=={version}"], check=True)
        found[key] = executable
    return found


def installed_version(key: str) -> str:
    python = CACHE / f"peer-{key}" / "bin" / "python"
    package = PEERS[key][0]
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def write_repo(name: str, servers: dict[str, dict[str, object]]) -> Path:
    repo = WORK / name
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return repo


def fixture_servers(count: int) -> dict[str, dict[str, object]]:
    script = HERE / "scale_server.py"
    return {
        f"f{i:02d}": {"command": sys.executable, "args": ["-S", str(script), str(i), str(TOOLS_PER_SERVER)]}
        for i in range(count)
    }


# --- one run of one tool ----------------------------------------------------------------------------


class Run:
    def __init__(self, code: int, output: str, seconds: float) -> None:
        self.code, self.output, self.seconds = code, output, seconds


def run(command: list[str], cwd: Path | None = None, tree: Path = ROOT) -> Run:
    """`command`, with `tree`'s scanner/ first on PYTHONPATH (mcp-lock runs with -P: not the working directory's)."""
    env = os.environ | {"PYTHONPATH": str(tree), "NO_COLOR": "1", "COLUMNS": "200"}
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
    return Run(done.returncode, done.stdout + done.stderr, time.perf_counter() - started)


def many(commands: list[list[str]], parallel: int) -> Run:
    """Several commands, `parallel` at a time: the worst exit code, all output, total wall time."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        runs = list(pool.map(run, commands))
    code = max((r.code for r in runs), key=abs, default=0)
    return Run(code, "\n".join(r.output for r in runs), time.perf_counter() - started)


class Tool:
    name: str

    def lock(self, repo: Path) -> Run:
        raise NotImplementedError

    def check(self, repo: Path) -> Run:
        raise NotImplementedError


class McpLock(Tool):
    def __init__(self, tree: Path = ROOT, name: str = "mcp-lock") -> None:
        self.tree, self.name = tree, name

    def lock(self, repo: Path) -> Run:
        (repo / "mcp-lock.json").unlink(missing_ok=True)
        return run([sys.executable, "-P", "-m", "scanner", "lock", "--repo", str(repo), "--quiet"], tree=self.tree)

    def check(self, repo: Path) -> Run:
        return run([sys.executable, "-P", "-m", "scanner", "check", "--repo", str(repo), "--quiet"], tree=self.tree)


class Heldfast(Tool):
    name = "heldfast"

    def __init__(self, executable: Path) -> None:
        self.executable = str(executable)

    def lock(self, repo: Path) -> Run:
        (repo / ".mcp-pin.lock").unlink(missing_ok=True)
        return run([self.executable, "approve", "--probe", "--yes", "--no-user-configs", str(repo)], cwd=repo)

    def check(self, repo: Path) -> Run:
        return run([self.executable, "scan", "--probe", "--no-user-configs", "--no-color", str(repo)], cwd=repo)


class Warden(Tool):
    def __init__(self, executable: Path, parallel: int) -> None:
        self.executable, self.parallel = str(executable), parallel
        self.name = "mcp-warden" + (f" ({parallel} at a time)" if parallel > 1 else " (one by one)")

    def _servers(self, repo: Path) -> dict[str, dict[str, object]]:
        return json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]

    def _commands(self, repo: Path, verb: str) -> list[list[str]]:
        locks = repo / "warden"
        locks.mkdir(exist_ok=True)
        return [
            [self.executable, verb, "--lock", str(locks / f"{key}.lock"), "--", str(spec["command"]),
             *map(str, spec["args"])]  # type: ignore[call-overload]
            for key, spec in self._servers(repo).items()
        ]

    def lock(self, repo: Path) -> Run:
        shutil.rmtree(repo / "warden", ignore_errors=True)
        return many(self._commands(repo, "pin"), self.parallel)

    def check(self, repo: Path) -> Run:
        return many(self._commands(repo, "check"), self.parallel)


# --- measurements -----------------------------------------------------------------------------------


def timed(tools: list[Tool], repo: Path, runs: int) -> dict[str, dict[str, float]]:
    """Median lock and check wall time per tool; every run of every tool must succeed."""
    samples: dict[str, dict[str, list[float]]] = {t.name: {"lock": [], "check": []} for t in tools}
    for _ in range(runs):
        for tool in tools:
            for op, action in (("lock", tool.lock), ("check", tool.check)):
                result = action(repo)
                if result.code != 0:
                    raise SystemExit(f"{tool.name} {op} on {repo.name} exited {result.code}:\n{result.output[-3000:]}")
                samples[tool.name][op].append(result.seconds)
    return {name: {op: statistics.median(v) for op, v in ops.items()} for name, ops in samples.items()}


def _cpu_of(action: Callable[[], Run]) -> tuple[Run, float]:
    """The run and the CPU seconds (user + system) of the child processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = action()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pin_rounds(ours: McpLock, peer: Heldfast, repo: Path, rounds: int, baseline: McpLock | None = None) -> None:
    """Issue 39 item 2: interleaved rounds of pinning the fixture (`mcp-lock lock` against `heldfast approve`, the
    order alternating), the per-round wall ratio ours / peer and its median (target < 0.9); and the CPU of
    `mcp-lock check --offline` of the same lock (every pin read, verified and judged, nothing booted) against
    the CPU of heldfast's pin (target: less). `baseline`: another tree's `mcp-lock lock` in the same rounds (the
    order rotating through all three), and its ratios too, so that a change is measured against the same load."""
    DRIFT.write_text("{}", encoding="utf-8")
    # As installed, mcp-lock has its bytecode (pip compiles it, as it did heldfast's): without it, under
    # PYTHONDONTWRITEBYTECODE every run would compile ~150 modules (16 % of a 10-server lock here).
    for tree in {ours.tree, *([baseline.tree] if baseline else [])}:
        compileall.compile_dir(tree / "scanner", quiet=1)
    tools: list[tuple[str, Callable[[Path], Run]]] = [("ours", ours.lock), ("peer", peer.lock)]
    if baseline is not None:
        tools.append(("base", baseline.lock))
    walls: dict[str, list[float]] = {who: [] for who, _ in tools}
    cpus: dict[str, list[float]] = {who: [] for who, _ in tools}
    offline_cpu: list[float] = []
    based = f"{'base lock':>11}{'ratio':>7}{'CPU base':>10}" if baseline else ""
    print(f"\n{'round':<7}{'mcp-lock lock':>15}{'heldfast approve':>18}{'ratio':>7}{'CPU ours':>10}{'CPU peer':>10}"
          f"{'ratio':>7}{based}{'check --offline CPU':>21}{'load':>7}")
    for number in range(rounds):
        shift = number % len(tools)
        order = tools[shift:] + tools[:shift]
        order = order if number % 2 == 0 else order[::-1]
        for who, action in order:
            result, cpu = _cpu_of(lambda action=action: action(repo))
            if result.code != 0:
                raise SystemExit(f"{who} pin exited {result.code}:\n{result.output[-3000:]}")
            walls[who].append(result.seconds)
            cpus[who].append(cpu)
        if baseline is not None and order.index(("base", baseline.lock)) > order.index(("ours", ours.lock)):
            ours.lock(repo)  # the lock `check --offline` reads is this tree's
        offline, cpu = _cpu_of(lambda: run([sys.executable, "-P", "-m", "scanner", "check", "--offline", "--repo",
                                            str(repo), "--quiet"], tree=ours.tree))
        if offline.code != 0:
            raise SystemExit(f"check --offline exited {offline.code}:\n{offline.output[-3000:]}")
        offline_cpu.append(cpu)
        row = f"{walls['base'][-1]:>11.3f}{walls['ours'][-1] / walls['base'][-1]:>7.2f}{cpus['base'][-1]:>10.3f}" \
            if baseline else ""
        print(f"{number + 1:<7}{walls['ours'][-1]:>15.3f}{walls['peer'][-1]:>18.3f}"
              f"{walls['ours'][-1] / walls['peer'][-1]:>7.2f}{cpus['ours'][-1]:>10.3f}{cpus['peer'][-1]:>10.3f}"
              f"{cpus['ours'][-1] / cpus['peer'][-1]:>7.2f}{row}{cpu:>21.3f}{os.getloadavg()[0]:>7.2f}")

    def ratio(values: dict[str, list[float]], top: str, bottom: str) -> float:
        return statistics.median(a / b for a, b in zip(values[top], values[bottom], strict=True))

    print(f"pin: median per-round wall ratio mcp-lock / heldfast {ratio(walls, 'ours', 'peer'):.2f} (target < 0.9), "
          f"CPU {ratio(cpus, 'ours', 'peer'):.2f}; check --offline CPU {statistics.median(offline_cpu):.3f} s "
          f"against heldfast's pin {statistics.median(cpus['peer']):.3f} s (target: less)")
    if baseline is not None:
        print(f"baseline tree: its wall ratio to heldfast {ratio(walls, 'base', 'peer'):.2f}, CPU "
              f"{ratio(cpus, 'base', 'peer'):.2f}; this tree / baseline: wall {ratio(walls, 'ours', 'base'):.2f}, "
              f"CPU {ratio(cpus, 'ours', 'base'):.2f}; medians wall {statistics.median(walls['ours']):.3f} / "
              f"{statistics.median(walls['base']):.3f} / heldfast {statistics.median(walls['peer']):.3f} s")


def drift_trial(tools: list[Tool], repo: Path) -> list[tuple[str, str, str, int, bool, str]]:
    """Lock clean, then one drift at a time: exit code of each check and whether it names the tool."""
    DRIFT.write_text("{}", encoding="utf-8")
    for tool in tools:
        assert tool.lock(repo).code == 0, tool.name
        assert tool.check(repo).code == 0, tool.name
    rows = []
    changes = (("description", 1, 7), ("required", 2, 11))
    try:
        for change, index, number in changes:
            name = scale_server.tool(index, number)["name"]
            DRIFT.write_text(json.dumps({f"{index}/{name}": change}), encoding="utf-8")
            for tool in tools:
                result = tool.check(repo)
                line = next((ln.strip() for ln in result.output.splitlines() if name in ln), "")
                rows.append((tool.name, change, name, result.code, name in result.output, line[:150]))
    finally:
        DRIFT.write_text("{}", encoding="utf-8")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fixture-servers", type=int, default=10)
    parser.add_argument("--skip-real", action="store_true", help="only the fixture repo")
    parser.add_argument("--pin-rounds", type=int, default=0,
                        help="only: N interleaved rounds of pinning the fixture, mcp-lock against heldfast (issue 39)")
    parser.add_argument("--baseline-tree", type=Path,
                        help="with --pin-rounds: also pin with this tree's scanner/ (e.g. `git archive BASE scanner | "
                             "tar -x -C DIR`), in the same rounds")
    args = parser.parse_args()
    if args.pin_rounds:
        heldfast = Heldfast(install_peers(("heldfast",))["heldfast"])
        load = os.getloadavg()
        print(f"nproc={os.cpu_count()}, load average {load[0]:.2f} {load[1]:.2f}, heldfast "
              f"{installed_version('heldfast')}, fixture {args.fixture_servers} x {TOOLS_PER_SERVER} tools")
        baseline = McpLock(args.baseline_tree.resolve(), "baseline") if args.baseline_tree else None
        pin_rounds(McpLock(), heldfast, write_repo("fixture", fixture_servers(args.fixture_servers)), args.pin_rounds,
                   baseline)
        return
    executables = install_peers()
    versions = {key: installed_version(key) for key in PEERS}
    repos = {"fixture": write_repo("fixture", fixture_servers(args.fixture_servers))}
    if not args.skip_real:
        live_overhead.install()
        real = WORK / "real"
        repos["real"] = write_repo("real", live_overhead.servers(real))
    tools: list[Tool] = [
        McpLock(),
        Heldfast(executables["heldfast"]),
        Warden(executables["warden"], 1),
        Warden(executables["warden"], CONCURRENCY),
    ]
    load = os.getloadavg()
    print(f"nproc={os.cpu_count()}, python {sys.version.split()[0]}, load average {load[0]:.2f}; "
          f"mcp-warden-cli {versions['warden']}, heldfast {versions['heldfast']}; median of {args.runs}")

    DRIFT.write_text("{}", encoding="utf-8")
    for label, repo in repos.items():
        servers = len(json.loads((repo / ".mcp.json").read_text())["mcpServers"])
        medians = timed(tools, repo, args.runs)
        base = medians["mcp-lock"]
        print(f"\n{label} repo: {servers} servers; wall seconds, median of {args.runs}, and ratio to mcp-lock")
        print(f"{'tool':<28}{'lock/pin':>10}{'ratio':>8}{'check':>10}{'ratio':>8}")
        for name, ops in medians.items():
            print(f"{name:<28}{ops['lock']:>10.2f}{ops['lock'] / base['lock']:>8.2f}"
                  f"{ops['check']:>10.2f}{ops['check'] / base['check']:>8.2f}")

    print("\ndrift trial (fixture repo): one change at a time; exit code of check, tool named in output?")
    print(f"{'tool':<28}{'change':<13}{'exit':>5}  named  first line naming it")
    for name, change, _tool_name, code, named, line in drift_trial(tools, repos["fixture"]):
        print(f"{name:<28}{change:<13}{code:>5}  {'yes' if named else 'no':<5}  {line}")


if __name__ == "__main__":
    main()
