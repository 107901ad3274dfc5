"""The example workflows in docs/ci.md and docs/renovate.md are real workflows: schema-valid, clean under
zizmor but for our own tag, and their mcp-lock step runs (through tests/actions_runner.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_harness import (  # noqa: F401  (fixtures)
    MakeRunner,
    action_dir_fixture,
    demo_fixture,
    make_runner_fixture,
    pinned_demo_fixture,
    runner_home_fixture,
)
from actions_runner import Machine, workflow_step_inputs

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CI_DOC = ROOT / "docs" / "ci.md"
DOCS = (CI_DOC, ROOT / "docs" / "renovate.md")
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def workflows() -> list[str]:
    blocks = [b for doc in DOCS for b in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)]
    return [block for block in blocks if re.search(r"^jobs:", block, re.M)]


@pytest.fixture
def workflow_dir(tmp_path: Path) -> Path:
    directory = tmp_path / ".github" / "workflows"
    directory.mkdir(parents=True)
    for index, text in enumerate(workflows()):
        (directory / f"example{index}.yml").write_text(text, encoding="utf-8")
    return directory


def test_the_guide_shows_the_gate_the_nightly_and_the_matrix() -> None:
    texts = workflows()
    assert len(texts) >= 3
    assert any("pull_request:" in t for t in texts)
    assert any("schedule:" in t for t in texts)
    assert any("matrix:" in t and "shard:" in t for t in texts)
    assert any("startsWith(github.head_ref, 'renovate/')" in t and "summary-file" in t for t in texts)
    assert any("tags:" in t and '"$MCPL" semver ' in t and "fetch-depth: 0" in t for t in texts)
    # No example installs mcp-lock from a package index: it is on none, and an unclaimed name invites squatting.
    assert not any(re.search(r"pip3? install[^\n]*mcp-lock(?![-/\w])", t) for t in texts)
    release = next(t for t in texts if '"$MCPL" semver ' in t)
    assert "MCPL: ${{ steps.mcp-lock.outputs.cli }}" in release
    # The release gate boots the release commit's code: never on a pull request, whose author names the branch.
    triggers = yaml.safe_load(release)[True]  # YAML 1.1 reads the `on:` key as true
    assert set(triggers) == {"push"} and "head_ref" not in release
    assert not any("pull_request_target" in t for t in texts)


def test_no_document_installs_mcp_lock_from_a_package_index() -> None:
    index_install = re.compile(
        r"(?:pip3?|pipx|uv pip|uv tool) install(?:\s+-\S+)*\s+[\"']?mcp-lock(?:[=<>~!]|[\"'\s]|$)"
        r"|uvx mcp-lock\b|mcp-lock==",
        re.M,
    )
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        found = index_install.findall(doc.read_text(encoding="utf-8"))
        assert not found, (doc.name, found)


def test_every_example_matches_the_workflow_schema(workflow_dir: Path) -> None:
    files = sorted(workflow_dir.glob("*.yml"))
    result = subprocess.run(
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", *files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_flags_only_the_tag_a_document_must_use_for_mcp_lock(workflow_dir: Path) -> None:
    result = subprocess.run(
        [BIN / "zizmor", "--offline", "--no-progress", "--format", "json", workflow_dir.parent.parent],
        capture_output=True,
        text=True,
        timeout=120,
    )
    findings = [(f["ident"], f["locations"][0]["concrete"]["feature"]) for f in json.loads(result.stdout)]
    ours = [f for f in findings if f[0] == "unpinned-uses" and "uses: mcp-lock/mcp-lock@" in f[1]]
    assert len(ours) == len(workflows())  # zizmor did audit every example
    assert [f for f in findings if f not in ours] == []
    # Every other action is pinned by SHA, as the guide tells readers to do.
    for text in workflows():
        for ref in re.findall(r"uses:\s*(\S+)", text):
            assert ref.startswith("mcp-lock/mcp-lock@") or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


def test_the_guide_sets_up_the_servers_runtimes_before_the_check() -> None:
    example = next(t for t in workflows() if "actions/setup-node@" in t)
    order = [ref.split("@")[0] for ref in re.findall(r"uses:\s*(\S+)", example)]
    check = order.index("mcp-lock/mcp-lock")
    assert {"actions/setup-node", "astral-sh/setup-uv"} <= set(order[:check])


def test_the_guide_says_which_runners_the_action_supports() -> None:
    text = CI_DOC.read_text(encoding="utf-8")
    section = text[text.index("### Runners: Linux only") :]
    assert "**Windows**: not supported" in section and "$venv/bin" in section
    assert "**macOS**: not supported" in section and "`sandbox: off`" in section


# --- the mcp-lock step of every example, run through the local runner ------------------------


def mcp_lock_step(text: str) -> dict[str, Any]:
    jobs = yaml.safe_load(text)["jobs"]
    steps = [step for job in jobs.values() for step in job["steps"]]
    return next(step for step in steps if str(step.get("uses", "")).startswith("mcp-lock/mcp-lock@"))


def test_every_example_uses_only_the_actions_inputs_and_outputs() -> None:
    for text in workflows():
        step = mcp_lock_step(text)
        assert set(step.get("with") or {}) <= set(ACTION["inputs"]), step
        read = re.findall(rf"steps\.{re.escape(step.get('id', '-'))}\.outputs\.([\w-]+)", text)
        assert set(read) <= set(ACTION["outputs"]), read
    bump = next(t for t in workflows() if "summary-file" in t)
    assert "steps.mcp-lock.outputs.summary-file" in bump


def events(text: str) -> list[str]:
    """The events an example's mcp-lock step is run for: push and pull_request where the workflow has
    them; a schedule or manual run has no pull request, as a push has none."""
    spec = yaml.safe_load(text)
    on = spec.get("on", spec.get(True))  # YAML 1.1 reads the bare key `on` as true
    names = [on] if isinstance(on, str) else list(on)
    return [event for event in ("push", "pull_request") if event in names] or ["push"]


def pull_request_event(demo: Path) -> dict[str, Any]:
    """A pull request whose base is the demo committed as it is (the merge base `base` needs)."""
    git = ["git", "-C", str(demo), "-c", "user.name=ci", "-c", "user.email=ci@example.invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *command], check=True, capture_output=True, timeout=60)
    sha = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True, timeout=60).stdout
    pull_request = {"number": 1, "base": {"sha": sha.strip()}, "head": {"repo": {"fork": False}}}
    return {"event_name": "pull_request", "head_ref": "renovate/demo-1.x", "event": {"pull_request": pull_request}}


@pytest.mark.network  # the first emulated run installs the action's hashed lock
@pytest.mark.slow
@pytest.mark.parametrize(("index", "event"), [(i, e) for i, text in enumerate(workflows()) for e in events(text)])
def test_every_examples_mcp_lock_step_runs_on_the_demo(
    index: int, event: str, demo: Path, make_runner: MakeRunner
) -> None:
    """With:/env: evaluated for the event (no secrets, as on a fork) and matrix shard 1."""
    text = workflows()[index]
    github = pull_request_event(demo) if event == "pull_request" else {"event_name": "push", "event": {}}
    context = Machine(workspace=demo, temp=demo, cache_store=demo, github=github)
    context.matrix = {"shard": 1}
    inputs, env = workflow_step_inputs(mcp_lock_step(text), context)
    run = make_runner(demo, github=context.github, matrix=context.matrix, job_env=env).run(inputs)
    assert not run.failed, run.log
    assert run.outputs["exit-code"] == "0", run.log
    expected = inputs.get("category", "mcp-lock")
    if "shard" in inputs:
        expected += "-shard-1-of-" + inputs["shard"].split("/")[1]
    assert run.outputs["category"] == expected
    assert run.step("upload").inputs["category"] == expected
    if "outputs.summary-file" in text:  # the bump review posts this file as a comment
        report = Path(run.outputs["summary-file"])
        assert report.read_text(encoding="utf-8").strip() and report.read_text(encoding="utf-8") in run.summary
        # upload-artifact keeps the file's name; the comment job reads it under that name
        assert set(re.findall(r"summary/([\w.-]+\.md)", text)) == {report.name}
