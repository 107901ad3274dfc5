"""A small local runner for composite actions: executes action.yml's steps the way GitHub's runner does.

What it does as GitHub does: input defaults and `${{ }}` in `with:`, `env:`, `working-directory:`
and outputs; `if:` with the status functions (an implicit `success()`); `continue-on-error`;
`shell: bash` steps run as `bash --noprofile --norc -e -o pipefail FILE` with fresh GITHUB_OUTPUT,
GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files per step; workflow commands in the output
(annotations, the deprecated `::set-output`, `::stop-commands::`). `uses:` steps are stubs that record
their inputs: setup-python (no-op when this machine's Python is the one asked for), actions/cache
restore/save (a local directory store, so a second run is a cache hit; restore-keys by prefix, newest first;
a key is saved once), upload-sarif (accepts, or fails as a private repository without code scanning does).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from actions_expressions import Evaluator, condition, string_functions, substitute, to_string

Stub = Callable[["StepRun", dict[str, str]], dict[str, str]]


class StepFailed(Exception):
    """A stubbed `uses:` step failed (as the real action would)."""


@dataclass
class Annotation:
    kind: str
    properties: str
    message: str


@dataclass
class StepRun:
    name: str
    id: str | None
    outcome: str = "skipped"  # success, failure or skipped, before continue-on-error
    conclusion: str = "skipped"
    outputs: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    log: str = ""
    seconds: float = 0.0


@dataclass
class Run:
    steps: list[StepRun]
    outputs: dict[str, str]
    annotations: list[Annotation]
    summary: str

    @property
    def failed(self) -> bool:
        return any(step.conclusion == "failure" for step in self.steps)

    @property
    def log(self) -> str:
        return "\n".join(f"--- {s.name} [{s.outcome}, {s.seconds:.1f} s]\n{s.log}" for s in self.steps)

    def step(self, name_or_id: str) -> StepRun:
        return next(s for s in self.steps if name_or_id in (s.id, s.name))

    def errors(self) -> list[str]:
        return [a.message for a in self.annotations if a.kind == "error"]


def unescape(data: str) -> str:
    return data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def parse_file_command(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines, or `name<<DELIMITER` … `DELIMITER`."""
    values: dict[str, str] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        heredoc = line.find("<<")
        equals = line.find("=")
        if heredoc != -1 and (equals == -1 or heredoc < equals):
            name, delimiter = line[:heredoc], line[heredoc + 2 :]
            body: list[str] = []
            while index < len(lines) and lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            if index >= len(lines):
                raise ValueError(f"matching delimiter not found: {delimiter!r}")
            index += 1
            values[name] = "\n".join(body)
        elif equals != -1:
            values[line[:equals]] = line[equals + 1 :]
        else:
            raise ValueError(f"invalid file-command line: {line!r}")
    return values


class WorkflowCommands:
    """The commands the runner obeys in a step's output, with `::stop-commands::` honoured."""

    def __init__(self, step: StepRun, annotations: list[Annotation]) -> None:
        self.step = step
        self.annotations = annotations
        self.resume_token: str | None = None

    def feed(self, line: str) -> None:
        if not line.startswith("::"):
            return
        end = line.find("::", 2)
        if end == -1:
            return
        head, message = line[2:end], line[end + 2 :]
        name, _, properties = head.partition(" ")
        if self.resume_token is not None:
            if name == self.resume_token:
                self.resume_token = None
            return
        if name == "stop-commands":
            self.resume_token = message
        elif name in ("error", "warning", "notice"):
            self.annotations.append(Annotation(name, properties, unescape(message)))
        elif name == "set-output" and properties.startswith("name="):
            self.step.outputs[properties[len("name=") :]] = unescape(message)


@dataclass
class Machine:
    """What the job provides around the action: workspace, temp dir, contexts, and the stubs' state."""

    workspace: Path
    temp: Path
    cache_store: Path
    github: dict[str, Any] = field(default_factory=dict)
    matrix: dict[str, Any] = field(default_factory=dict)
    job_env: dict[str, str] = field(default_factory=dict)
    runner_environment: str = "self-hosted"
    upload_fails: bool = False
    path_prefix: list[str] = field(default_factory=list)
    cache_restores: list[str] = field(default_factory=list)  # the keys of the entries restored, in order


