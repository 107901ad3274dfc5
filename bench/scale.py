"""How mcp-lock's own work grows with the number of pinned definitions (issue 5).

    python bench/scale.py [--sizes 20,50,100,200] [--tools 50] [--runs 5] [--drift-percent 1]
                          [--no-subprocess] [--profile] [--tree DIR] [--cold] [--reuse-boots] [--no-heap]

For each size it writes a repo under bench/.cache/scale/ declaring SIZE copies of bench/scale_server.py (a
fast stdio server without the SDK, TOOLS realistic tools each; each copy varies its names, texts and schemas
with its index, so that, as across real servers, most definitions and strings are distinct), then:

1. boots every server twice in-process through `scanner.run.pinning.boot`: once clean, once with --drift-percent of
   the tools changed (half a sentence appended to the description, half a new required parameter), and keeps
   what `scanner.run.boot.boot_servers` returned;
2. replays those boots (boot_servers patched to return them; the rest of pinning.boot still runs) and times
   the rest of the pipeline, --runs times, median per phase: discovery, `operations.lock` (pin = canonicalise +
   hash, render, self-verify, write), `operations.check` clean and drifted (read + verify the lock, pin, diff +
   grade, detectors) and SARIF render, in CPU seconds of this process (`time.process_time`). In-process caches
   keyed on text or schema are emptied before each command, as each real command is a new process; the
   detector verdicts the commands keep across runs (scanner/detectors/verdict_cache.py) live in
   bench/.cache/verdicts and are warm after the first command, as on a machine that ran mcp-lock before, or
   emptied before each command with --cold. Phase times are exclusive (a nested phase is not counted in its
   parent). Beside them: the floor of a clean check (`floor_cpu`) and the load average at the start and end;
3. the same pipeline once under tracemalloc: peak Python heap above the captured boots;
4. unless --no-subprocess, the real commands as subprocesses, booting for real: `mcp-lock lock`,
   `mcp-lock check --sarif F` clean and drifted; wall time and peak RSS (wait4 ru_maxrss, which also covers
   the servers it reaped; each is ~10 MB, so the maximum is mcp-lock's own).

--profile prints the top of a cProfile of one replayed lock + drifted check + SARIF at the largest size.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import hashlib
import io
import json
import os
import pickle
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

HERE = Path(__file__).resolve().parent
# --tree DIR: import `scanner` from another checkout (e.g. a copy with some files at an older revision).
ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import scale_server  # noqa: E402

import scanner  # noqa: E402
import scanner.cli.main  # noqa: E402
import scanner.lock.pin  # noqa: E402
import scanner.lock.render  # noqa: E402
import scanner.run.boot  # noqa: E402
from scanner.lock import document, reader, writer  # noqa: E402
from scanner.reporters.locate import Locator  # noqa: E402
from scanner.reporters.sarif import render_sarif  # noqa: E402
from scanner.run import judging, offline, operations, pinning  # noqa: E402
from scanner.run.workspace import LOCKFILE_NAME, Options, open_workspace  # noqa: E402

CACHE = HERE / ".cache" / "scale"
# The detector verdicts the commands keep across runs (scanner/detectors/verdict_cache.py): kept here, not in the
# user's cache; --cold empties it before each command.
VERDICTS = HERE / ".cache" / "verdicts"
COLD = "--cold" in sys.argv
SERVER = HERE / "scale_server.py"


def make_repo(servers: int, tools: int) -> Path:
    repo = CACHE / f"{servers}x{tools}"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    drift = repo / "drift.json"
    drift.write_text("{}", encoding="utf-8")
    declared = {
        f"s{i:03d}": {"command": sys.executable, "args": ["-S", str(SERVER), str(i), str(tools), str(drift)]}
        for i in range(servers)
    }
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": declared}, indent=2), encoding="utf-8")
    return repo


def drift_plan(servers: int, tools: int, percent: float) -> dict[str, str]:
    """Every (100 / percent)-th tool of the whole repo, alternating a description and a schema change."""
    step = max(1, round(100 / percent))
    plan: dict[str, str] = {}
    for n in range(0, servers * tools, step):
        index, number = divmod(n, tools)
        name = scale_server.tool(index, number)["name"]
        plan[f"{index}/{name}"] = "description" if len(plan) % 2 == 0 else "required"
    return plan


def set_drift(repo: Path, plan: dict[str, str]) -> None:
    (repo / "drift.json").write_text(json.dumps(plan), encoding="utf-8")


# --- in-process: replayed boots, timed phases ------------------------------------------------------


class Phases:
    """Exclusive wall time per phase; a phase called inside another is keyed `outer > inner`."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._stack: list[tuple[str, list[float]]] = []

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            key = f"{self._stack[-1][0]} > {label}" if self._stack else label
            children = [0.0]
            self._stack.append((key, children))
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.process_time() - started
                self._stack.pop()
                self.totals[key] += elapsed - children[0]
                if self._stack:
                    self._stack[-1][1][0] += elapsed

        return timed

    def time(self, label: str, function: Callable[..., Any], *args: Any) -> Any:
        return self.wrap(label, function)(*args)


