"""The kinds of definition a server lists, and every name each kind goes by."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    key: str  # the wire and lockfile key: "resourceTemplates"
    attribute: str  # the Python attribute holding them on a pin: "resource_templates"
    name_field: str  # the field that names one definition: "name", "uri", "uriTemplate"
    word: str  # in rule ids: "resource-template"
    noun: str  # in prose: "resource template"
    list_method: str  # the JSON-RPC method that lists them
    capability: str  # the server capability that advertises them
    sarif_kind: str  # SARIF logicalLocation.kind


KINDS: tuple[Kind, ...] = (
    Kind("tools", "tools", "name", "tool", "tool", "tools/list", "tools", "function"),
    Kind("prompts", "prompts", "name", "prompt", "prompt", "prompts/list", "prompts", "resource"),
    Kind("resources", "resources", "uri", "resource", "resource", "resources/list", "resources", "resource"),
    Kind(
        "resourceTemplates",
        "resource_templates",
        "uriTemplate",
        "resource-template",
        "resource template",
        "resources/templates/list",
        "resources",
        "resource",
    ),
)
KIND_KEYS: tuple[str, ...] = tuple(kind.key for kind in KINDS)
KIND_BY_KEY: dict[str, Kind] = {kind.key: kind for kind in KINDS}


def counted(count: int, kind_key: str) -> str:
    """`1 prompt`, `2 tools`, `3 resource templates`: a count of definitions in prose."""
    noun = KIND_BY_KEY[kind_key].noun
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
