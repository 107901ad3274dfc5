"""What the action's install step costs on a cache miss, in CPU seconds (issue 31 item 4).

    python bench/action_install.py [--runs 7] [--baseline-ref REF]

Runs the `Install mcp-lock from the hashed lock` step of action.yml as the runner would (bash, the step's own
script, its env), on a fresh copy of the action's checkout, into a fresh venv, with a fresh HOME (so pip's and
uv's caches are empty, as on a new runner: the cache miss). With --baseline-ref, the same step of action.yml at
that git revision runs too, alternating with this one, so both see the same load. Beside them, the floor: plain
`uv pip install --require-hashes --no-deps -r action/requirements.txt` into a fresh venv with an empty cache (the
target is at most 1.5x that, and 2 CPU-s). Beside them, the step's two parts of its own: fetching uv by its
pinned sha256 (action/fetch_uv.py, cache empty) and installing mcp-lock from the checkout into the floor's
filled venv (editable, by uv's own build backend). Figures: user + system CPU of the step and everything it started
(RUSAGE_CHILDREN), user and system apart (on a busy ext4 disk most of uv's CPU is the kernel allocating inodes
for the files it unpacks: see bench/README.md), wall time; medians of --runs rounds, each round running every
variant once, so load drifts hit all alike, and the step / floor ratio both as a ratio of medians and as the
median of the per-round ratios; the load average of each round beside them. A cache hit skips the step: 0.
Downloads from the package index (`.ci/run` prints one round).

`--drop-caches` (root only) empties the kernel's page cache before each install: on this workplace's machines the
system CPU of unpacking a venv grows with the page cache the machine already holds (the floor 0.9-1.4 CPU-s right
after a drop, 3.0-3.5 with 4 GB cached, round after round), and a fresh CI runner starts with little cached.
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
FETCH = "  part: fetch uv"
BUILD = "  part: mcp-lock"
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


Sample = tuple[float, float, float]  # user CPU, system CPU, wall seconds


def drop_page_cache() -> None:
    """Write back, then empty the page cache (what a fresh runner starts with); root only."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
    except OSError as error:
        raise SystemExit(f"--drop-caches needs root: {error}") from None


def run_once(script: str, ref: str | None) -> Sample:
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
        return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall


def cpu_of(command: list[str], env: dict[str, str]) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall


def run_floor() -> dict[str, Sample]:
    """Plain uv installing the same hashed requirements, cache empty: what no install step can beat. Then the
    action's own parts: fetching uv (fresh folder) and installing mcp-lock into the venv the floor filled."""
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    python = getattr(sys, "_base_executable", sys.executable)
    with tempfile.TemporaryDirectory(prefix="mcpl-floor-") as temp:
        base = Path(temp)
        env = {"PATH": os.environ["PATH"], "HOME": str(base), "UV_CACHE_DIR": str(base / "cache")}
        env |= {k: v for k, v in os.environ.items() if k in PASSED}
        target = str(base / "venv" / "bin" / "python")
        venv = cpu_of([python, "-m", "venv", "--without-pip", str(base / "venv")], env)
        install = cpu_of([uv, "pip", "install", "--no-config", "--quiet", "--python", target, "--require-hashes",
                          "--no-deps", "-r", str(ROOT / "action" / "requirements.txt")], env)
        fetch = cpu_of([python, str(ROOT / "action" / "fetch_uv.py"), str(ROOT / "action" / "uv.txt"),
                        str(base / "tools")], env)
        checkout(None, base / "action-path")
        build = cpu_of([str(base / "tools" / "uv"), "pip", "install", "--no-config", "--quiet", "--python", target,
                        "--no-index", "--no-deps", "--no-build-isolation", "--editable", str(base / "action-path")],
                       env)
        floor = (venv[0] + install[0], venv[1] + install[1], venv[2] + install[2])
        return {FLOOR: floor, FETCH: fetch, BUILD: build}


def cpu(sample: Sample) -> float:
    return sample[0] + sample[1]


def report(samples: dict[str, list[Sample]], loads: list[float], runs: int) -> list[str]:
    """The table: each variant's median CPU (user + system) and wall beside the floor, the load of each round."""
    floor = statistics.median(cpu(s) for s in samples[FLOOR])
    lines = [f"nproc={os.cpu_count()}, load average per round {', '.join(f'{x:.1f}' for x in loads)}; "
             f"median of {runs} interleaved rounds, cache miss (fresh HOME, venv, checkout)",
             f"  {'':<18}{'CPU s':>7}{'user':>7}{'system':>8}{'wall s':>8}   runs (CPU s)"]
    for name, taken in samples.items():
        user, system, wall = (statistics.median(s[index] for s in taken) for index in (0, 1, 2))
        total = statistics.median(cpu(s) for s in taken)
        spread = ", ".join(f"{cpu(s):.2f}" for s in taken)
        line = f"  {name:<18}{total:>7.2f}{user:>7.2f}{system:>8.2f}{wall:>8.2f}   {spread}"
        if name not in (FLOOR, FETCH, BUILD):
            rounds = [cpu(s) / cpu(f) for s, f in zip(taken, samples[FLOOR], strict=True)]
            floor_user = statistics.median(f[0] for f in samples[FLOOR])
            line += (f"\n  {'':<18}{total / floor:.2f}x the floor's median "
                     f"(median per round {statistics.median(rounds):.2f}x; targets <= 1.5x and <= 2 CPU-s); "
                     f"user CPU alone {user / floor_user:.2f}x, {user - floor_user:+.2f} s")
        lines.append(line)
    lines.append("  a cache hit (the venv restored) runs no install step: 0 CPU-s of it")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline-ref", help="also time the install step of action.yml at this git revision")
    parser.add_argument("--drop-caches", action="store_true", help="empty the page cache before each install (root)")
    args = parser.parse_args()
    current = install_script((ROOT / "action.yml").read_text())
    variants: dict[str, tuple[str, str | None]] = {"this tree": (current, None)}
    if args.baseline_ref:
        old = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.baseline_ref}:action.yml"], capture_output=True,
                             text=True, check=True).stdout
        variants[args.baseline_ref] = (install_script(old), args.baseline_ref)
    samples: dict[str, list[Sample]] = {name: [] for name in [*variants, FLOOR, FETCH, BUILD]}
    loads = []
    for _ in range(args.runs):
        loads.append(os.getloadavg()[0])
        for name, (script, ref) in variants.items():
            if args.drop_caches:
                drop_page_cache()
            samples[name].append(run_once(script, ref))
        if args.drop_caches:
            drop_page_cache()
        for name, figure in run_floor().items():
            samples[name].append(figure)
    print("\n".join(report(samples, loads, args.runs)))
    if args.drop_caches:
        print("  the page cache emptied before each install (--drop-caches)")


if __name__ == "__main__":
    main()
