"""The example workflows in docs/ci.md and docs/renovate.md are real workflows: schema-valid, and clean
under zizmor but for our own tag."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DOCS = (ROOT / "docs" / "ci.md", ROOT / "docs" / "renovate.md")


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
    assert any("tags:" in t and re.search(r"/mcp-lock\" semver ", t) and "fetch-depth: 0" in t for t in texts)
    assert not any("pull_request_target" in t for t in texts)


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
