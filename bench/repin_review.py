"""What the re-pin review costs (scanner.vcs.repin_review): one tree behind an unchanged launch, resolved again.

    PYTHONPATH=. python bench/repin_review.py --base /tmp/old-tree [--deps 60] [--moved 15] [--runs 5]

On a loopback npm registry (tests/artifacts/npm_registry.py): a top package with `--deps` direct dependencies
is pinned on main; `--moved` of them then publish an in-range release (30 days ago), `mcp-lock update --fresh`
re-pins on a branch, and, with `--overnight`, every dependency publishes once more after that. Then the
review step alone (`confirm_repins`, after `review`) runs in a fresh process of this tree and of the `--base`
tree in turn (A B A B ...), each timing itself; printed per tree: the median and spread of its wall time, the
registry requests it made, and its verdict (`tree-repinned` or blocking), with the load average before and
after. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

from artifacts.npm_registry import Registry, serve  # noqa: E402

MEASURE = """
import json, sys, time
from pathlib import Path
from scanner.run.workspace import open_workspace
from scanner.vcs.review import review
from scanner.vcs.repin_review import confirm_repins
workspace = open_workspace(Path(sys.argv[1]), None, json.loads(sys.argv[2]))
notes = review(workspace, "main")
started = time.perf_counter()
confirm_repins(workspace, notes.trees, notes.findings, notes.base_servers, notes.base_lock, notes.lock,
               builds=notes.base_builds, label=notes.label)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "rules": sorted({f.rule.id for f in notes.findings if "tree" in f.rule.id})}))
"""


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _mcp_lock(repo: Path, environ: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "scanner", args[0], "--repo", str(repo), *args[1:]],
                          env={**os.environ, **environ, "PYTHONPATH": str(ROOT)}, cwd=repo.parent,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"mcp-lock {' '.join(args)} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")


def _setup(folder: Path, registry: Registry, deps: int, moved: int, overnight: bool) -> tuple[Path, dict[str, str]]:
    names = [f"bench-rr-dep-{i}" for i in range(deps)]
    for name in names:
        registry.publish(name, "1.0.0", name, days_ago=60)
    registry.publish("bench-rr-top", "1.0.0", "top", days_ago=60, dependencies={n: "^1.0.0" for n in names})
    repo = folder / "repo"
    repo.mkdir()
    entry = {"command": "npx", "args": ["-y", "bench-rr-top@1.0.0"], "env": {"npm_config_registry": registry.url}}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}), encoding="utf-8")
    (folder / "npm-cache").mkdir()
    environ = {"npm_config_cache": str(folder / "npm-cache"), "MCP_LOCK_STORE": str(folder / "store")}
    _git(repo, "init", "-q", "-b", "main")
    _mcp_lock(repo, environ, "lock")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pin")
    _git(repo, "checkout", "-q", "-b", "pr")
    for name in names[:moved]:
        registry.publish(name, "1.0.1", name + " two", days_ago=30)
    _mcp_lock(repo, environ, "update", "--fresh")
    _git(repo, "commit", "-q", "-am", "re-pin")
    if overnight:
        for name in names:
            registry.publish(name, "1.0.2", name + " three")
    return repo, environ


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="a tree to compare with (e.g. the last main's)")
    parser.add_argument("--deps", type=int, default=60)
    parser.add_argument("--moved", type=int, default=15)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--overnight", action="store_true", help="every dependency publishes after the re-pin")
    options = parser.parse_args()
    if shutil.which("npm") is None:
        sys.exit("npm is not installed")
    registry = Registry()
    server = serve(registry)
    trees = {"this tree": str(ROOT), "base": str(Path(options.base).resolve())}
    results: dict[str, list[dict]] = {name: [] for name in trees}
    try:
        with tempfile.TemporaryDirectory(prefix="repin-bench-") as folder:
            repo, environ = _setup(Path(folder), registry, options.deps, options.moved, options.overnight)
            print("load before:", os.getloadavg())
            for _ in range(options.runs):
                for name, tree in trees.items():
                    asked = len(registry.served)
                    done = subprocess.run(
                        [sys.executable, "-c", MEASURE, str(repo), json.dumps({**os.environ, **environ})],
                        env={**os.environ, **environ, "PYTHONPATH": tree}, cwd=folder, capture_output=True,
                        text=True, timeout=900, check=False,
                    )
                    if done.returncode != 0:
                        sys.exit(f"{name}: {done.stderr[-3000:]}")
                    result = json.loads(done.stdout.strip().splitlines()[-1])
                    result["requests"] = len(registry.served) - asked
                    results[name].append(result)
            print("load after:", os.getloadavg())
    finally:
        server.shutdown()
        server.server_close()
    for name, runs in results.items():
        seconds = [r["seconds"] for r in runs]
        print(f"{name}: median {statistics.median(seconds):.2f} s (min {min(seconds):.2f}, max {max(seconds):.2f}); "
              f"registry requests {statistics.median(r['requests'] for r in runs):g}; {runs[-1]['rules']}")
    ratio = statistics.median(r["seconds"] for r in results["this tree"]) / statistics.median(
        r["seconds"] for r in results["base"])
    print(f"this tree / base, ratio of medians: {ratio:.2f}")


if __name__ == "__main__":
    main()
