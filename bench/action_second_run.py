"""A second CI run of an unchanged repository on a fresh runner, with and without the action's `cache-key`
(issue 39 item 5): wall time and CPU seconds of the whole action, and what it downloaded.

    python bench/action_second_run.py [--rounds 5]

The action runs through the project's local runner (tests/actions_runner.py), each run on a fresh runner (empty
RUNNER_TEMP and HOME; only the actions/cache store is shared), on a repository of two servers: an npm one with
a dependency (a loopback npm registry) and a PyPI one (a loopback simple index), both counting what they serve.
A first run with the key, as the default branch's push, fills the cache (the virtualenv, npm's downloads, the
verdicts, the store). Then rounds alternate, so both see the same load: `kept` with the key (verdicts and store
restored), `plain` without it (as before: the virtualenv and npm's downloads restored, every pin scanned and
every tree installed). Figures: medians over the rounds of wall time and of user + system CPU of everything the
runner started (RUSAGE_CHILDREN), the scan step's own wall time, downloads per run, the load average beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from actions_runner import ActionRunner, Machine  # noqa: E402
from artifacts.npm_registry import Registry, serve  # noqa: E402
from fixture_repo import Repo  # noqa: E402
from loopback_pypi import SERVER_MODULE, Index  # noqa: E402
from loopback_pypi import serve as serve_index  # noqa: E402

BIN = Path(sys.executable).parent
KEY = "bench-cache-key-0f3c9a0be27d4c55a8e1f0b6d2c7e94a"
PUSH = {"event_name": "push", "ref": "refs/heads/main", "event": {"repository": {"default_branch": "main"}}}
INPUTS = {"upload-sarif": "false", "advisories": "off"}


def action_copy(into: Path) -> Path:
    into.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy2(ROOT / name, into / name)
    for name in ("action", "scanner"):
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def fresh(base: Path) -> tuple[Path, Path]:
    temp = base / "temp"
    if temp.exists():
        for root, folders, _ in os.walk(temp):  # store entries are read-only
            for name in folders:
                if not os.path.islink(os.path.join(root, name)):
                    os.chmod(os.path.join(root, name), 0o700)
        shutil.rmtree(temp)
    temp.mkdir()
    home = Path(tempfile.mkdtemp(prefix="home-", dir=base))
    return temp, home


def one_run(action: Path, base: Path, workspace: Path, cache: Path, key: bool, counters: list[list[str]]) -> dict:
    temp, home = fresh(base)
    machine = Machine(workspace=workspace, temp=temp, cache_store=cache, path_prefix=[str(BIN)],
                      job_env={"HOME": str(home)}, github=PUSH)
    since = [len(c) for c in counters]
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    run = ActionRunner(action, machine).run({**INPUTS, **({"cache-key": KEY} if key else {})})
    wall, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.outputs.get("exit-code") != "0":
        raise SystemExit(run.log)
    fetched = [p for c, s in zip(counters, since, strict=True) for p in c[s:] if p.endswith((".tgz", ".whl"))]
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "scan": run.step("scan").seconds, "downloads": len(fetched)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="mcp-lock-second-run-") as scratch:
        base = Path(scratch)
        registry, index = Registry(), Index(base / "index")
        index.wheel("demo-bench-server", "1.0.0", scripts={"demo-bench-server": SERVER_MODULE})
        server = serve(registry)
        try:
            with serve_index(index) as url:
                registry.publish("mcp-bench-dep", "1.0.0", "dependency")
                registry.publish("mcp-bench-top", "1.0.0", "top", dependencies={"mcp-bench-dep": "^1.0.0"})
                workspace = base / "workspace"
                workspace.mkdir()
                repo = Repo(workspace)
                repo.add_entry("demo", {"command": "npx", "args": ["-y", "mcp-bench-top@1.0.0"],
                                        "env": {"npm_config_registry": registry.url}})
                repo.add_entry("py", {"command": "uvx", "args": ["demo-bench-server==1.0.0"],
                                      "env": {"UV_DEFAULT_INDEX": url}})
                env = {"npm_config_cache": str(base / "l-npm"), "MCP_LOCK_STORE": str(base / "l-store"),
                       "UV_CACHE_DIR": str(base / "l-uv"), "MCP_LOCK_CACHE_DIR": str(base / "l-verdicts")}
                locked = repo.run("lock", env=env)
                if locked.exit_code != 0:
                    raise SystemExit(locked.output)
                action, cache = action_copy(base / "action"), base / "cache"
                cache.mkdir()
                counters = [registry.served, index.served]
                one_run(action, base, workspace, cache, True, counters)  # the default branch's first run
                load_before = Path("/proc/loadavg").read_text().split()[:3]
                results: dict[str, list[dict]] = {"kept": [], "plain": []}
                for _ in range(rounds):
                    for name in ("kept", "plain"):
                        results[name].append(one_run(action, base, workspace, cache, name == "kept", counters))
                load_after = Path("/proc/loadavg").read_text().split()[:3]
        finally:
            server.shutdown()
            server.server_close()
    print(f"second run of an unchanged repository, {rounds} interleaved rounds; load before {' '.join(load_before)}, "
          f"after {' '.join(load_after)}")
    medians = {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]} for name, rows in results.items()}
    for name, median in medians.items():
        per_round = " ".join(f"{r['wall']:.1f}/{r['cpu']:.1f}" for r in results[name])
        print(f"  {name:6} wall {median['wall']:6.2f} s  CPU {median['cpu']:6.2f} s  scan step {median['scan']:5.2f} s"
              f"  downloads {median['downloads']:.0f}   (per round wall/CPU: {per_round})")
    kept, plain = medians["kept"], medians["plain"]
    print(f"  kept / plain: wall {kept['wall'] / plain['wall']:.2f}x, CPU {kept['cpu'] / plain['cpu']:.2f}x, "
          f"scan step {kept['scan'] / plain['scan']:.2f}x")


if __name__ == "__main__":
    main()
