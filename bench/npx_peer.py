"""What the client itself does on a cold machine, to set beside a cold `mcp-lock check` (issue 35 item 7: a cold
check is no slower than npx's own cold install of the same trees).

    python bench/npx_peer.py REPO HOME [--concurrency 8] [--timeout 900]
    python bench/npx_peer.py --pairs 3 REPO WORKDIR     # interleaved: cold check, peer, cold check, peer, ...

The peer, for every server REPO/.mcp.json declares: its own launch (`npx -y PKG@V ...`, `uvx PKG==V ...`) exactly
as a client runs it, with HOME an empty folder (empty npm and uv caches: npx resolves and installs the tree,
install scripts included, uvx resolves and installs its environment), then a raw JSON-RPC client's `initialize`,
`notifications/initialized`, `tools/list`, and `prompts/list` / `resources/list` where the server advertises
them (what `check` asks), then stdin closed and the server stopped. `--concurrency` servers at once, as `check`
boots. Timed from the first launch to the last answer; the clock stops at the server's last answer, so the
peer's figure carries no comparing, no store and no verifying.

Every launch runs inside bubblewrap: the root read-only, the caller's own home hidden (an empty tmpfs), a
private /tmp, only HOME writable, a cleared environment (PATH, HOME, LANG, TERM, the certificate and proxy
variables and npm's quiet settings that mcp-lock's own installs pass: no secret reaches the package code).
The network is shared (npx and uvx must reach the registries).

`--pairs N` runs N interleaved rounds of [a cold `mcp-lock check --repo REPO` with a fresh HOME, the peer with
another fresh HOME], the order swapped every other round, each a child of this process measured by os.wait4
(wall, and user + sys CPU of it and of every descendant reaped below it), with the load average beside each,
then the medians and ratios. What runs under `bwrap --unshare-pid` is reaped by bwrap inside its namespace and
reaches no wait4 here (a busy loop in it reads 0.0 CPU-s): so only the wall time gets a ratio, the CPU lines
count what each side reaps itself, and the peer prints its own sum over the sandboxes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

CALLER_HOME = os.path.expanduser("~")
# The caller's variables npm and uv need (certificates, proxies), as mcp-lock's own installs pass them; and npm's
# quiet settings, as mcp-lock's installs set them.
PASSED = ("SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY",
          "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy")
QUIET = {"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
TOOLS = str(Path(shutil.which("uv") or "/usr/bin/uv").parent)


def _sandboxed(argv: list[str], home: Path, cwd: Path) -> tuple[list[str], dict[str, str]]:
    env = {"PATH": f"{TOOLS}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb",
           **{k: v for k, v in os.environ.items() if k in PASSED}, **QUIET}
    command = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent",
               "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
               "--tmpfs", CALLER_HOME, "--bind", str(home), str(home), "--chdir", str(cwd), "--", *argv]
    return command, env


class _Server:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self._err = stderr.open("wb")
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err)
        self._buffer = b""
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, message: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, ident: int, deadline: float) -> dict[str, Any]:
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and message.get("id") == ident and "method" not in message:
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                raise TimeoutError(ident)
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError(f"exit {self.proc.wait()}")
            self._buffer += chunk

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._err.close()


def _boot(name: str, spec: dict[str, Any], home: Path, repo: Path, timeout: float) -> tuple[str, float, str]:
    started = time.monotonic()
    # bwrap's pid namespace hands no child's CPU up to us: GNU time inside the sandbox counts the launch's tree.
    cpu = home / f".cpu.{name}"
    argv, env = _sandboxed(["/usr/bin/time", "-f", "%U %S", "-o", str(cpu), spec["command"],
                            *spec.get("args", [])], home, repo)
    server = _Server(argv, env, repo, home.parent / f"{home.name}.{name}.stderr")
    deadline = started + timeout
    outcome = "ok"
    try:
        server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "npx-peer", "version": "1"}}})
        caps = server.answer(1, deadline).get("result", {}).get("capabilities", {})
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        asks = ["tools/list", *(["prompts/list"] if "prompts" in caps else []),
                *(["resources/list"] if "resources" in caps else [])]
        for ident, method in enumerate(asks, start=2):
            server.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": {}})
            server.answer(ident, deadline)
    except (TimeoutError, EOFError, OSError) as error:
        outcome = f"{type(error).__name__} {error}"
    seconds = time.monotonic() - started
    server.stop()
    return name, seconds, outcome


def peer(repo: Path, home: Path, concurrency: int, timeout: float) -> int:
    home.mkdir(parents=True, exist_ok=False)
    servers = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    started = time.monotonic()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda item: _boot(item[0], item[1], home, repo, timeout), servers.items()))
    wall = time.monotonic() - started
    for name, seconds, outcome in sorted(results, key=lambda r: -r[1]):
        print(f"{name:24s} {seconds:7.1f} s  {outcome}")
    failed = sum(outcome != "ok" for _n, _s, outcome in results)
    counted = [[float(x) for x in f.read_text().split()[-2:]] for f in home.glob(".cpu.*") if f.stat().st_size]
    user, system = sum(c[0] for c in counted), sum(c[1] for c in counted)
    print(f"{len(results)} servers: wall {wall:.1f} s, {failed} failed; CPU in the sandboxes {user + system:.1f} s "
          f"({user:.1f} user + {system:.1f} sys, {len(counted)} of {len(results)} launches counted)")
    return 1 if failed else 0


def _measured(argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> dict[str, Any]:
    load = Path("/proc/loadavg").read_text().split()[0]
    started = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        _pid, status, usage = os.wait4(proc.pid, 0)
    return {"wall": time.monotonic() - started, "user": usage.ru_utime, "sys": usage.ru_stime,
            "cpu": usage.ru_utime + usage.ru_stime, "exit": os.waitstatus_to_exitcode(status),
            "load": f"{load} → {Path('/proc/loadavg').read_text().split()[0]}"}


def pairs(repo: Path, workdir: Path, rounds: int, concurrency: int) -> int:
    workdir.mkdir(parents=True, exist_ok=True)
    # Both sides get the same caller variables: the certificates and proxies npm and uv need, nothing else.
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG", "TERM", *PASSED)}
    rows: dict[str, list[dict[str, Any]]] = {"check": [], "peer": []}
    for round_ in range(1, rounds + 1):
        # The order alternates (check first in odd rounds, the peer first in even ones): whichever runs second
        # meets a registry path that has just served the same tarballs.
        for side in ("check", "peer") if round_ % 2 else ("peer", "check"):
            home = workdir / f"{side}{round_}"
            if side == "check":
                home.mkdir()
                argv = ["mcp-lock", "check", "--repo", str(repo), "--concurrency", str(concurrency)]
                row = _measured(argv, {**base, "HOME": str(home)}, repo, workdir / f"{side}{round_}.log")
            else:
                argv = [sys.executable, __file__, str(repo), str(home), "--concurrency", str(concurrency)]
                row = _measured(argv, base, repo, workdir / f"{side}{round_}.log")
            rows[side].append(row)
            print(f"round {round_} {side:5s} wall {row['wall']:6.1f} s  CPU {row['cpu']:6.1f} s "
                  f"({row['user']:.1f} + {row['sys']:.1f})  exit {row['exit']}  load {row['load']}", flush=True)
    check, other = (statistics.median(r["wall"] for r in rows[s]) for s in ("check", "peer"))
    ratios = [c["wall"] / p["wall"] for c, p in zip(rows["check"], rows["peer"], strict=True)]
    print(f"median wall: check {check:.1f} s, peer {other:.1f} s, ratio {check / other:.2f} "
          f"(pairs {min(ratios):.2f}–{max(ratios):.2f})")
    # No CPU ratio: wait4 sees none of the sandboxed work on either side (see the docstring), so the two CPU
    # medians compare what each side reaps itself, and the peer's own sums over its sandboxes are in its logs.
    check, other = (statistics.median(r["cpu"] for r in rows[s]) for s in ("check", "peer"))
    print(f"median CPU reaped outside the sandboxes (not a ratio to quote): check {check:.1f} s, peer {other:.1f} s")
    (workdir / "pairs.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("home", type=Path, help="the peer's fresh HOME (with --pairs: a work folder)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--pairs", type=int, default=0)
    args = parser.parse_args()
    repo, home = args.repo.resolve(), args.home.resolve()
    if args.pairs:
        return pairs(repo, home, args.pairs, args.concurrency)
    return peer(repo, home, args.concurrency, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