@contextlib.contextmanager
def replayed(results: dict[str, Any], phases: Phases) -> Iterator[None]:
    """pinning.boot returns the captured results; the pipeline's functions are timed by phase."""

    def boot_servers(servers: Any, *args: Any, on_result: Any = None, **kwargs: Any) -> dict[str, Any]:
        for server in servers:
            if on_result:
                on_result(results[server.key])  # as each would arrive: pins and detectors run here
        return {s.key: results[s.key] for s in servers}

    targets = [
        (scanner.run.boot, "boot_servers", "replayed boot", boot_servers),
        (pinning, "boot", "engine.boot", pinning.boot),
        (operations, "config_findings", "config findings", operations.config_findings),
        (offline, "config_findings", "config findings", offline.config_findings),
        (operations, "read_lock", "read lock", operations.read_lock),
        (operations, "write_lock", "write lock", operations.write_lock),
        (scanner.lock.pin, "pin_server", "pin (canonicalise + hash)", scanner.lock.pin.pin_server),
        (writer, "render", "render", writer.render),
        (reader, "parse", "parse + verify", reader.parse),
        (writer, "parse", "parse + verify", writer.parse),
        (judging, "compare_server", "diff + grade", judging.compare_server),
        (judging, "suspicious_findings", "detectors", judging.suspicious_findings),
        (judging, "cross_server_findings", "cross-server detectors", judging.cross_server_findings),
        (judging, "pinned_findings", "detectors over every pin", judging.pinned_findings),
        (document, "line_index", "lock line index", document.line_index),
        (judging, "schema_findings", "schema validity", judging.schema_findings),
        # write renders with render_normal and proves the read-back itself
        (writer, "render_normal", "render", writer.render_normal),
        (writer, "_reads_back", "read-back verify", writer._reads_back),
    ]
    with contextlib.ExitStack() as stack:
        for module, name, label, function in targets:
            stack.enter_context(mock.patch.object(module, name, phases.wrap(label, function)))
        yield


def fresh_caches() -> None:
    """Empty the in-process caches keyed on text or schema: each real command is a new process, so a cache
    warmed by the previous replay would flatter the next one."""
    import scanner.diff.schema_validity as schema_validity

    # The detectors' pre-filter (its token and decision caches live on the screen) and compiled cue searches
    # are rebuilt as a new process builds them; the loaded catalogue, whose rules register once, is kept.
    names = ("scanner.diff.suspicious", "scanner.diff.schema_validity", "scanner.detectors.engine",
             "scanner.detectors.scoring", "scanner.detectors.prefilter", "scanner.detectors.directives",
             "scanner.detectors.out_of_scope", "scanner.diff.text_hits", "scanner.detectors.unknown_calls")
    for module in filter(None, map(sys.modules.get, names)):
        for value in vars(module).values():
            if (
                callable(getattr(value, "cache_clear", None))
                and getattr(value, "__module__", "") == module.__name__
                and getattr(value, "__name__", "") != "load_catalogue"
            ):
                value.cache_clear()
    re.purge()
    for holder, name in ((schema_validity, "_checked"), (scanner.lock.render, "_KEY_LITERALS")):
        cache = getattr(holder, name, None)
        if isinstance(cache, dict):
            cache.clear()


