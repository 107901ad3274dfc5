"""The composite action: schema-valid, clean under zizmor, inputs only through env, and its script works."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from scanner.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
BIN = Path(sys.executable).parent


def action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def steps() -> list[dict[str, Any]]:
    return action()["runs"]["steps"]


def step(step_id: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("id") == step_id)


def step_named(name: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("name") == name)


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
        "sandbox-setup",
        "advisories",
        "cache-key",
    }
    assert inputs["cache-key"]["default"] == ""  # nothing of the verdicts or the store kept unless given
    assert inputs["upload-sarif"]["default"] == "true"
    assert inputs["sandbox-setup"]["default"] == "true"
    assert inputs["category"]["default"] == "mcp-lock"
    assert inputs["offline"]["default"] == "false"
    assert inputs["python-version"]["default"] == ""
    assert inputs["advisories"]["default"] == "osv"  # OSV's public API unless the workflow says otherwise
    assert set(spec["outputs"]) == {"exit-code", "sarif-file", "findings", "category", "summary-file", "cli"}
    assert spec["runs"]["using"] == "composite"


def test_no_expression_inside_any_script() -> None:
    for s in steps():
        assert "${{" not in s.get("run", ""), s.get("name")


def test_every_uses_is_pinned_by_commit_sha() -> None:
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert uses, "expected setup-python and upload-sarif"
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


def test_setup_python_only_when_asked_or_when_python3_is_too_old() -> None:
    setup = next(s for s in steps() if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["if"] == "steps.validate.outputs.setup-python != ''"
    assert setup["with"]["update-environment"] is False
    validate = step("validate")["run"]
    assert "sys.version_info < (3, 11)" in validate and "setup_python=3.12" in validate


def test_validation_comes_first_and_reads_every_input_from_env() -> None:
    first = steps()[0]
    assert first["id"] == "validate" and "if" not in first
    assert set(first["env"].values()) == {f"${{{{ inputs.{name} }}}}" for name in action()["inputs"]}


def test_sarif_upload_condition() -> None:
    upload = next(s for s in steps() if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    condition = " ".join(upload["if"].split())
    assert condition.startswith("always() && inputs.upload-sarif == 'true'")
    assert "github.event.pull_request.head.repo.fork != true" in condition
    # What mcp-lock wrote into the SARIF: a shard's category carries its suffix.
    assert upload["with"]["category"] == "${{ steps.scan.outputs.category }}"
    # A private repository without code scanning rejects the upload: a warning, not the job's result.
    assert upload["continue-on-error"] is True
    explain = steps()[steps().index(upload) + 1]
    assert explain["if"] == "always() && steps.upload.outcome == 'failure'" and "::warning" in explain["run"]


def test_the_cache_is_saved_before_any_server_runs() -> None:
    names = [s.get("uses", "").split("@")[0] or s.get("id") for s in steps()]
    assert names.index("actions/cache/save") < names.index("scan")
    assert names.index("actions/cache/restore") < names.index("actions/cache/save")


def test_nothing_from_the_venv_runs_after_mcp_lock_returns() -> None:
    script = step("scan")["run"]
    assert script.count("$MCPL_VENV") == 1 and "bin/python" not in script
    after = steps()[steps().index(step("scan")) + 1 :]
    assert not any("MCPL_VENV" in str(s) or "RUNNER_TEMP" in s.get("run", "") for s in after)
    # The step's body is one function: bash has parsed all of it before a server starts.
    assert script.lstrip().startswith("scan() {") and script.rstrip().endswith("scan\nexit")


def test_installers_run_with_a_minimal_environment() -> None:
    install = step_named("Install mcp-lock from the hashed lock")["run"]
    lines = [line.strip() for line in install.splitlines()]
    python_lines = [line for line in lines if '"${fetch[@]}"' in line or "-m venv" in line]
    assert len(python_lines) == 4
    assert all(line.startswith('env -i "${clean[@]}"') for line in python_lines)
    assert 'uv=(env -i "${clean[@]}" UV_SYSTEM_CERTS=1 "$tools/uv" pip)' in lines
    uv_lines = [line for line in lines if '"${uv[@]}"' in line]
    assert len(uv_lines) == 3 and all("--no-config" in line for line in uv_lines)  # no uv.toml of the repository
    assert not [line for line in lines if "/uv " in line and not line.startswith("uv=(env -i")]
    assert "pip install" not in install  # uv comes by its pinned sha256 (action/fetch_uv.py), not through pip


def test_the_install_is_hashed_and_compiles_nothing() -> None:
    install = step_named("Install mcp-lock from the hashed lock")["run"]
    assert 'fetch=("$GITHUB_ACTION_PATH/action/fetch_uv.py" "$GITHUB_ACTION_PATH/action/uv.txt" "$tools")' in install
    assert '--require-hashes --no-deps -r "$GITHUB_ACTION_PATH/action/requirements.txt"' in install
    assert '--no-index --no-deps --no-build-isolation --editable "$GITHUB_ACTION_PATH"' in install
    assert '"${uv[@]}" check --no-config --python "$MCPL_VENV/bin/python"' in install  # pip check's equivalent
    assert '-m venv --without-pip -- "$MCPL_VENV"' in install  # no ensurepip in the venv that is cached
    assert "--compile" not in install and "--compile-bytecode" not in install  # uv compiles nothing unless asked


def cache_key(tmp_path: Path, action_path: Path) -> str:
    """The venv's cache key as the `env` step computes it for an action checked out at `action_path`."""
    output = tmp_path / f"output-{len(list(tmp_path.glob('output-*')))}"
    env = {"PATH": os.environ["PATH"], "GITHUB_ACTION_PATH": str(action_path), "GITHUB_OUTPUT": str(output),
           "RUNNER_TEMP": str(tmp_path), "MCPL_PYTHON": sys.executable}
    done = subprocess.run(["bash", "-c", step("env")["run"]], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    (key,) = [line.split("=", 1)[1] for line in output.read_text().splitlines() if line.startswith("cache-key=")]
    return key


def test_the_venv_cache_key_names_the_checkout_it_runs_from(tmp_path: Path) -> None:
    """The install is editable (a .pth naming $GITHUB_ACTION_PATH): a venv saved for one checkout path must not
    be restored for another, even with the same source."""
    copies = []
    for name in ("one", "two"):
        copy = tmp_path / name
        copy.mkdir()
        shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
        shutil.copytree(ROOT / "action", copy / "action", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "scanner", copy / "scanner", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        copies.append(copy)
    first = cache_key(tmp_path, copies[0])
    assert first == cache_key(tmp_path, copies[0])
    assert first != cache_key(tmp_path, copies[1])
    (copies[0] / "scanner" / "errors.py").write_text("# changed\n", encoding="utf-8")
    assert first != cache_key(tmp_path, copies[0])


def test_uv_is_pinned_by_hash() -> None:
    text = (ROOT / "action" / "uv.txt").read_text(encoding="utf-8")
    entries = re.findall(r"^([a-z0-9-]+)==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)", text, re.M)
    assert [(name, version) for name, version, _ in entries] == [("uv", entries[0][1])]
    assert len(re.findall(r"sha256:[0-9a-f]{64}", entries[0][2])) >= 5  # a wheel per platform


def test_the_apparmor_profile_is_the_bwrap_only_one() -> None:
    script = step_named("Prepare the stdio sandbox (bubblewrap)")["run"]
    command = re.search(r"printf '%s\\n' .*?(?=\| sudo tee /etc/apparmor.d/bwrap)", script, re.S)
    assert command, script
    printed = subprocess.run(["bash", "-c", command.group(0)], capture_output=True, text=True, timeout=30).stdout
    assert printed == (
        "abi <abi/4.0>,\ninclude <tunables/global>\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\n"
        "  userns,\n  include if exists <local/bwrap>\n}\n"
    )
    assert "sudo apparmor_parser -r /etc/apparmor.d/bwrap" in script
    assert "sudo apt-get install -y -q bubblewrap" in script
    assert step_named("Prepare the stdio sandbox (bubblewrap)")["if"] == (
        "inputs.sandbox-setup == 'true' && inputs.offline != 'true' && runner.os == 'Linux'"
    )


def test_last_step_exits_with_the_recorded_code() -> None:
    last = steps()[-1]
    assert last["env"]["MCPL_EXIT_CODE"] == "${{ steps.scan.outputs.exit-code }}"
    assert "if" not in last
    for recorded, code in (("1", 1), ("0", 0), ("", 2), ("1\nexit 0", 2), ("x", 2)):
        final = subprocess.run(["bash", "-c", last["run"]], env={**os.environ, "MCPL_EXIT_CODE": recorded}, timeout=30)
        assert final.returncode == code, recorded


# --- the check step's script, around a stand-in for mcp-lock -----------------------------------

STAND_IN = """#!/bin/bash
while [ $# -gt 0 ]; do if [ "$1" = --summary ]; then summary="$2"; fi; shift; done
"""


def run_check_step(tmp_path: Path, stand_in: str) -> tuple[dict[str, str], str]:
    """The scan step's script as the runner runs it, with $MCPL_VENV/bin/mcp-lock replaced."""
    fake = tmp_path / "venv" / "bin" / "mcp-lock"
    fake.parent.mkdir(parents=True)
    fake.write_text(STAND_IN + stand_in, encoding="utf-8")
    fake.chmod(0o755)
    output, summary = tmp_path / "output", tmp_path / "step-summary.md"
    env = dict.fromkeys(step("scan")["env"], "") | {"MCPL_OFFLINE": "false", "MCPL_CHANGED_ONLY": "false"}
    env |= {"MCPL_VENV": str(fake.parent.parent), "MCPL_REPO": str(tmp_path), "MCPL_CATEGORY": "mcp-lock"}
    env |= {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(tmp_path), "MCPL_RESULT_CATEGORY": "mcp-lock"}
    env |= {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
    script = tmp_path / "scan.sh"
    script.write_text(step("scan")["run"], encoding="utf-8")
    subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", script], env=env, timeout=60, check=True)
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    return outputs, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_summary_file_is_the_markdown_report_mcp_lock_wrote(tmp_path: Path) -> None:
    outputs, job_summary = run_check_step(tmp_path, 'printf "## drift\\n" > "$summary"; exit 1\n')
    report = Path(outputs["summary-file"])
    assert report.read_text(encoding="utf-8") == "## drift\n" and job_summary == "## drift\n"
    assert report.parent.parent == tmp_path and outputs["exit-code"] == "1"


def test_summary_file_is_empty_when_no_report_was_written(tmp_path: Path) -> None:
    outputs, job_summary = run_check_step(tmp_path, 'echo "mcp-lock: error: no lockfile" >&2; exit 2\n')
    assert "summary-file" not in outputs and outputs["exit-code"] == "2"
    assert "no lockfile" in job_summary  # the action's own error section, never offered as the report


def test_summary_file_is_never_a_link_left_in_its_place(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=s3cret\n", encoding="utf-8")
    outputs, job_summary = run_check_step(tmp_path, f'ln -s {secret} "$summary"; exit 0\n')
    assert "summary-file" not in outputs and "s3cret" not in job_summary
    assert outputs["exit-code"] == "0"


def test_every_option_the_script_passes_exists_in_the_cli() -> None:
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    passed = set(re.findall(r"(--[a-z][a-z-]+)", step("scan")["run"]))
    assert {"--base", "--changed-only", "--shard", "--fail-on", "--offline", "--advisories"} <= passed
    for option in passed:
        assert option in help_text, option


def test_the_advisories_input_alone_decides_the_lookup() -> None:
    scan = step("scan")
    assert scan["env"]["MCP_LOCK_ADVISORIES"] == ""  # a job variable cannot turn the lookup on, off or elsewhere
    assert 'args+=("--advisories=$MCPL_ADVISORIES")' in scan["run"]  # `=`: a dash-led value is no option
    assert '"$MCPL_ADVISORIES" != off' in scan["run"]


def test_fail_on_is_passed_only_if_the_cli_has_it() -> None:
    help_text = CliRunner().invoke(main, ["check", "--help"]).output
    passed_on = re.search(r'args\+=\(--fail-on "\$MCPL_FAIL_ON"\)', step("scan")["run"]) is not None
    assert ("--fail-on" in help_text) == passed_on, "wire fail-on through now the CLI has it"
    assert "--offline" in help_text and "--sarif" in help_text and "--github-annotations" in help_text


# --- the hashed lock the action installs from ---------------------------------------------

LOCK = ROOT / "action" / "requirements.txt"


def locked_pins() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) for every requirement in action/requirements.txt."""
    pins: dict[str, tuple[str, list[str]]] = {}
    for entry in re.split(r"\n(?=[A-Za-z])", LOCK.read_text(encoding="utf-8").split("\n", 2)[2]):
        match = re.match(r"([A-Za-z0-9._-]+)==([^\s;\\]+)", entry)
        assert match, entry
        pins[canonicalize_name(match[1])] = (match[2], re.findall(r"--hash=sha256:([0-9a-f]{64})", entry))
    return pins


def test_every_lock_entry_is_pinned_with_hashes() -> None:
    pins = locked_pins()
    assert len(pins) >= 20
    for name, (_version, hashes) in pins.items():
        assert hashes, f"{name} has no --hash=sha256:"
    assert "mcp-lock" not in pins  # the action installs its own checkout, --no-deps


def test_the_lock_is_in_sync_with_pyproject() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = locked_pins()
    for text in pyproject["project"]["dependencies"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is a runtime dependency but not in action/requirements.txt"
        assert requirement.specifier.contains(pins[name][0]), f"{name}=={pins[name][0]} does not satisfy {text}"
    assert "setuptools" not in pins and "flit-core" not in pins  # no Python build backend on the runner


def test_the_pinned_uv_builds_mcp_lock_itself() -> None:
    """uv builds a uv_build project without Python only when its own version is inside the backend's range: the
    install step passes --no-index --no-build-isolation, so a uv outside it would fail rather than fetch."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert build["build-backend"] == "uv_build"
    (backend,) = [Requirement(text) for text in build["requires"]]
    uv = re.search(r"^uv==(\S+)", (ROOT / "action" / "uv.txt").read_text(encoding="utf-8"), re.M)
    assert backend.name == "uv_build" and uv and backend.specifier.contains(uv[1]), (build, uv)


@pytest.mark.network  # the locked distributions come from the package index
@pytest.mark.slow
def test_the_install_step_installs_a_working_mcp_lock(tmp_path: Path) -> None:
    """The action's install step itself (bash, its script, its env), on a copy of the action's checkout, with
    an empty HOME: a runner's cache miss."""
    action_path = tmp_path / "action"
    action_path.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, action_path / name)
    for name in ("scanner", "action"):
        shutil.copytree(ROOT / name, action_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tmp_path / "home").mkdir()
    (tmp_path / "runner").mkdir()
    venv = tmp_path / "runner" / "venv"
    passed = ("PATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "HTTPS_PROXY", "https_proxy")
    env = {name: os.environ[name] for name in passed if name in os.environ} | {
        "HOME": str(tmp_path / "home"), "GITHUB_ACTION_PATH": str(action_path), "RUNNER_TEMP": str(tmp_path / "runner"),
        "MCPL_PYTHON": getattr(sys, "_base_executable", sys.executable), "MCPL_VENV": str(venv),
    }
    script = step_named("Install mcp-lock from the hashed lock")["run"]
    result = subprocess.run(["bash", "-e", "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mcp-lock, version" in result.stdout and "All installed packages are compatible" in result.stderr
    # Nothing byte-compiled at install: what nothing has imported yet has no .pyc.
    (site,) = venv.glob("lib/python3.*/site-packages")
    assert list((site / "jinja2").glob("*.py")) and not list((site / "jinja2").rglob("*.pyc"))
    assert not (venv / "bin" / "pip").exists()
    assert not (tmp_path / "runner" / "mcp-lock-uv").exists()
    # Editable: the venv names the checkout, nothing of scanner/ is copied into it.
    assert not (site / "scanner").exists()
    assert str(action_path) in "".join(p.read_text() for p in site.glob("*.pth"))


@pytest.mark.network  # downloads one small locked distribution
def test_a_tampered_hash_is_refused(tmp_path: Path) -> None:
    """--require-hashes does check: with every digest of one pin altered, pip refuses the download."""
    pin = r"^[a-z0-9-]+==\S+ \\\n(?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+"
    entry = re.search(pin, LOCK.read_text("utf-8"), re.M)
    assert entry
    tampered = tmp_path / "requirements.txt"
    tampered.write_text(re.sub(r"sha256:[0-9a-f]", "sha256:0", entry[0]).replace("sha256:00", "sha256:01"), "utf-8")
    assert tampered.read_text("utf-8") != entry[0]
    result = run_tool(
        sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "-d", tmp_path / "d", "-r", tampered
    )
    assert result.returncode != 0 and "DO NOT MATCH" in result.stdout + result.stderr
