"""The orders MCPL-D022 shows at medium, never blocking: a preference for this tool over another, and an order about
the server's own tool or an action its own tools take (the name-shaped enum values of their top-level parameters,
`action: list_databases`), where no secret goes anywhere."""

from __future__ import annotations

import re

from scanner.detectors.lazy_re import lazy
from scanner.lock.lockfile import ServerPin

MAX_OPERATIONS = 2_000  # enum values read per server: a schema is server-controlled input


def enum_values(server: ServerPin) -> tuple[str, ...]:
    """The string enum values of the server's tools' own top-level parameters, at most MAX_OPERATIONS: the actions
    its tools take (`action: list_databases`)."""
    out: list[str] = []
    for pin in server.tools.values():
        schema = pin.definition.get("inputSchema") if isinstance(pin.definition, dict) else None
        properties = schema.get("properties") if isinstance(schema, dict) else None
        for spec in properties.values() if isinstance(properties, dict) else ():
            values = spec.get("enum") if isinstance(spec, dict) else None
            for value in values if isinstance(values, list) else ():
                if isinstance(value, str) and len(out) < MAX_OPERATIONS:
                    out.append(value)
    return tuple(out)


# "To STORE a password for later checking, use `password_hash` instead" (mcp-bytesmith 0.4.1, which lists
# `password_hash`); "parent_database_id: MUST call list_databases first" (@contextstream/mcp-server 0.4.43, whose
# `integration` tool takes `action: list_databases`): an order about the server's own tool, or an action its own
# schemas offer, that sends no secret anywhere is documentation of that server. Graded medium: shown on a bump, never
# blocking it; a secret sent somewhere beside it is a payload.
OWN_NAME = "graded medium: the tool it orders about is {why}, and no secret goes anywhere"


# "Use this instead of 'execute_command' with ls/dir commands" (Desktop Commander 0.2.52): a preference for this
# tool over another, with no claim that the other is broken or unsafe and no argument set, is what honest servers
# say of overlapping tools. Graded medium: shown on a bump, never blocking it.
PREFERENCE = (
    "graded medium: only a preference for this tool over another (no claim that it is broken, deprecated or unsafe, "
    "no argument or call order given)"
)
_PREFERS = lazy(r"\b(?:instead of|rather than|in place of|prefer(?:red)? (?:this|it) (?:tool )?(?:over|to))\b",
                      re.IGNORECASE)
_MORE_THAN_PREFERENCE = lazy(
    r"\b(?:before|after|afterwards|first|then|must|always|never|do not|don't|deprecated|obsolete|retired|broken"
    r"|unsafe|disabled|insecure|removed|no longer|replace[sd]?|override|regardless|set|add|forward|send|route"
    r"|redirect|every|all)\b",
    re.IGNORECASE,
)


def preference_only(sentence: str) -> bool:
    """Whether an order's sentence only prefers this tool to another ("use this instead of X for Y")."""
    return bool(_PREFERS.search(sentence)) and not _MORE_THAN_PREFERENCE.search(sentence)