def pipeline(repo: Path, clean: dict[str, Any], drifted: dict[str, Any], phases: Phases) -> dict[str, Any]:
    """lock, check (clean), check (drifted), each with discovery and SARIF, the way the CLI runs them."""
    options = Options(concurrency=8)
    lock_path = repo / LOCKFILE_NAME
    lock_path.unlink(missing_ok=True)
    seen: dict[str, Any] = {}
    for op, results in (("lock", clean), ("check", clean), ("check drifted", drifted)):
        fresh_caches()
        if COLD:  # what a first run on this machine pays: no verdict kept by an earlier one
            shutil.rmtree(VERDICTS, ignore_errors=True)
        op_phases = Phases()
        started = time.process_time()
        with replayed(results, op_phases):
            workspace = op_phases.time("discovery", open_workspace, repo, None)
            run = operations.lock if op == "lock" else operations.check
            outcome = op_phases.time("engine", run, workspace, options)
            locator = Locator(workspace.lock_path, workspace.lock_display)
            sarif = op_phases.time("SARIF render", render_sarif, outcome.findings, locator)
            (repo / f"{op.replace(' ', '-')}.sarif").write_text(sarif, encoding="utf-8")
        op_phases.totals["total"] = time.process_time() - started
        schema = sum(v for k, v in op_phases.totals.items() if k.endswith("schema validity"))
        if schema:
            op_phases.totals["total without schema validity"] = op_phases.totals["total"] - schema
        for key, seconds in op_phases.totals.items():
            phases.totals[f"{op}: {key}"] += seconds
        seen[op] = outcome
    return seen


def in_process(repo: Path, clean: dict[str, Any], drifted: dict[str, Any], runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    pipeline(repo, clean, drifted, Phases())  # warm-up: lazy imports, caches
    for _ in range(runs):
        phases = Phases()
        outcomes = pipeline(repo, clean, drifted, phases)
        assert outcomes["lock"].lock_written
        assert outcomes["check"].exit_code == 0, [f.message for f in outcomes["check"].findings][:5]
        assert outcomes["check drifted"].exit_code == 1
        samples["findings (drifted check)"].append(len(outcomes["check drifted"].findings))
        for key, seconds in phases.totals.items():
            samples[key].append(seconds)
    return samples


def heap_peak(repo: Path, clean: dict[str, Any], drifted: dict[str, Any]) -> float:
    tracemalloc.start()
    try:
        pipeline(repo, clean, drifted, Phases())
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def capture(repo: Path, plan: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any], float]:
    """Boot every server for real, clean then drifted; the results and the median boot wall time."""
    options = Options(concurrency=8)
    workspace = open_workspace(repo, None)
    ready, _ = offline.bootable(workspace, workspace.discovery.servers)
    walls = []
    boots = []
    real = scanner.run.boot.boot_servers
    for drift in ({}, plan):
        set_drift(repo, drift)
        raw: list[dict[str, Any]] = []

        def keep(*args: Any, raw: list[dict[str, Any]] = raw, **kwargs: Any) -> dict[str, Any]:
            raw.append(real(*args, **kwargs))
            return raw[0]

        started = time.perf_counter()
        with mock.patch.object(scanner.run.boot, "boot_servers", keep):
            pinning.boot(workspace, ready, options)
        walls.append(time.perf_counter() - started)
        results = raw[0]
        failed = [r.error for r in results.values() if r.snapshot is None]
        assert not failed, failed[:3]
        boots.append(results)
    set_drift(repo, {})
    return boots[0], boots[1], statistics.median(walls)


def captured(repo: Path, plan: dict[str, str], reuse: bool) -> tuple[dict[str, Any], dict[str, Any], float]:
    """`capture`, or (--reuse-boots) what an earlier run captured at this size: booting 400 servers for real is
    most of a run's time on a busy machine, and the own work after the boot is what is measured."""
    kept = CACHE / f"{repo.name}.boots.pickle"
    if reuse and kept.exists():
        with kept.open("rb") as handle:
            found: tuple[dict[str, Any], dict[str, Any], float] = pickle.load(handle)  # our own file
            return found
    found = capture(repo, plan)
    with kept.open("wb") as handle:
        pickle.dump(found, handle)
    return found


