"""Issue 27, item 6: the lock cannot be weakened silently under `check --base`.

A pull request rewrites mcp-lock.json with mcp-lock's own code (digests recomputed, canonical text): a pin
loses `launch.artifact` (and the file drops to format 1), a pin loses its prompt bodies, or a server leaves the
lock and every config file at once. Each is a blocking `lock-weakened` finding, never a note.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fixture_repo import SPEC_SERVER, base_spec

from scanner.lock.document import render
from scanner.lock.lockfile import rebuild
from scanner.lock.reader import parse

from .exfil import check_pull_request, pin_on_main, rules, write_json
from .gitrepo import GitRepo

SERVE = "import runpy, sys\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"


def local_server(repo: GitRepo, name: str, spec: dict[str, object] | None = None) -> None:
    """A fixture server run through a script in the repository, so its pin records the script (an artifact)."""
    repo.write("serve.py", SERVE)
    write_json(repo, f"specs/{name}.json", spec or base_spec())
    repo.add_entry(name, {"command": sys.executable, "args": ["serve.py", str(SPEC_SERVER), f"specs/{name}.json"]})


def rewrite_lock(repo: GitRepo, **changes: object) -> None:
    """Rewrite every pin with `changes`, as a hand edit using mcp-lock's own code would."""
    lock = parse(repo.lock_path.read_text(encoding="utf-8"), "mcp-lock.json")
    lock.servers = {key: rebuild(pin, **changes) for key, pin in lock.servers.items()}
    repo.lock_path.write_text(render(lock), encoding="utf-8")


def weakened(report: dict[str, object]) -> list[dict[str, str]]:
    return [f for f in report["findings"] if f["rule"] == "lock-weakened"]  # type: ignore[index, union-attr]


def test_a_pin_that_loses_its_artifact(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    local_server(repo, "notes")
    pin_on_main(repo, {})
    assert repo.lock_json()["servers"]["notes"]["launch"]["artifact"]  # the test needs one to take away
    assert repo.lock_json()["lockfileVersion"] == 2
    rewrite_lock(repo, artifact=None)
    assert repo.lock_json()["lockfileVersion"] == 1
    report = check_pull_request(repo, {}, "Drop the artifact")
    messages = " | ".join(f["message"] for f in weakened(report))
    assert "launch.artifact" in messages and "format" in messages, report["output"]
    assert all(f["blocking"] for f in weakened(report))
    assert report["exit_code"] == 1


def test_a_pin_that_loses_its_prompt_bodies(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    spec = base_spec()
    spec["promptBodies"] = {
        "summarise": {"messages": [{"role": "user", "content": {"type": "text", "text": "Sum up."}}]}
    }
    local_server(repo, "notes", spec)
    pin_on_main(repo, {})
    assert repo.lock_json()["servers"]["notes"]["promptBodies"]
    rewrite_lock(repo, prompt_bodies={})
    report = check_pull_request(repo, {}, "Drop the prompt bodies")
    assert any("promptBodies" in f["message"] and "summarise" in f["message"] for f in weakened(report)), report[
        "output"
    ]
    assert report["exit_code"] == 1


def test_a_server_removed_from_lock_and_config_at_once(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    local_server(repo, "kept")
    local_server(repo, "gone")
    pin_on_main(repo, {})
    del repo.servers["gone"]
    repo.write_config()
    assert repo.run("update").exit_code == 0  # removes the pin of what no file declares
    assert "gone" not in repo.lock_json()["servers"]
    report = check_pull_request(repo, {}, "Remove gone")
    [finding] = weakened(report)
    assert finding["server"] == "gone" and finding["blocking"], report["output"]
    assert report["exit_code"] == 1


def test_a_repin_that_keeps_every_field_is_no_weakening(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "top")
    local_server(repo, "notes")
    pin_on_main(repo, {})
    spec = base_spec()
    spec["tools"][0]["description"] = "Add a note to the notebook, with a date."
    write_json(repo, "specs/notes.json", spec)
    assert repo.run("update").exit_code == 0
    report = check_pull_request(repo, {}, "Re-pin notes")
    assert not weakened(report) and "repin-accepted" in rules(report), report["output"]
    assert report["exit_code"] == 0, report["output"]
