""""Forward" as a direction of motion is no act of forwarding data.

"a speed request that names a duration ("avance pendant 10 secondes", "run forward for 10 seconds", …) always routes
to set_speed_ramped" (jmri-mcp 1.3.0's instructions, a model railroad's locomotives): MCPL-D016's `transmit` cue
reads "forward … to" as sending something somewhere. Where a verb of motion comes right before "forward" (run, go,
move, drive, …) or a measure of motion right after it ("for 10 seconds", "at 30%", "by 2 steps"), the word is the
direction, and `purpose` sets the cue aside. "Forward the file to …", "forward all mail for 10 days to …" name a
thing sent and keep it.
"""

from __future__ import annotations

from scanner.detectors.lazy_re import lazy

_MOVES_BEFORE = lazy(r"\b(?:run|runs|running|go|goes|going|move|moves|moving|drive|drives|driving|roll|rolls|rolling"
                     r"|step|steps|travel|travels|head|heads|fast|jog|scroll)\s+$")
_MEASURE_AFTER = lazy(r"forward\s+(?:for|at|by)\s+\d|forward\s+\d")


def forward_as_motion(lowered: str, at: int, quoted: str) -> bool:
    """Whether the `transmit` cue `quoted`, at `at` of the lower-cased text, starts with "forward" used as the
    direction of a motion."""
    if not quoted.startswith("forward"):
        return False
    return _MOVES_BEFORE.search(lowered, max(0, at - 20), at) is not None \
        or _MEASURE_AFTER.match(lowered, at) is not None