# The floor of a clean check (issue 31): what any gate that judges every pin must do at the least. Read the lock,
# load it with json's C decoder, recompute every definition's digest with C `json.dumps`, walk every string, and
# scan the case-folded texts once for a few dozen cue words in one case-sensitive alternation.
_FLOOR_CUES = re.compile("|".join([
    "ignore", "instead", "before", "after", "always", "never", "password", "secret", "token", "ssh", "send",
    "http", "upload", "delete", "override", "system", "admin", "priority", "must", "confirm", "hidden", "tell",
    "user", "call", "env", "key", "credential", "forward", "bcc", "deprecated", "only", "do not", "secretly",
    "conversation", "history", "previous", "instructions", "important", "note", "urgent",
]))


def floor_cpu(repo: Path) -> float:
    started = time.process_time()
    document = json.loads((repo / LOCKFILE_NAME).read_bytes().decode("utf-8"))
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode
    texts: list[str] = []
    for server in document["servers"].values():
        for kind in ("tools", "prompts", "resources", "resourceTemplates"):
            for pin in server.get(kind, {}).values():
                hashlib.sha256(encode(pin["definition"]).encode("utf-8")).hexdigest()
                _strings(pin["definition"], texts)
    for text in texts:
        _FLOOR_CUES.search(text.lower())
    return time.process_time() - started


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for child in value.values():
            _strings(child, out)
    elif isinstance(value, list):
        for child in value:
            _strings(child, out)


# --- subprocess: the real commands -----------------------------------------------------------------


# Forked from this (large) process, a child's ru_maxrss starts at this process's RSS: Linux carries the
# pre-exec high-water mark over. So a small launcher forks the command and reports its wait4 figures.
LAUNCHER = r"""
import json, os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
stderr = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - started
print(json.dumps([os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024, stderr[-2000:].decode()]))
"""


def command(args: list[str], expect: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one mcp-lock command run as a child process."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    launched = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, sys.executable, "-m", "scanner", *args],
                              env=env, capture_output=True, text=True, check=True)
    code, wall, rss, stderr = json.loads(launched.stdout)
    if code != expect:
        raise SystemExit(f"mcp-lock {' '.join(args[:2])} exited {code}, expected {expect}:\n{stderr}")
    return wall, rss


def subprocesses(repo: Path, plan: dict[str, str]) -> dict[str, tuple[float, float]]:
    base = ["--repo", str(repo), "--quiet"]
    (repo / LOCKFILE_NAME).unlink(missing_ok=True)
    found = {"lock": command(["lock", *base], 0)}
    found["check --sarif"] = command(["check", *base, "--sarif", str(repo / "cli-check.sarif")], 0)
    set_drift(repo, plan)
    try:
        found["check --sarif (drifted)"] = command(["check", *base, "--sarif", str(repo / "cli-drift.sarif")], 1)
    finally:
        set_drift(repo, {})
    return found


# --- report ----------------------------------------------------------------------------------------

OWN_ROWS = ("lock: total", "check: total", "check drifted: total")


