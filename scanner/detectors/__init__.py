"""Deterministic detectors for poisoned text in MCP tool definitions.

``scan_text(text) -> list[Hit]``; rules live in ``catalogue.yaml`` (loaded lazily, once).
"""

from .engine import CATALOGUE_VERSION, SEVERITIES, CatalogueError, Hit, Rule, load_catalogue, rule_class, scan_text

__all__ = [
    "CATALOGUE_VERSION",
    "SEVERITIES",
    "CatalogueError",
    "Hit",
    "Rule",
    "load_catalogue",
    "rule_class",
    "scan_text",
]
