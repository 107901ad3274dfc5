"""The text detectors' hits on one text, computed once per distinct text (schemas repeat descriptions, types and
enum values): shared by the scan of new text and by the verdicts kept across runs."""

from __future__ import annotations

import functools

from scanner.detectors import Hit, scan_text

MIN_NAME = 16  # shorter property names (query, recipient_id) hold no sentence


@functools.lru_cache(maxsize=1 << 17)
def hits(text: str) -> tuple[Hit, ...]:
    """`scan_text` of `text`, remembered for the run."""
    return tuple(scan_text(text))
