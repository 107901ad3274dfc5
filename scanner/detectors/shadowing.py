"""MCPL-D021: new text in one server that names a tool of another declared server (tool shadowing)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from scanner.detectors.checks import tool_mention, workspace_check
from scanner.detectors.lazy_re import lazy
from scanner.detectors.negation import sentences_spanning
from scanner.detectors.texts import changed_texts, paths_of, pin_texts
from scanner.lock.lockfile import Pin, ServerPin
from scanner.model.findings import Finding
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D021",
    Category.POISONING,
    "high",
    "New text in one server names a tool of another server",
    "A description or other text that is new since the pin mentions a distinctive tool name (send_email, "
    "readFile) that another declared server offers: the way one server steers the model into misusing, "
    "or replacing, another's tool (tool shadowing). Measured: fires on 3 of 5,277 real benign definitions "
    "(bench/detectors/README.md). Filed as suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)


# A name distinctive enough that mentioning it is a reference, not an English word: a separator or an
# inner capital (send_email, get-docs, readFile) and at least five characters.
DISTINCTIVE = lazy(r"^(?=.{5,}$)[A-Za-z0-9]+(?:[_\-.][A-Za-z0-9]+)+$|^[a-z0-9]+(?:[A-Z][a-z0-9]*)+$")


def no_name(pin: Pin) -> bool:
    """No text of the definition but its own name (at /name: never a mention) could hold a distinctive tool name,
    whatever the declared servers list (see MAYBE_NAME). One text equal to the name is left out, wherever it stands:
    an equal text elsewhere is read, and what it could mention is what the name itself could."""
    name = pin.definition.get("name") if isinstance(pin.definition, dict) else None
    left_out = not isinstance(name, str)
    for text in pin_texts(pin):
        if not left_out and text == name:
            left_out = True
        elif MAYBE_NAME.search(text):
            return False
    return True


@workspace_check(RULE, screen=no_name)
def shadowing_findings(
    live: Mapping[str, ServerPin], baseline: Mapping[str, ServerPin | None]
) -> list[Finding]:
    """New text in one server that names a tool of another declared server: how shadowing starts.

    `live` holds every server's current pin; `baseline[key]` is what was pinned before (None: all new).
    """
    owners: dict[str, list[str]] = {}
    for key, server in sorted(live.items()):
        for name in server.tools:
            if DISTINCTIVE.match(name):
                owners.setdefault(name, []).append(key)
    if not owners:
        return []
    findings: list[Finding] = []
    # Without a dotted owned name, every mention `_mentions` can find is one part of a run (between dots):
    # a text none of whose parts is owned mentions nothing, which one C-speed set test shows.
    undotted = not any("." in name for name in owners)
    for key, server in sorted(live.items()):
        before = baseline.get(key)
        for kind, name, definition, texts, known in changed_texts(server, before):
            paths: list[str] | None = None
            for index, text in enumerate(texts):
                # Every owned name has a separator between letters or digits, or a capital after one: text
                # without either (most descriptions) mentions none.
                if text in known or not MAYBE_NAME.search(text):
                    continue
                if undotted and owners.keys().isdisjoint(_PART.findall(text)):
                    continue
                for mentioned, start, end in _mentions(text, owners):
                    if key in owners[mentioned] or mentioned in server.tools or (before and mentioned in before.tools):
                        continue  # its own tool or former name, or a name both servers offer
                    paths = paths or paths_of(definition)
                    path = paths[index]
                    if path == "/name":
                        break  # a definition's own name is not a mention
                    evidence = _quote(text, start, end)
                    found = owners[mentioned]
                    whose = (f"a tool of server {found[0]}" if len(found) == 1
                             else f"a tool name declared servers {', '.join(found)} each list (ambiguous)")
                    findings.append(tool_mention(RULE, key, kind, name, path, f"names `{mentioned}`", whose, evidence))
                    break
    return findings


def _quote(text: str, start: int, end: int) -> str:
    """The sentence holding the mention `text[start:end]`, at most 60 characters either side of it: a quote an
    edit to another sentence leaves as it was, so a finding on pinned wording is known again (`diff.carried`)."""
    first, stop = sentences_spanning(text, start, end)
    return text[max(first, start - 60) : min(stop, end + 60)].strip()


# Finds what every DISTINCTIVE name contains (see `shadowing_findings`): a separator between two letters or
# digits, or a capital after a small letter or digit. It starts at the separator or capital, so that the search
# skips to those characters at C speed (a class first), then looks around.
MAYBE_NAME = lazy(r"[_.\-A-Z](?:(?<=[A-Za-z0-9][_.\-])(?=[A-Za-z0-9])|(?<=[a-z0-9][A-Z]))")


# A run of name characters; a mention starts at its start or after a dot in it, and ends at a dot or its end.
_RUN = lazy(r"[\w.-]+")
_PART = lazy(r"[\w-]+")  # a run's part between dots


def _mentions(text: str, names: Mapping[str, object]) -> Iterator[tuple[str, int, int]]:
    """Each `(name, start, end)` of `names` in `text` not inside a longer word, left to right, longest first.

    What `(?<![\\w-])(n1|n2|…)(?![\\w-])` with the names longest first finds, without building that
    alternation: with ten thousand tool names it cost seconds per `lock`.
    """
    for run in _RUN.finditer(text):
        token = run.group()
        if "." not in token:
            if token in names:
                yield token, run.start(), run.end()
            continue
        parts = token.split(".")
        starts = [0]
        for part in parts:
            starts.append(starts[-1] + len(part) + 1)
        i = 0
        while i < len(parts):
            for j in range(len(parts), i, -1):
                candidate = token[starts[i] : starts[j] - 1]
                if candidate in names:
                    yield candidate, run.start() + starts[i], run.start() + starts[j] - 1
                    i = j
                    break
            else:
                i += 1
