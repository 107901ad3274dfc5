"""Reading YAML that a hostile repository controls: no aliases, and errors that do not quote the file.

A YAML alias (`*name`) repeats an anchored node wherever it is named; nine levels of nine aliases in a
457-byte file stand for 387 million strings, and any walk over the value (validation, an error message that
prints it) expands them all. No config mcp-lock reads needs an alias, so the loader refuses the first one, at
its line and column, before anything is built from it: the cost of a file is linear in its size.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

ALIAS_PROBLEM = "aliases (*name) are not supported: write the value out in full"
# What an error may show of a value from the file: a short scalar, else only its kind.
_SHOWN_LIMIT = 40


@functools.cache
def _no_alias_loader() -> type:
    """PyYAML's safe loader, refusing any alias while the node tree is composed (before construction).

    Made on first use: PyYAML is imported only by a run that reads a YAML file of the repository's
    (most read none: .mcp.json is JSON), not before every run's first server starts (issue 39 item 2)."""
    import yaml

    class NoAliasLoader(yaml.SafeLoader):
        def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(None, None, ALIAS_PROBLEM, event.start_mark)
            return super().compose_node(parent, index)  # type: ignore[no-any-return]

    return NoAliasLoader


def load(text: str) -> Any:
    """The value of a YAML document, as `yaml.safe_load` builds it; a MarkedYAMLError at the first alias."""
    import yaml

    return yaml.load(text, Loader=_no_alias_loader())


def compose(text: str) -> yaml.Node | None:
    """The node tree of a YAML document (for line numbers), refusing aliases as `load` does."""
    import yaml

    return yaml.compose(text, Loader=_no_alias_loader())


def shown(value: Any) -> str:
    """`value` for an error message: a short scalar as written (repr), anything else by its kind only."""
    if isinstance(value, bool | float) or value is None or (isinstance(value, int) and abs(value) < 10**15):
        return repr(value)
    if isinstance(value, str) and len(value) <= _SHOWN_LIMIT and value.isprintable():
        return repr(value)
    kinds = {str: "a string", int: "a number", list: "a list", dict: "a mapping"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), f"a {type(value).__name__}")
