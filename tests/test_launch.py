"""The `mcp-lock` executable (scanner/cli/launch.py): `--version` without click, everything else through it."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

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
