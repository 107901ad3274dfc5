"""As of when a re-pin is reproduced: the moment just after the newest release the pull request's record pins,
by the registry the merge base declares.

The nightly job resolves at some time T and the pull request's check runs hours later; a release published in
between (common in a tree of hundreds of packages) makes today's resolution differ from an honest record.
Resolving "as of" the record's own time removes that: npm `--before`, uv `--exclude-newer`. The time is never
the pull request's word (a timestamp it wrote proves nothing): it is read from the base's registry, as the
publish time of the releases the record pins (scanner.artifacts.publish_times). Why that reproduces an honest
re-pin: everything the nightly picked was published by T, so at or before the cutoff C; a release published
between C and T was there at T and not picked, so leaving it out changes no choice (npm takes the `latest`
dist-tag where it satisfies the range and was published by C, else the highest version in range published by
C; uv the highest); a release published after T is left out, as it was at T.

Which releases set C: those the record newly pins (added, or at another version or content than the base's);
when none is new (only removals, or the same packages with other fields), every release of the record. The
others are the base's, so already no later than what the base itself was resolved at, and a resolution as of C
can only choose a release published by C, so the equality the review then demands bounds C from below by
every release it keeps: a record cannot pose an old resolution and keep a newer release of the base.

The bound on how far back: C may not be older than the newest release the record replaces or drops. Every
release the base pinned was published before the base was resolved, and an honest re-pin moves forward
because something was published since, so its newest new release is newer than every release it replaces.
A record whose newest release is older than one it replaces is a downgrade posing as a re-pin (a dist-tag
moved back, a release withdrawn, an old record copied in): it is refused here even where it is what the launch
resolves to today, and stays blocking for a person to read.

Left alone, on purpose: a cutoff later than the runner's clock is not clamped (it is the registry's clock on
both sides, and a later cutoff only resolves as today does, the old check); a dist-tag moved, a version
deprecated (npm avoids it) or a release yanked (uv skips it) between the nightly run and the check still makes
the resolution differ, and the re-pin blocks: that is a registry mutation a person should see.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scanner.artifacts.packument import RegistryError
from scanner.artifacts.publish_times import NPM, UV, Recorded, publish_times
from scanner.install.packages import tree_changes

NEW = ("added", "changed", "content")  # a release the record newly pins
REPLACED = ("removed", "changed", "content")  # a release of the base the record no longer pins
STEP = datetime.timedelta(milliseconds=1)  # both managers compare milliseconds


@dataclass(frozen=True)
class Cutoff:
    before: str  # ISO 8601 UTC, to the millisecond: what the package manager is given
    newest: str  # the release that sets it, and when it was published, for the reader


class NotReproducible(Exception):
    """No cutoff can be had (the message says why, in one line): the re-pin stays blocking."""


def repin_cutoff(
    base_tree: Mapping[str, Any], tree: Mapping[str, Any], source: str | None, deadline: float
) -> Cutoff:
    """The moment to resolve the launch as of, so that an honest re-pin to `tree` from `base_tree` resolves to
    exactly `tree`; NotReproducible when the registry cannot say, or the record is not a re-pin forward."""
    manager = tree.get("manager")
    if manager not in (NPM, UV) or base_tree.get("manager") != manager:
        raise NotReproducible(f"the record is not an npm or uv tree of the base's package manager ({manager})")
    if source is None:
        raise NotReproducible("no registry is configured to ask when its releases were published")
    changes = tree_changes(base_tree, tree)
    new = {_release(c.new) for c in changes if c.kind in NEW and c.new is not None}
    pins = new or {_release(p) for p in tree.get("packages") or [] if isinstance(p, Mapping)}
    replaced = {_release(c.old) for c in changes if c.kind in REPLACED and c.old is not None}
    try:
        times = publish_times(str(manager), source, pins | replaced, deadline)
    except RegistryError as error:
        raise NotReproducible(f"the base's registry cannot date the releases: {error}") from None
    newest = max(pins, key=lambda r: (times[r], str(r)))
    if replaced:
        latest_gone = max(replaced, key=lambda r: (times[r], str(r)))
        if times[newest] < times[latest_gone]:
            raise NotReproducible(
                f"a downgrade, not a re-pin forward: the newest release it pins, {newest} (published "
                f"{_shown(times[newest])}), is older than {latest_gone} (published {_shown(times[latest_gone])}), "
                "which the merge base pins and it drops"
            )
    # The first millisecond after the newest release: npm keeps what was published at or before `--before`, uv
    # what was uploaded before `--exclude-newer`; both at millisecond precision.
    moment = times[newest].replace(microsecond=times[newest].microsecond // 1000 * 1000) + STEP
    return Cutoff(_shown(moment), f"{newest}, published {_shown(times[newest])}")


def _release(package: Mapping[str, Any]) -> Recorded:
    digests = package.get("sha256")
    files = frozenset(d for d in digests if isinstance(d, str)) if isinstance(digests, list) else frozenset()
    return Recorded(str(package.get("name")), str(package.get("version")), files)


def _shown(at: datetime.datetime) -> str:
    return at.astimezone(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
