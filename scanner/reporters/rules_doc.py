"""docs/rules.md, rendered from the rule table so the docs cannot drift from the code."""

from __future__ import annotations

from scanner.diff.grade import TABLE
from scanner.rules import RULES


def render_rules_doc() -> str:
    lines = [
        "# Rules",
        "",
        "Generated from `scanner/rules.py` by `python -m scanner.reporters.rules_doc`; do not edit by hand.",
        "A *blocking* finding fails `mcp-lock check` (exit 1).",
        "",
        "| id | severity | blocking | summary |",
        "|---|---|---|---|",
    ]
    lines += [f"| [`{r.id}`](#{r.id}) | {r.severity} | {'yes' if r.blocking else 'no'} | {r.summary} |" for r in RULES]
    for rule in RULES:
        lines += ["", f"## {rule.id}", "", f"**{rule.summary}.** Severity {rule.severity}.", "", rule.help]
    lines += ["", "## Change classes", "", "A `*-changed` finding takes the severity of its most severe change:", ""]
    lines += ["| class | severity | what changed |", "|---|---|---|"]
    lines += [f"| `{cls}` | {severity} | {what} |" for cls, severity, what in _change_classes()]
    return "\n".join(lines) + "\n"


def _change_classes() -> list[tuple[str, str, str]]:
    rows = [line.split(None, 2) for line in TABLE.splitlines()[1:] if line.strip()]
    return [(row[0], row[1], row[2].replace("|", "\\|") if len(row) > 2 else "") for row in rows]


if __name__ == "__main__":
    print(render_rules_doc(), end="")
