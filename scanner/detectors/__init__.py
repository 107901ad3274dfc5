"""Detectors for poisoned or risky text in MCP definitions, each one registered rule.

``scan_text(text) -> list[Hit]`` runs the regex and code-point detectors of ``catalogue.yaml`` (loaded
lazily, once; a regex detector is one catalogue entry). A structural check is one module that registers
itself with ``checks``; the imports below are the one list of them.
"""

from . import destructive, directives, fixed_recipients, out_of_scope, shadowing, unknown_calls
from .checks import SERVER_CHECKS, WORKSPACE_CHECKS, run_server_checks, run_workspace_checks
from .engine import CATALOGUE_VERSION, CatalogueEntry, CatalogueError, Hit, load_catalogue, rule_class, scan_text

STRUCTURAL_CHECKS = (destructive, shadowing, directives, out_of_scope, unknown_calls, fixed_recipients)


def register_all() -> None:
    """Register every detector's rule: the structural checks are registered on import, the catalogue on load."""
    load_catalogue()


__all__ = [
    "CATALOGUE_VERSION",
    "SERVER_CHECKS",
    "STRUCTURAL_CHECKS",
    "WORKSPACE_CHECKS",
    "CatalogueEntry",
    "CatalogueError",
    "Hit",
    "load_catalogue",
    "register_all",
    "rule_class",
    "run_server_checks",
    "run_workspace_checks",
    "scan_text",
]