class ActionRunner:
    def __init__(self, action_dir: Path, machine: Machine, stubs: Mapping[str, Stub] | None = None) -> None:
        self.action_dir = action_dir
        self.spec = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
        self.machine = machine
        self.stubs = {**default_stubs(machine), **(stubs or {})}

    def run(self, inputs: Mapping[str, str] | None = None, timeout: float = 600) -> Run:
        declared = self.spec.get("inputs", {})
        unknown = set(inputs or {}) - set(declared)
        if unknown:
            raise ValueError(f"unexpected inputs {sorted(unknown)} (the runner would warn and ignore them)")
        values = {name: to_string(spec.get("default", "")) for name, spec in declared.items()}
        values.update({name: to_string(value) for name, value in (inputs or {}).items()})
        steps: list[StepRun] = []
        annotations: list[Annotation] = []
        summaries: list[str] = []
        env = self.base_env()
        evaluator = self.evaluator(values, steps, env)
        for spec in self.spec["runs"]["steps"]:
            step = StepRun(spec.get("name", spec.get("uses", spec.get("run", ""))[:40]), spec.get("id"))
            steps.append(step)
            if not condition(spec.get("if", "success()"), evaluator):
                continue
            step.env = {k: substitute(to_string(v), evaluator) for k, v in (spec.get("env") or {}).items()}
            started = time.monotonic()
            if "uses" in spec:
                self.run_uses(spec, step, evaluator)
            else:
                summaries.append(self.run_script(spec, step, env, evaluator, annotations, timeout))
            step.seconds = time.monotonic() - started
            allowed = condition(to_string(spec.get("continue-on-error", False)), evaluator)
            step.conclusion = "success" if step.outcome == "success" or allowed else "failure"
        outputs = {
            name: substitute(to_string(spec.get("value", "")), evaluator)
            for name, spec in (self.spec.get("outputs") or {}).items()
        }
        return Run(steps, outputs, annotations, "".join(summaries))

    def base_env(self) -> dict[str, str]:
        machine = self.machine
        path = os.pathsep.join([*machine.path_prefix, os.environ.get("PATH", os.defpath)])
        env = {name: os.environ[name] for name in ("HOME", "LANG", "USER") if name in os.environ}
        env.update(
            PATH=path,
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(machine.workspace),
            GITHUB_ACTION_PATH=str(self.action_dir),
            GITHUB_EVENT_NAME=to_string(machine.github.get("event_name", "push")),
            RUNNER_TEMP=str(machine.temp),
            RUNNER_OS="Linux" if sys.platform.startswith("linux") else "macOS",
            RUNNER_ARCH="ARM64" if platform.machine() in ("aarch64", "arm64") else "X64",
            RUNNER_ENVIRONMENT=machine.runner_environment,
        )
        env.update(machine.job_env)  # a job's `env:` reaches every step, the action's included
        return env

    def evaluator(self, inputs: dict[str, str], steps: list[StepRun], env: dict[str, str]) -> Evaluator:
        def step_contexts() -> dict[str, Any]:
            return {
                s.id: {"outputs": s.outputs, "outcome": s.outcome, "conclusion": s.conclusion} for s in steps if s.id
            }

        def failed() -> bool:
            return any(s.conclusion == "failure" for s in steps[:-1])

        class Contexts(dict[str, Any]):
            def __missing__(self, key: str) -> Any:
                if key == "steps":
                    return step_contexts()
                raise KeyError(key)

            def __contains__(self, key: object) -> bool:
                return key == "steps" or dict.__contains__(self, key)

        runner = {"os": env["RUNNER_OS"], "arch": env["RUNNER_ARCH"], "temp": env["RUNNER_TEMP"]}
        runner["environment"] = env["RUNNER_ENVIRONMENT"]
        contexts = Contexts(
            inputs=inputs, env=env, github=self.machine.github, matrix=self.machine.matrix, runner=runner
        )
        functions = {
            **string_functions(),
            "always": lambda: True,
            "cancelled": lambda: False,
            "success": lambda: not failed(),
            "failure": failed,
        }
        return Evaluator(contexts, functions)

    def run_uses(self, spec: dict[str, Any], step: StepRun, evaluator: Evaluator) -> None:
        name = spec["uses"].split("@", 1)[0]
        step.inputs = {k: substitute(to_string(v), evaluator) for k, v in (spec.get("with") or {}).items()}
        stub = self.stubs.get(name)
        if stub is None:
            raise KeyError(f"no stub for {name}")
        try:
            step.outputs.update(stub(step, step.inputs))
            step.outcome = "success"
        except StepFailed as error:
            step.log, step.outcome = str(error), "failure"

    def run_script(
        self,
        spec: dict[str, Any],
        step: StepRun,
        env: dict[str, str],
        evaluator: Evaluator,
        annotations: list[Annotation],
        timeout: float,
    ) -> str:
        if spec.get("shell") != "bash":
            raise ValueError(f"{step.name}: only `shell: bash` is emulated")
        commands = self.machine.temp / "_runner_file_commands"
        commands.mkdir(parents=True, exist_ok=True)
        names = ("OUTPUT", "ENV", "PATH", "STEP_SUMMARY")
        files = {name: commands / f"{name.lower()}_{uuid.uuid4().hex}" for name in names}
        for path in files.values():
            path.write_text("", encoding="utf-8")
        script = self.machine.temp / f"{uuid.uuid4()}.sh"
        script.write_text(spec["run"], encoding="utf-8")
        workdir = substitute(to_string(spec.get("working-directory", "")), evaluator)
        cwd = self.machine.workspace / workdir if workdir else self.machine.workspace
        step_env = {**env, **{f"GITHUB_{name}": str(path) for name, path in files.items()}, **step.env}
        process = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", str(script)],
            cwd=cwd,
            env=step_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )
        step.log = process.stdout
        commands_seen = WorkflowCommands(step, annotations)
        for line in process.stdout.splitlines():
            commands_seen.feed(line)
        step.outputs.update(parse_file_command(files["OUTPUT"].read_text(encoding="utf-8")))
        env.update(parse_file_command(files["ENV"].read_text(encoding="utf-8")))
        added = [line for line in files["PATH"].read_text(encoding="utf-8").splitlines() if line]
        if added:
            env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
        step.outcome = "success" if process.returncode == 0 else "failure"
        return files["STEP_SUMMARY"].read_text(encoding="utf-8")


