"""Untrusted text made inert in GitHub-flavoured Markdown.

Everything a server says (names, descriptions, evidence) reaches the summary only inside code: a code
span in a table cell, `<code>` in HTML, or a fenced block. GitHub neither links URLs nor turns
`@org/team` into a mention inside code, and no Markdown or HTML in it renders. A code span's backtick
run and a fence are longer than any backtick run in the text, so the text cannot close them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scanner.reporters.console import printable

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")
_NEWLINES = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
_BACKTICKS = re.compile(r"`+")
_REMOVED = re.compile(r"\[-(.*?)-\]", re.DOTALL)
_ADDED = re.compile(r"\{\+(.*?)\+\}", re.DOTALL)
LINE_LIMIT = 400  # characters of one line of a diff block


def escape_html(text: str) -> str:
    """Text for an HTML context on one line: entities for `&`, `<`, `>`, `"`; newlines become spaces."""
    text = _NEWLINES.sub(" ", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def escape_cell(text: str) -> str:
    """Text for one GFM table cell: HTML-escaped, on one line, Markdown punctuation backslash-escaped."""
    text = escape_html(text)
    # Backslash-escape Markdown syntax (a pipe would end the cell, a backtick open a code span);
    # entities from escape_html hold only `&`, `#`, letters and `;`, and `&` is left alone.
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def code_span(text: str, limit: int = 300, *, in_table: bool = True) -> str:
    """`text` as an inline code span on one line; in a table cell its pipes are escaped (GFM unescapes them)."""
    text = shorten(printable(text), limit) or " "
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    # Padded with one space each side: CommonMark strips exactly that, so a leading backtick is safe.
    return f"{ticks} {text} {ticks}"


def html_code(text: str, limit: int = 120) -> str:
    """`text` in an HTML `<code>` element, for a `<summary>` line."""
    return f"<code>{escape_html(shorten(printable(text), limit))}</code>"


def fence_for(lines: Sequence[str]) -> str:
    """A backtick fence longer than any backtick run in `lines`, so no line can close it."""
    longest = max((len(run) for line in lines for run in _BACKTICKS.findall(line)), default=0)
    return "`" * max(3, longest + 1)


def diff_lines(details: Sequence[str]) -> list[str]:
    """Detail lines for a ```diff fence, so GitHub colours them.

    `- old` / `+ new` markers move to column 1; a word-level diff (`[-old-]{+new+}`) becomes a removed and
    an added line; other lines become context (one leading space).
    """
    out: list[str] = []
    for detail in details:
        for line in _NEWLINES.split(detail):
            stripped = line.lstrip(" ")
            if stripped[:2] in ("- ", "+ "):
                out.append(stripped)
            elif _REMOVED.search(line) or _ADDED.search(line):
                out.append("- " + _ADDED.sub("", _REMOVED.sub(r"\1", line)))
                out.append("+ " + _REMOVED.sub("", _ADDED.sub(r"\1", line)))
            else:
                out.append(" " + line)
    return [shorten(printable(line), LINE_LIMIT) for line in out]
