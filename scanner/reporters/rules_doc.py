"""docs/rules.md, rendered from the rule table so the docs cannot drift from the code."""

from __future__ import annotations

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
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_rules_doc(), end="")
