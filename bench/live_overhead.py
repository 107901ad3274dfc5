"""How much does `mcp-lock check` cost over a bare SDK client booting the same real servers?

    python bench/live_overhead.py [--runs 5] [--local]

Installs six published servers once into bench/.cache/ (npm + one venv per PyPI server), writes a
repo declaring them by absolute path (no npx/uvx download inside any timing), runs `mcp-lock lock`
once, then measures in the same run (median of --runs wall times, each a fresh process):

  check        `mcp-lock check --repo R`
  single[s]    a bare client (stdio_client + initialize + list_tools) booting server s alone
  raw[s]       the raw client floor: a minimal JSON-RPC client (no SDK: spawn, initialize, tools/list, exit)
  concurrent   the same bare client booting all six at once
  --version    `mcp-lock --version`

Every run is one round of all of these in turn (so load drifts hit all alike); medians over the rounds, the load
average of each round beside them. CPU seconds too: mcp-lock's own (its process alone, RUSAGE_SELF, and how much
of it before its first child process), and each raw boot's (the client and its server, RUSAGE_CHILDREN). On nproc
cores the servers cannot all be booted faster than their CPU / nproc, whatever the client: the bound printed
beside the target is the larger of the raw slowest single and the raw singles' CPU summed over nproc.

--local boots four of the project's own fixture servers instead (tests/fixtures/servers: three SDK spec
servers and one raw server), so nothing is downloaded; .ci/run uses it.

With --baseline-tree DIR (a copy of another version's `scanner/`, e.g. `git archive HEAD scanner | tar -x -C DIR`),
`check` from DIR is timed too, its runs alternating with the current tree's, so both see the same load.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
NPM = {
    "everything": ("@modelcontextprotocol/server-everything", "2026.1.14", ["stdio"]),
    "filesystem": ("@modelcontextprotocol/server-filesystem", "2026.8.31", ["{repo}"]),
    "memory": ("@modelcontextprotocol/server-memory", "2026.8.31", []),
    "sequential-thinking": ("@modelcontextprotocol/server-sequential-thinking", "2026.8.31", []),
}
PYPI = {
    "time": ("mcp-server-time", "2026.10.19"),
    "fetch": ("mcp-server-fetch", "2026.10.24"),  # depends on mcp>=2 at this version
}
# -P: not the working directory first on sys.path, so `scanner` is PYTHONPATH's tree (a baseline tree's when timing
# one), never the checkout the script is run from.
MCP_LOCK = [sys.executable, "-P", "-m", "scanner"]
# `mcp-lock` as `python -m scanner` runs it, printing on stderr, last, its own CPU seconds (RUSAGE_SELF: the
# servers are not in it) in all and when it started its first child process (the sandbox probe or a server).
OWN_CPU = r"""
import atexit, resource, subprocess, sys, time
first = []
spawn = subprocess.Popen._execute_child
def noted(self, *args, **kwargs):
    first or first.append(time.process_time())
    return spawn(self, *args, **kwargs)
subprocess.Popen._execute_child = noted
def own():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"own-cpu {usage.ru_utime + usage.ru_stime:.4f} {(first or [0.0])[0]:.4f}", file=sys.stderr)
atexit.register(own)
sys.argv[0] = "mcp-lock"
from scanner.cli.main import main
main()
"""

BARE_CLIENT = r"""
import json, sys, anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def one(spec):
    params = StdioServerParameters(command=spec["command"], args=spec["args"])
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await s.list_tools()

async def main(specs):
    async with anyio.create_task_group() as g:
        for spec in specs:
            g.start_soon(one, spec)

anyio.run(main, json.loads(sys.argv[1]))
"""


# The floor: what any client must do to list a server's tools, in plain Python without the SDK (its import alone
# is 0.4 s): start the process, write initialize, read its answer, write initialized and tools/list, read, end.
RAW_CLIENT = r"""
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

def call(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode()); proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its stdout")
        answer = json.loads(line)
        if answer.get("id") == message["id"]:
            return answer

