"""docs/rules.md, rendered from the rule registry so the docs cannot drift from the code."""

from __future__ import annotations

from scanner.detectors import register_all
from scanner.diff.change import CHANGE_CLASSES
from scanner.model.rules import REGISTRY, RULES, Category, Rule


def render_rules_doc() -> str:
    register_all()
    checks = sorted(REGISTRY.checks(), key=lambda rule: rule.id)
    lines = [
        "# Rules",
        "",
        "Generated from the rule table (`scanner/model/rules.yaml`, the detector catalogue "
        "`scanner/detectors/catalogue.yaml` and the check modules in `scanner/detectors/`) by "
        "`python -m scanner.reporters.rules_doc`; do not edit by hand.",
        "A *blocking* finding fails `mcp-lock check` (exit 1).",
        "",
        "| id | category | severity | blocking | summary |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| [`{r.id}`](#{r.anchor}) | {r.category} | {r.severity} | {'yes' if r.blocking else 'no'} | {r.summary} |"
        for r in RULES
    ]
    for rule in RULES:
        lines += ["", f"## {rule.id}", "", _lead(rule), "", rule.help]
    lines += [
        "",
        "## Checks",
        "",
        "Each detector is a check with its own id. In text and JSON its findings are reported under the rule "
        "the table names and quote the check's id in brackets, e.g. `[MCPL-D010]`; a hit takes the check's "
        "severity. In SARIF each check is its own rule, `MCPL-Dnnn` (with a severity variant such as "
        "`MCPL-D020/high` for a finding graded away from the check's default), tagged with the check's own "
        "category, which the JSON report's `category` and the text report's brackets repeat:",
        "",
        *(f"- `{category}`: {meaning}" for category, meaning in DETECTOR_CATEGORIES),
        "",
        "So only a `poisoning` rule claims that text is aimed at the model; a `capability` note (a tool that "
        "can destroy something) or a `correctness` note never carries that tag.",
        "",
        "| id | category | severity | filed as | summary |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| [`{r.id}`](#{r.anchor}) | {r.category} | {r.severity} | `{r.reported_as}` | {_cell(r.summary)} |"
        for r in checks
    ]
    for rule in checks:
        lines += ["", f"### {rule.id}", "", _lead(rule), "", rule.help]
    lines += ["", "## Change classes", "", "A `*-changed` finding takes the severity of its most severe change. "
              "*Bump* is the version bump `mcp-lock semver` requires for the change; *in outputSchema* the bump "
              "when the change is inside a tool's outputSchema (the server writes it, the caller reads it). "
              "See [semver.md](semver.md) for the reasons.", ""]
    lines += ["| class | severity | bump | in outputSchema | what changed |", "|---|---|---|---|---|"]
    lines += [
        f"| `{c.name}` | {c.severity} | {c.bump} | {c.output_bump} | {_cell(c.what)} |" for c in CHANGE_CLASSES
    ]
    return "\n".join(lines) + "\n"


DETECTOR_CATEGORIES = (
    (Category.POISONING, "text aimed at the model rather than the user: hidden, overriding or exfiltrating orders"),
    (Category.CAPABILITY, "what a tool can do, worth a reviewer's look, not a claim of an attack"),
    (Category.CORRECTNESS, "what a server sends is malformed or odd"),
)


def _lead(rule: Rule) -> str:
    return f"**{rule.summary}.** Category {rule.category}. Severity {rule.severity}."


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


if __name__ == "__main__":
    print(render_rules_doc(), end="")