def default_stubs(machine: Machine) -> dict[str, Stub]:
    def setup_python(step: StepRun, inputs: dict[str, str]) -> dict[str, str]:
        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        if inputs.get("python-version") != here:
            raise StepFailed(f"the emulator has only Python {here}, not {inputs.get('python-version')}")
        return {"python-version": platform.python_version(), "python-path": sys.executable}

    def restore(step: StepRun, inputs: dict[str, str]) -> dict[str, str]:
        """The exact key, else the newest entry whose key starts with one of `restore-keys` (one a line)."""
        key = inputs["key"]
        saved = machine.cache_store / key
        if not saved.is_dir():
            prefixes = [line.strip() for line in inputs.get("restore-keys", "").splitlines() if line.strip()]
            for prefix in prefixes:
                matches = [p for p in machine.cache_store.iterdir() if p.name.startswith(prefix) and p.is_dir()]
                if matches:
                    saved = max(matches, key=lambda p: p.stat().st_mtime_ns)
                    break
            else:
                return {"cache-hit": "false"}
        machine.cache_restores.append(saved.name)
        target = Path(inputs["path"])
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(saved, target, symlinks=True)
        return {"cache-hit": str(saved.name == key).lower(), "cache-matched-key": saved.name}

    def save(step: StepRun, inputs: dict[str, str]) -> dict[str, str]:
        """Entries are immutable: a key saved once is never overwritten (the real service refuses it too)."""
        saved = machine.cache_store / inputs["key"]
        if not Path(inputs["path"]).exists():
            raise StepFailed(f"Path Validation Error: {inputs['path']} does not exist")
        if not saved.exists():
            shutil.copytree(inputs["path"], saved, symlinks=True)
        return {}

    def upload_sarif(step: StepRun, inputs: dict[str, str]) -> dict[str, str]:
        if not Path(inputs["sarif_file"]).is_file():
            raise StepFailed(f"Path does not exist: {inputs['sarif_file']}")
        if machine.upload_fails:
            raise StepFailed("Advanced Security must be enabled for this repository to use code scanning.")
        return {"sarif-id": "emulated"}

    return {
        "actions/setup-python": setup_python,
        "actions/cache/restore": restore,
        "actions/cache/save": save,
        "github/codeql-action/upload-sarif": upload_sarif,
    }


def workflow_step_inputs(step: Mapping[str, Any], machine: Machine) -> tuple[dict[str, str], dict[str, str]]:
    """A workflow step's `with:` and `env:`, evaluated in the job's contexts (secrets are empty, as on a fork)."""
    contexts = {"github": machine.github, "matrix": machine.matrix, "secrets": {}, "env": machine.job_env}
    evaluator = Evaluator(contexts, string_functions())
    inputs = {k: substitute(to_string(v), evaluator) for k, v in (step.get("with") or {}).items()}
    env = {k: substitute(to_string(v), evaluator) for k, v in (step.get("env") or {}).items()}
    return inputs, env
