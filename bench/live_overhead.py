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
MCP_LOCK = [sys.executable, "-m", "scanner"]

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


def once(command: list[str], **kwargs: object) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return seconds


def wall(command: list[str], runs: int, **kwargs: object) -> float:
    return statistics.median(once(command, **kwargs) for _ in range(runs))


def alternating(command: list[str], envs: list[dict[str, str]], runs: int) -> list[float]:
    """Median wall time of `command` under each env, runs interleaved so that load drifts hit all alike."""
    times: list[list[float]] = [[] for _ in envs]
    for _ in range(runs):
        for index, env in enumerate(envs):
            times[index].append(once(command, env=env))
    return [statistics.median(t) for t in times]


def bare(specs: list[dict[str, object]], runs: int) -> float:
    return wall([sys.executable, "-c", BARE_CLIENT, json.dumps(specs)], runs)


def raw(specs: list[dict[str, object]], runs: int) -> float:
    return wall([sys.executable, "-c", RAW_CLIENT, json.dumps(specs)], runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-tree", type=Path, help="also time check from this tree's scanner/")
    parser.add_argument("--local", action="store_true", help="the project's fixture servers: nothing downloaded")
    options = parser.parse_args()
    runs = options.runs
    load = os.getloadavg()
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

    envs = [env]
    if options.baseline_tree:
        envs.append(os.environ | {"PYTHONPATH": str(options.baseline_tree.resolve())})
    check, *baseline = alternating([*MCP_LOCK, "check", "--repo", str(repo), "--quiet"], envs, runs)
    version = wall([*MCP_LOCK, "--version"], runs, env=env)
    singles = {key: bare([spec], runs) for key, spec in declared.items()}
    concurrent = bare(list(declared.values()), runs)
    raws = {key: raw([spec], runs) for key, spec in declared.items()}
    raw_concurrent = raw(list(declared.values()), runs)
    slowest = max(singles.values())
    raw_slowest = max(raws.values())
    sequential = sum(singles.values())

    rows = [(f"raw single: {key}", seconds) for key, seconds in raws.items()]
    rows += [("raw slowest single (the floor)", raw_slowest), (f"raw concurrent (all {len(raws)})", raw_concurrent)]
    rows += [(f"bare single: {key}", seconds) for key, seconds in singles.items()]
    rows += [
        ("bare slowest single", slowest),
        ("bare sequential sum", sequential),
        (f"bare concurrent (all {len(singles)})", concurrent),
        ("mcp-lock check", check),
        *[("mcp-lock check (baseline tree)", seconds) for seconds in baseline],
        ("mcp-lock --version", version),
    ]
    after = os.getloadavg()
    print(f"median of {runs} wall-clock runs; nproc={os.cpu_count()}, python {sys.version.split()[0]}; "
          f"load average {load[0]:.2f} before, {after[0]:.2f} after (re-run on a quiet machine to quote)")
    print(f"{'measurement':<34}{'seconds':>9}")
    for label, seconds in rows:
        print(f"{label:<34}{seconds:>9.2f}")
    print(f"{'check / raw slowest single':<34}{check / raw_slowest:>9.2f}   (target <= 1.3: the floor)")
    print(f"{'check / raw concurrent':<34}{check / raw_concurrent:>9.2f}   (the floor, all at once)")
    print(f"{'check / slowest single':<34}{check / slowest:>9.2f}   (the SDK client, the peer)")
    print(f"{'check / bare concurrent':<34}{check / concurrent:>9.2f}")
    print(f"{'check / sequential sum':<34}{check / sequential:>9.2f}")
    for seconds in baseline:
        print(f"{'baseline check / slowest single':<34}{seconds / slowest:>9.2f}")
        print(f"{'baseline check / bare concurrent':<34}{seconds / concurrent:>9.2f}")


if __name__ == "__main__":
    main()
