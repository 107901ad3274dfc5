"""The `mcp-lock` executable (scanner/cli/launch.py): `--version` without click, everything else through it."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from scanner.cli import launch
from scanner.cli.launch import VERSION_LINE
from scanner.cli.main import main


def test_the_fast_version_line_is_click_s() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == VERSION_LINE + "\n"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    probe = "import sys; from scanner.cli.launch import run; sys.argv[1:] = sys.argv[2:]; run(); " \
            "print('click' in sys.modules, file=sys.stderr)"
    return subprocess.run([sys.executable, "-c", probe, "mcp-lock", *args], capture_output=True, text=True)


def test_version_does_not_import_click() -> None:
    done = _run("--version")
    assert done.returncode == 0 and done.stdout == VERSION_LINE + "\n" and done.stderr.strip() == "False"


def test_every_other_command_goes_to_click() -> None:
    done = _run("--help")
    assert done.returncode == 0 and "Usage:" in done.stdout and "check" in done.stdout
    bad = _run("--version", "--no-such-option")
    assert bad.returncode == 2 and "No such option" in bad.stderr


# A probe that sets things up before `run()`: an exit handler, maybe a thread still working when the command ends.
_LEAVING = """
import atexit, sys, threading, time
from scanner.cli.launch import run
atexit.register(lambda: sys.stderr.write("exit handler\\n"))
if sys.argv[1] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), sys.stderr.write("thread done\\n"))).start()
sys.argv[1:] = sys.argv[2:]
run()
"""


def _leaving(mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _LEAVING, mode, *args], capture_output=True, text=True)


class _Ended(Exception):
    pass


def test_leaving_runs_the_exit_handlers_then_ends_the_process_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The teardown is skipped (whether it frees objects visibly depends on the Python: so the calls are read)."""
    calls: list[object] = []

    def ended(code: int) -> None:
        calls.append(("os._exit", code))
        raise _Ended

    monkeypatch.setattr(launch.atexit, "_run_exitfuncs", lambda: calls.append("exit handlers"))
    monkeypatch.setattr(launch.threading, "enumerate", lambda: [threading.current_thread()])
    monkeypatch.setattr(launch.os, "_exit", ended)
    with pytest.raises(_Ended):
        launch.leave(3)
    assert calls == ["exit handlers", ("os._exit", 3)]


@pytest.mark.parametrize("code", ["a message", 256, -1, True])
def test_a_code_that_is_no_exit_status_gets_the_usual_exit(code: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch.threading, "enumerate", lambda: [threading.current_thread()])
    monkeypatch.setattr(launch.os, "_exit", lambda code: pytest.fail(f"os._exit({code})"))
    assert launch.leave(code) is None


def test_every_command_leaves_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    left: list[object] = []
    monkeypatch.setattr(launch, "leave", left.append)
    monkeypatch.setattr(sys, "argv", ["mcp-lock", "--no-such-option"])
    with pytest.raises(SystemExit):
        launch.run()
    assert left == [2]


def test_the_exit_code_and_the_exit_handlers_of_a_real_process() -> None:
    done = _leaving("plain", "--help")
    assert done.returncode == 0 and "Usage:" in done.stdout and done.stderr == "exit handler\n"
    bad = _leaving("plain", "--no-such-option")
    assert bad.returncode == 2 and "No such option" in bad.stderr and bad.stderr.endswith("exit handler\n")


def test_a_thread_still_running_gets_the_usual_exit() -> None:
    """os._exit would end the thread unfinished: the usual exit waits for it."""
    done = _leaving("thread", "--help")
    assert done.returncode == 0 and "thread done" in done.stderr and "exit handler" in done.stderr


def test_all_output_reaches_a_pipe() -> None:
    """Piped output is block-buffered: what is still in the buffer when the command ends is written first."""
    code = "import sys; from scanner.cli.launch import run; print('x' * 200_000); sys.argv[1:] = ['--help']; run()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("x" * 200_000 + "\n") and "Usage:" in done.stdout


def test_the_collector_is_tuned_before_the_engine_is_imported() -> None:
    """The thresholds are set before click and the engine load, so their imports run no young collections."""
    code = """
import gc, sys
from scanner.cli.launch import run
seen = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "click" and not seen:
            seen.append(gc.get_threshold())
        return None
sys.meta_path.insert(0, Watch())
sys.argv[1:] = ["--help"]
import atexit
atexit.register(lambda: print(seen[0], gc.get_threshold(), file=sys.stderr))
run()
"""
    from scanner.cli.launch import GC_THRESHOLDS

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.strip() == f"{GC_THRESHOLDS} {GC_THRESHOLDS}"
    assert GC_THRESHOLDS[0] > 700  # above the default, or there was nothing to tune
