"""The composite action: schema-valid, clean under zizmor, inputs only through env, and its script works."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from fixture_repo import Repo

from scanner.cli import main

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
BIN = Path(sys.executable).parent


def action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def steps() -> list[dict[str, Any]]:
    return action()["runs"]["steps"]


def step(step_id: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("id") == step_id)


def run_tool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120)


def mutated(tmp_path: Path, old: str, new: str) -> Path:
    text = ACTION.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "action.yml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


# --- the two validators, and proof that each catches what it is for -----------------------


def check_jsonschema(path: Path) -> subprocess.CompletedProcess[str]:
    return run_tool(BIN / "check-jsonschema", "--builtin-schema", "vendor.github-actions", path)


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    return run_tool(BIN / "zizmor", "--offline", "--no-progress", path)


def test_action_matches_the_github_actions_schema() -> None:
    result = check_jsonschema(ACTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_check_catches_a_step_without_shell(tmp_path: Path) -> None:
    result = check_jsonschema(
        mutated(
            tmp_path,
            "    - name: Fail on mcp-lock's exit code\n      shell: bash\n",
            "    - name: Fail on mcp-lock's exit code\n",
        )
    )
    assert result.returncode != 0


def test_zizmor_finds_nothing() -> None:
    result = zizmor(ACTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_catches_an_input_expanded_in_a_script(tmp_path: Path) -> None:
    result = zizmor(mutated(tmp_path, "args=(check --repo . ", 'args=(check --repo "${{ inputs.working-directory }}" '))
    assert result.returncode != 0, result.stdout


# --- structure ----------------------------------------------------------------------------


def test_inputs_and_outputs() -> None:
    spec = action()
    inputs = spec["inputs"]
    assert set(inputs) == {
        "working-directory",
        "lockfile",
        "fail-on",
        "upload-sarif",
        "category",
        "offline",
        "python-version",
        "shard",
        "base",
        "changed-only",
    }
    assert inputs["upload-sarif"]["default"] == "true"
    assert inputs["category"]["default"] == "mcp-lock"
    assert inputs["offline"]["default"] == "false"
    assert inputs["python-version"]["default"] == ""
    assert set(spec["outputs"]) == {"exit-code", "sarif-file", "findings", "category", "summary-file"}
    assert spec["runs"]["using"] == "composite"


def test_no_expression_inside_any_script() -> None:
    for s in steps():
        assert "${{" not in s.get("run", ""), s.get("name")


def test_every_uses_is_pinned_by_commit_sha() -> None:
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert uses, "expected setup-python and upload-sarif"
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


def test_setup_python_only_when_asked() -> None:
    setup = next(s for s in steps() if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["if"] == "inputs.python-version != ''"


def test_sarif_upload_condition() -> None:
    upload = next(s for s in steps() if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    condition = " ".join(upload["if"].split())
    assert condition.startswith("always() && inputs.upload-sarif == 'true'")
    assert "github.event.pull_request.head.repo.fork != true" in condition
    # What mcp-lock wrote into the SARIF: a shard's category carries its suffix.
    assert upload["with"]["category"] == "${{ steps.scan.outputs.category }}"


def test_last_step_exits_with_the_recorded_code() -> None:
    last = steps()[-1]
    assert last["env"]["MCPL_EXIT_CODE"] == "${{ steps.scan.outputs.exit-code }}"
    assert "if" not in last


def test_every_option_the_script_passes_exists_in_the_cli() -> None:
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    passed = set(re.findall(r"(--[a-z][a-z-]+)", step("scan")["run"])) - {"--quiet", "--disable-pip-version-check"}
    assert {"--base", "--changed-only", "--shard", "--fail-on", "--offline"} <= passed
    for option in passed:
        assert option in help_text, option


def test_fail_on_is_passed_only_if_the_cli_has_it() -> None:
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    passed_on = re.search(r'args\+=\(--fail-on "\$MCPL_FAIL_ON"\)', step("scan")["run"]) is not None
    assert ("--fail-on" in help_text) == passed_on, "wire fail-on through now the CLI has it"
    assert "--offline" in help_text and "--sarif" in help_text and "--github-annotations" in help_text


# --- the scan script itself, run as a runner would ----------------------------------------


def run_scan(action_path: Path, workdir: Path, temp: Path, **inputs: str) -> tuple[int, dict[str, str], str]:
    output, summary = temp / "output", temp / "summary.md"
    output.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_ACTION_PATH": str(action_path),
        "MCPL_LOCKFILE": inputs.get("lockfile", ""),
        "MCPL_FAIL_ON": inputs.get("fail-on", ""),
        "MCPL_CATEGORY": inputs.get("category", "mcp-lock"),
        "MCPL_OFFLINE": inputs.get("offline", "false"),
        "MCPL_SHARD": inputs.get("shard", ""),
        "MCPL_BASE": inputs.get("base", ""),
        "MCPL_CHANGED_ONLY": inputs.get("changed-only", "false"),
    }
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"  # python3 is a 3.11+ interpreter, as on the runner
    process = subprocess.run(
        ["bash", "-c", step("scan")["run"]], cwd=workdir, env=env, capture_output=True, text=True, timeout=600
    )
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    return process.returncode, outputs, process.stdout + process.stderr


@pytest.mark.network  # pip installs the action's own checkout, with its dependencies from PyPI
@pytest.mark.slow
def test_scan_script_records_exit_code_findings_and_sarif(repo: Repo, tmp_path: Path) -> None:
    action_path = tmp_path / "action"
    action_path.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy2(ROOT / name, action_path / name)
    shutil.copytree(ROOT / "scanner", action_path / "scanner", ignore=shutil.ignore_patterns("__pycache__"))
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0

    code, outputs, log = run_scan(action_path, repo.root, temp, offline="true")
    assert code == 0, log
    assert outputs["exit-code"] == "0" and outputs["findings"] == "0", log
    assert Path(outputs["sarif-file"]).is_file()
    assert outputs["category"] == "mcp-lock"
    assert (temp / "summary.md").read_text(encoding="utf-8").strip()
    written = Path(outputs["summary-file"]).read_text(encoding="utf-8")
    assert written == (temp / "summary.md").read_text(encoding="utf-8")  # also in the job summary

    code, outputs, log = run_scan(action_path, repo.root, temp, offline="true", shard="2/2", category="pr")
    assert code == 0 and outputs["exit-code"] == "0", log
    assert outputs["category"] == "pr-shard-2-of-2", log

    entry = repo.servers["notes"]
    repo.add_entry("notes", {**entry, "args": [*entry["args"], "--version=2"]})
    code, outputs, log = run_scan(action_path, repo.root, temp, offline="true", **{"fail-on": "high"})
    assert code == 0, log  # the scan step records the code; the last step fails the job
    assert outputs["exit-code"] == "1" and outputs["findings"] == "1", log
    assert "launch-changed" in Path(outputs["sarif-file"]).read_text(encoding="utf-8")
    assert "::error" in log  # --github-annotations

    (repo.root / "mcp-lock.json").unlink()
    code, outputs, log = run_scan(action_path, repo.root, temp, offline="true")
    assert outputs["exit-code"] == "2" and outputs["findings"] == "0", log
    assert "sarif-file" not in outputs  # so the upload step is skipped rather than failing
    assert "summary-file" not in outputs  # so nothing stale is posted

    final = subprocess.run(["bash", "-c", steps()[-1]["run"]], env={**os.environ, "MCPL_EXIT_CODE": "1"}, timeout=30)
    assert final.returncode == 1
