"""The local runner's own semantics (tests/actions_runner.py), checked against GitHub's documented behaviour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from actions_expressions import Evaluator, ExpressionError, condition, string_functions, substitute
from actions_runner import ActionRunner, Annotation, Machine, StepRun, WorkflowCommands, parse_file_command

CONTEXTS: dict[str, Any] = {
    "inputs": {"upload-sarif": "true", "category": "mcp-lock"},
    "github": {"event": {"pull_request": {"head": {"repo": {"fork": False}}}}, "event_name": "pull_request"},
    "steps": {"scan": {"outputs": {"exit-code": "1", "sarif-file": ""}}},
    "env": {"X": "x"},
}


def evaluator(failed: bool = False) -> Evaluator:
    functions = {
        **string_functions(),
        "always": lambda: True,
        "cancelled": lambda: False,
        "success": lambda: not failed,
        "failure": lambda: failed,
    }
    return Evaluator(CONTEXTS, functions)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("inputs.upload-sarif == 'true'", True),
        ("inputs.upload-sarif == 'TRUE'", True),  # strings compare case-insensitively
        ("github.event.pull_request.head.repo.fork != true", True),
        ("github.event.push.nothing != true", True),  # null is 0, true is 1
        ("github.event.push.nothing == ''", True),  # both are 0 as numbers
        ("steps.scan.outputs.sarif-file != ''", False),
        ("steps.scan.outputs['exit-code'] == 1", True),
        ("!cancelled() && env.X == 'x'", True),
        ("inputs.category && 'yes' || 'no'", "yes"),
        ("inputs.missing && 'yes' || 'no'", "no"),
        ("(1 < 2) && !(2 <= 1)", True),
        ("startsWith(inputs.category, 'MCP')", True),
    ],
)
def test_expressions(expression: str, value: Any) -> None:
    assert evaluator().evaluate(expression) == value


def test_an_if_without_a_status_function_implies_success() -> None:
    assert condition("inputs.upload-sarif == 'true'", evaluator()) is True
    assert condition("inputs.upload-sarif == 'true'", evaluator(failed=True)) is False
    assert condition("${{ always() && inputs.upload-sarif == 'true' }}", evaluator(failed=True)) is True
    assert condition("failure()", evaluator(failed=True)) is True


def test_substitution_and_errors() -> None:
    assert substitute("a-${{ steps.scan.outputs.exit-code }}-${{ github.nothing }}", evaluator()) == "a-1-"
    with pytest.raises(ExpressionError):
        evaluator().evaluate("secrets.TOKEN")  # a context the caller did not provide
    with pytest.raises(ExpressionError):
        evaluator().evaluate("inputs.category ==")


def test_file_commands_with_heredoc() -> None:
    text = "a=1\nb<<EOF\nline 1\nline=2\nEOF\nc=x=y\n"
    assert parse_file_command(text) == {"a": "1", "b": "line 1\nline=2", "c": "x=y"}
    with pytest.raises(ValueError):
        parse_file_command("b<<EOF\nno end\n")


def test_workflow_commands_and_stop_commands() -> None:
    step, annotations = StepRun("s", "s"), []
    commands = WorkflowCommands(step, annotations)
    for line in [
        "::error file=a,line=1::bad%0Anews",
        "::stop-commands::tok",
        "::set-output name=exit-code::0",
        "::warning::ignored",
        "::tok::",
        "::set-output name=findings::3",
    ]:
        commands.feed(line)
    assert annotations == [Annotation("error", "file=a,line=1", "bad\nnews")]
    assert step.outputs == {"findings": "3"}


def test_a_composite_action_end_to_end(tmp_path: Path) -> None:
    action = tmp_path / "action"
    action.mkdir()
    (action / "action.yml").write_text(
        """
name: t
description: t
inputs:
  word: {description: w, default: hello}
outputs:
  said: {description: s, value: "${{ steps.say.outputs.said }}"}
runs:
  using: composite
  steps:
    - id: say
      shell: bash
      env: {WORD: "${{ inputs.word }}"}
      run: |
        echo "said=$WORD" >> "$GITHUB_OUTPUT"
        echo "FROM_ENV=1" >> "$GITHUB_ENV"
        echo "# summary" >> "$GITHUB_STEP_SUMMARY"
    - id: fail
      shell: bash
      continue-on-error: true
      run: test "$FROM_ENV" = 1 && exit 3
    - id: after
      if: steps.fail.outcome == 'failure'
      shell: bash
      run: echo "::notice::saw the failure"
    - id: never
      if: failure()
      shell: bash
      run: exit 1
""",
        encoding="utf-8",
    )
    machine = Machine(workspace=tmp_path, temp=tmp_path / "temp", cache_store=tmp_path / "cache")
    machine.temp.mkdir()
    run = ActionRunner(action, machine).run({"word": "hi"})
    assert run.outputs == {"said": "hi"}
    assert [s.outcome for s in run.steps] == ["success", "failure", "success", "skipped"]
    assert not run.failed and run.summary == "# summary\n"
    assert [a.message for a in run.annotations] == ["saw the failure"]
    with pytest.raises(ValueError):
        ActionRunner(action, machine).run({"wrod": "typo"})
