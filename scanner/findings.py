"""Findings live in `scanner.model.findings`; re-exported for the layers above the model."""

from scanner.model.findings import Finding, Location, LockLocation, SourceLocation, by_severity, ordered, unique

__all__ = ["Finding", "Location", "LockLocation", "SourceLocation", "by_severity", "ordered", "unique"]