def one(spec):
    proc = subprocess.Popen([spec["command"], *spec["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=spec.get("cwd"))
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    call(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    call(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = call(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert "result" in listed, listed
    proc.kill(); proc.wait()

specs = json.loads(sys.argv[1])
with ThreadPoolExecutor(len(specs)) as pool:
    list(pool.map(one, specs))
"""
FIXTURES = HERE.parent / "tests" / "fixtures" / "servers"


def local_servers(repo: Path) -> dict[str, dict[str, object]]:
    """Four of the project's fixture servers: three SDK spec servers and one raw JSON-RPC server."""
    tool = {"name": "add_note", "description": "Add a note.", "inputSchema": {"type": "object"}}
    found: dict[str, dict[str, object]] = {}
    for index in range(3):
        spec = repo / f"spec{index}.json"
        spec.write_text(json.dumps({"name": f"notes{index}", "tools": [tool]}), encoding="utf-8")
        found[f"sdk{index}"] = {"command": sys.executable, "args": [str(FIXTURES / "spec_server.py"), str(spec)]}
    behaviour = repo / "raw.json"
    behaviour.write_text(json.dumps({"pages": [[tool]]}), encoding="utf-8")
    found["raw"] = {"command": sys.executable, "args": [str(FIXTURES / "raw_server.py"), str(behaviour)]}
    return found


def install() -> None:
    CACHE.mkdir(exist_ok=True)
    modules = CACHE / "npm" / "node_modules"
    wanted = [f"{name}@{version}" for name, version, _ in NPM.values()]
    if not all((modules / name / "package.json").exists() for name, _, _ in NPM.values()):
        npm = ["npm", "install", "--prefix", str(CACHE / "npm"), "--no-audit", "--no-fund"]
        subprocess.run([*npm, *wanted], check=True)
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    for key, (name, version) in PYPI.items():
        venv = CACHE / f"py-{key}"
        if not (venv / "bin" / name).exists():
            subprocess.run([uv, "venv", "-q", str(venv)], check=True)
            subprocess.run([uv, "pip", "install", "-q", "-p", str(venv / "bin" / "python"), f"{name}=={version}"],
                           check=True)


def servers(repo: Path) -> dict[str, dict[str, object]]:
    node = shutil.which("node")
    assert node, "node is needed"
    found: dict[str, dict[str, object]] = {}
    for key, (name, _, args) in NPM.items():
        entry = CACHE / "npm" / "node_modules" / name / "dist" / "index.js"
        found[key] = {"command": node, "args": [str(entry), *(a.format(repo=repo) for a in args)]}
    for key, (name, _) in PYPI.items():
        found[key] = {"command": str(CACHE / f"py-{key}" / "bin" / name), "args": []}
    return found


def once(command: list[str], **kwargs: object) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the command and every child it waited for (RUSAGE_CHILDREN), its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu, done.stderr


def own_cpu(stderr: str) -> tuple[float, float]:
    """mcp-lock's own CPU seconds in all and before its first child process, from OWN_CPU's last line."""
    fields = stderr.strip().splitlines()[-1].split()
    assert fields[0] == "own-cpu", stderr[-500:]
    return float(fields[1]), float(fields[2])


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-tree", type=Path, help="also time check from this tree's scanner/")
    parser.add_argument("--local", action="store_true", help="the project's fixture servers: nothing downloaded")
    options = parser.parse_args()
    runs = options.runs
    repo = CACHE / ("local-repo" if options.local else "repo")
    repo.mkdir(parents=True, exist_ok=True)
    if not options.local:
        install()
    declared = local_servers(repo) if options.local else servers(repo)
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": declared}, indent=2), encoding="utf-8")
    env = os.environ | {"PYTHONPATH": str(HERE.parent)}
    # As installed, each tree has its bytecode (pip compiles it): under PYTHONDONTWRITEBYTECODE every timed
    # check would otherwise compile ~150 modules, a cost no installed mcp-lock pays.
    for tree in (HERE.parent, *([options.baseline_tree] if options.baseline_tree else [])):
        compileall.compile_dir(Path(tree) / "scanner", quiet=1)
    subprocess.run([*MCP_LOCK, "lock", "--repo", str(repo), "--quiet"], check=True, env=env, capture_output=True)

    trees = {"mcp-lock check": env}
    if options.baseline_tree:
        trees["mcp-lock check (baseline tree)"] = os.environ | {"PYTHONPATH": str(options.baseline_tree.resolve())}
    specs = list(declared.values())
    timed: dict[str, list[str]] = {f"raw single: {key}": [sys.executable, "-c", RAW_CLIENT, json.dumps([spec])]
                                   for key, spec in declared.items()}
    timed[f"raw concurrent (all {len(specs)})"] = [sys.executable, "-c", RAW_CLIENT, json.dumps(specs)]
    timed |= {f"bare single: {key}": [sys.executable, "-c", BARE_CLIENT, json.dumps([spec])]
              for key, spec in declared.items()}
    timed[f"bare concurrent (all {len(specs)})"] = [sys.executable, "-c", BARE_CLIENT, json.dumps(specs)]
    timed["mcp-lock --version"] = [*MCP_LOCK, "--version"]
    walls: dict[str, list[float]] = {name: [] for name in [*trees, *timed]}
    cpus: dict[str, list[float]] = {name: [] for name in walls}
    before_spawn: dict[str, list[float]] = {name: [] for name in trees}
    loads: list[float] = []
    check_args = ["check", "--repo", str(repo), "--quiet"]
    for round_number in range(runs):
        loads.append(os.getloadavg()[0])
        # The trees' order alternates (ABBA): the first check of a round follows the last round's concurrent
        # boots, whose exiting servers still load the machine, and would otherwise always be the same tree's.
        order = list(trees.items()) if round_number % 2 == 0 else list(reversed(trees.items()))
        for name, tree_env in order:
            seconds, _, stderr = once([sys.executable, "-P", "-c", OWN_CPU, *check_args], env=tree_env)
            own, first = own_cpu(stderr)
            walls[name].append(seconds)
            cpus[name].append(own)
            before_spawn[name].append(first)
        for name, command in timed.items():
            seconds, cpu, _ = once(command, env=env)
            walls[name].append(seconds)
            cpus[name].append(cpu)
    loads.append(os.getloadavg()[0])
    print("\n".join(report(walls, cpus, before_spawn, loads, runs, list(declared))))


def report(walls: dict[str, list[float]], cpus: dict[str, list[float]], before_spawn: dict[str, list[float]],
           loads: list[float], runs: int, keys: list[str]) -> list[str]:
    """Each figure beside its floor (the raw client) and its peer (the SDK client), with the load average."""
    wall = {name: median(values) for name, values in walls.items()}
    cpu = {name: median(values) for name, values in cpus.items()}
    raw_singles = [f"raw single: {key}" for key in keys]
    raw_slowest = max(wall[name] for name in raw_singles)
    raw_concurrent = wall[f"raw concurrent (all {len(keys)})"]
    slowest = max(wall[f"bare single: {key}"] for key in keys)
    concurrent = wall[f"bare concurrent (all {len(keys)})"]
    nproc = os.cpu_count() or 1
    servers_cpu = sum(cpu[name] for name in raw_singles)
    bound = max(raw_slowest, servers_cpu / nproc)
    lines = [f"median of {runs} interleaved rounds; nproc={nproc}, python {sys.version.split()[0]}; "
             f"load average per round {', '.join(f'{x:.1f}' for x in loads)}",
             f"{'measurement':<36}{'wall s':>8}{'CPU s':>8}"]
    for name in walls:
        lines.append(f"{name:<36}{wall[name]:>8.2f}{cpu[name]:>8.2f}")
    lines += [
        f"{'raw slowest single (the floor)':<36}{raw_slowest:>8.2f}",
        f"{'raw singles CPU / nproc':<36}{servers_cpu / nproc:>8.2f}   (the servers' own CPU on {nproc} cores)",
        f"{'bound: max of the two above':<36}{bound:>8.2f}   (no client boots these faster here)",
        f"{'target: 1.3 x raw slowest single':<36}{1.3 * raw_slowest:>8.2f}"
        + ("   (below the bound: not reachable on this machine)" if 1.3 * raw_slowest < bound else ""),
    ]
    for name in before_spawn:
        own, first = cpu[name], median(before_spawn[name])
        check = wall[name]
        with_own = max(raw_slowest, (servers_cpu + own) / nproc)
        lines += [
            f"{name}: own CPU {own:.2f} s, of it {first:.2f} s before its first child process",
            f"  bound with that own CPU             {with_own:.2f}   (servers' CPU + own CPU, over nproc)",
            f"  check / raw slowest single          {check / raw_slowest:.2f}   (target <= 1.3: the floor)",
            f"  check / bound                       {check / bound:.2f}",
            f"  check / raw concurrent              {check / raw_concurrent:.2f}   (the floor, all at once)",
            f"  check / slowest SDK single          {check / slowest:.2f}   (the SDK client, the peer)",
            f"  check / SDK concurrent              {check / concurrent:.2f}",
        ]
    return lines


if __name__ == "__main__":
    main()