def main() -> None:
    if hasattr(scanner.cli.main, "GC_THRESHOLDS"):  # as the mcp-lock command sets it (--tree may predate it)
        gc.set_threshold(*scanner.cli.main.GC_THRESHOLDS)
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="20,50,100,200", help="servers per repo, comma-separated")
    parser.add_argument("--tools", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--drift-percent", type=float, default=1.0)
    parser.add_argument("--no-subprocess", action="store_true")
    parser.add_argument("--only-subprocess", action="store_true", help="skip the in-process measurements")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--tree", help="import scanner from this directory instead of the working tree")
    parser.add_argument("--reuse-boots", action="store_true",
                        help="replay the boots an earlier run captured at the same size (bench/.cache/scale/)")
    parser.add_argument("--no-heap", action="store_true", help="skip the tracemalloc run (CI)")
    parser.add_argument("--cold", action="store_true", help="no detector verdict kept from an earlier command")
    args = parser.parse_args()
    os.environ["MCP_LOCK_CACHE_DIR"] = str(VERDICTS)
    sizes = [int(s) for s in args.sizes.split(",")]
    load = os.getloadavg()
    print(f"scanner from {Path(scanner.__file__).parent}")
    print(f"nproc={os.cpu_count()}, python {sys.version.split()[0]}, load average {load[0]:.2f} {load[1]:.2f}, "
          f"{args.tools} tools per server, {args.drift_percent:g}% drifted, median of {args.runs}, CPU seconds, "
          f"verdict cache {'cold' if COLD else 'warm'}")

    table: dict[int, dict[str, float]] = {}
    all_keys: list[str] = []
    for servers in sizes:
        repo = make_repo(servers, args.tools)
        plan = drift_plan(servers, args.tools, args.drift_percent)
        row: dict[str, float] = {"drifted tools": len(plan)}
        if not args.only_subprocess:
            clean, drifted, boot_wall = captured(repo, plan, args.reuse_boots)
            samples = in_process(repo, clean, drifted, args.runs)
            row |= {key: statistics.median(values) for key, values in samples.items()}
            row["boot (in-process, real)"] = boot_wall
            row["floor of a clean check (CPU)"] = statistics.median(floor_cpu(repo) for _ in range(args.runs))
            if not args.no_heap:  # the pipeline once more under tracemalloc, at about three times the cost
                row["heap peak MB (tracemalloc)"] = heap_peak(repo, clean, drifted)
            row["lock file MB"] = (repo / LOCKFILE_NAME).stat().st_size / 2**20
            done = ", ".join(f"{k.split(':')[0]} {row[k]:.2f}s" for k in OWN_ROWS)
            print(f"  {servers} servers ({servers * args.tools} definitions): own work {done}", flush=True)
        if not args.no_subprocess:
            for label, (wall, rss) in subprocesses(repo, plan).items():
                row[f"cli {label}: wall s"] = wall
                row[f"cli {label}: peak RSS MB"] = rss
        table[servers] = row
        all_keys += [k for k in row if k not in all_keys]

        if args.profile and servers == max(sizes):
            profile(repo, clean, drifted)

    header = "".join(f"{n * args.tools:>10}" for n in sizes)
    print(f"\n{'definitions':<58}{header}")
    for key in sorted(all_keys, key=_order):
        print(f"{key:<58}" + "".join(f"{table[n].get(key, float('nan')):>10.3f}" for n in sizes))
    smallest = sizes[0]
    if args.only_subprocess:
        return
    print(f"\n{'own work per 1,000 definitions (s)':<58}{header}")
    for key in OWN_ROWS:
        print(f"{key:<58}" + "".join(f"{table[n][key] / (n * args.tools / 1000):>10.3f}" for n in sizes))
    print(f"{'lock+check drifted+SARIF vs target 2 s':<58}"
          + "".join(f"{max(table[n][k] for k in OWN_ROWS):>10.2f}" for n in sizes))
    print(f"{'check (clean) / its floor (floor_cpu)':<58}"
          + "".join(f"{table[n]['check: total'] / table[n]['floor of a clean check (CPU)']:>10.2f}" for n in sizes))
    end = os.getloadavg()
    print(f"load average at the end {end[0]:.2f} {end[1]:.2f}")
    print(f"(sizes relative to {smallest * args.tools}: "
          + ", ".join(f"{n / smallest:g}x" for n in sizes) + ")")


def _order(key: str) -> tuple[int, str]:
    for rank, prefix in enumerate(("lock: ", "check: ", "check drifted: ", "boot", "cli ", "heap", "lock file")):
        if key.startswith(prefix):
            return rank, key
    return 9, key


def profile(repo: Path, clean: dict[str, Any], drifted: dict[str, Any]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    pipeline(repo, clean, drifted, Phases())
    profiler.disable()
    out = io.StringIO()
    # SCALE_SORT=cumulative SCALE_TOP=90: where the time goes from the top down.
    top = int(os.environ.get("SCALE_TOP", "30"))
    pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("SCALE_SORT", "tottime")).print_stats(top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
