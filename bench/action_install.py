"""What the action's install step costs on a cache miss, in CPU seconds (issue 31 item 4).

    python bench/action_install.py [--runs 3] [--baseline-ref REF]

Runs the `Install mcp-lock from the hashed lock` step of action.yml as the runner would (bash, the step's own
script, its env), on a fresh copy of the action's checkout, into a fresh venv, with a fresh HOME (so pip's and
uv's caches are empty, as on a new runner: the cache miss). With --baseline-ref, the same step of action.yml at
that git revision runs too, alternating with this one, so both see the same load. Beside them, the floor: plain
`uv pip install --require-hashes --no-deps -r action/requirements.txt` into a fresh venv with an empty cache (the
target is at most 1.5x that, and 2 CPU-s). Figures: user + system CPU of
the step and everything it started (RUSAGE_CHILDREN), wall time, median of --runs; the load average beside them.
Downloads from the package index, so it is run by hand.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
STEP = "Install mcp-lock from the hashed lock"
FLOOR = "plain uv (floor)"
PASSED = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
          "http_proxy", "https_proxy", "no_proxy")


def install_script(action_yml: str) -> str:
    steps = yaml.safe_load(action_yml)["runs"]["steps"]
    (step,) = [s for s in steps if s.get("name") == STEP]
    return str(step["run"])


def checkout(ref: str | None, into: Path) -> None:
    """The action's files (pyproject, README, scanner/, action/) at `ref`, or as in the working tree."""
    into.mkdir(parents=True)
    names = ["pyproject.toml", "README.md", "scanner", "action"]
    if ref is None:
        for name in names:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
            else:
                shutil.copy2(source, into / name)
        return
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *names], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)


def run_once(script: str, ref: str | None) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="mcpl-install-") as temp:
        base = Path(temp)
        action = base / "action-path"
        checkout(ref, action)
        (base / "home").mkdir()
        (base / "runner").mkdir()
        env = {
            "PATH": os.environ["PATH"], "HOME": str(base / "home"), "LANG": os.environ.get("LANG", "C.UTF-8"),
            "GITHUB_ACTION_PATH": str(action), "RUNNER_TEMP": str(base / "runner"),
            "MCPL_PYTHON": getattr(sys, "_base_executable", sys.executable), "MCPL_VENV": str(base / "runner" / "venv"),
        }
        # The runner's own TLS and proxy settings, as the step keeps them.
        env |= {k: v for k, v in os.environ.items() if k in PASSED or k.startswith(("PIP_", "UV_"))}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(["bash", "-e", "-c", script], env=env, cwd=base, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"install step failed ({ref or 'working tree'}):\n{done.stdout}\n{done.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return cpu, wall


def run_floor() -> tuple[float, float]:
    """Plain uv installing the same hashed requirements, cache empty: what no install step can beat."""
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    with tempfile.TemporaryDirectory(prefix="mcpl-floor-") as temp:
        base = Path(temp)
        env = {"PATH": os.environ["PATH"], "HOME": str(base), "UV_CACHE_DIR": str(base / "cache")}
        env |= {k: v for k, v in os.environ.items() if k in PASSED}
        python = getattr(sys, "_base_executable", sys.executable)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([python, "-m", "venv", "--without-pip", str(base / "venv")], env=env, check=True)
        target = str(base / "venv" / "bin" / "python")
        subprocess.run([uv, "pip", "install", "--no-config", "--quiet", "--python", target, "--require-hashes",
                        "--no-deps", "-r", str(ROOT / "action" / "requirements.txt")], env=env, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-ref", help="also time the install step of action.yml at this git revision")
    args = parser.parse_args()
    current = install_script((ROOT / "action.yml").read_text())
    variants: dict[str, tuple[str, str | None]] = {"this tree": (current, None)}
    if args.baseline_ref:
        old = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.baseline_ref}:action.yml"], capture_output=True,
                             text=True, check=True).stdout
        variants[args.baseline_ref] = (install_script(old), args.baseline_ref)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in [*variants, FLOOR]}
    loads = []
    for _ in range(args.runs):
        for name, (script, ref) in variants.items():
            loads.append(os.getloadavg()[0])
            samples[name].append(run_once(script, ref))
        loads.append(os.getloadavg()[0])
        samples[FLOOR].append(run_floor())
    print(f"nproc={os.cpu_count()}, load average {min(loads):.1f}-{max(loads):.1f}, median of {args.runs}, "
          f"cache miss (fresh HOME, venv, checkout)")
    floor = statistics.median(c for c, _ in samples[FLOOR])
    for name, runs in samples.items():
        cpu = statistics.median(c for c, _ in runs)
        wall = statistics.median(w for _, w in runs)
        spread = ", ".join(f"{c:.2f}" for c, _ in runs)
        against = "" if name == FLOOR else f"; {cpu / floor:.2f}x the floor (target <= 1.5)"
        print(f"  {name:<14} CPU {cpu:.2f} s (runs: {spread}; target <= 2{against}), wall {wall:.2f} s")
    print("  (a shared machine: quote these only from a quiet-machine re-run)")


if __name__ == "__main__":
    main()
