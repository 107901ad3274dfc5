"""A container launch boots by the image digest the lock records (issue 35 item 10).

`docker run … IMAGE:TAG` runs whatever the tag names on this runner today; the lock records the digest the
engine pulled when the launch was pinned (scanner.artifacts.image). For a launch still equal to its pin,
`check` rewrites the image word to `REPOSITORY@sha256:…`, so the engine runs exactly the reviewed image (or
pulls it by digest), never what the tag has moved to. The record the boot makes of that image is then the
pinned one: the digest is the content.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from scanner.artifacts.record import IMAGE
from scanner.lock.lockfile import ServerPin, launch_diff
from scanner.sources.declarations import Server
from scanner.sources.unpinned import DOCKER_FLAGS

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
RUNNERS = ("docker", "podman")


def digest_args(
    command: str | None, args: tuple[str, ...], artifact: Mapping[str, Any] | None
) -> tuple[str, ...] | None:
    """`args` with the image word replaced by the recorded digest reference; None when the launch is not a
    `docker|podman run` of the image `artifact` records, or that record has no registry digest."""
    if command is None or os.path.basename(command) not in RUNNERS or args[:1] != ("run",) or not artifact:
        return None
    digest = artifact.get("digest")
    if artifact.get("type") != IMAGE or not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        return None
    index = _image_index(args)
    if index is None or args[index] != artifact.get("name") or "$" in args[index]:
        return None
    return (*args[:index], f"{_repository(args[index])}@{digest}", *args[index + 1 :])


def pin_images(servers: Sequence[Server], pins: Mapping[str, ServerPin]) -> tuple[list[Server], dict[str, str]]:
    """`servers` with each container launch still equal to its pin booted by its recorded digest, and those
    digests by server key."""
    booted: list[Server] = []
    digests: dict[str, str] = {}
    for server in servers:
        pin = pins.get(server.key)
        rewritten = None
        if pin is not None and server.template is not None and launch_diff(pin.launch, server.template.spec()) is None:
            rewritten = by_digest(server, pin.artifact)
        if rewritten is not None and pin is not None and pin.artifact is not None:
            digests[server.key] = str(pin.artifact["digest"])
        booted.append(rewritten or server)
    return booted, digests


def by_digest(server: Server, artifact: Mapping[str, Any] | None) -> Server | None:
    """`server` launched by the image digest of `artifact`, or None when that does not apply."""
    launch = server.primary.resolved
    if launch is None:
        return None
    args = digest_args(launch.command, launch.args, artifact)
    if args is None:
        return None
    primary = dataclasses.replace(server.primary, resolved=dataclasses.replace(launch, args=args))
    return Server(server.key, [primary, *server.declarations[1:]])


def _image_index(args: tuple[str, ...]) -> int | None:
    """Where the image is in `run …` (the same reading as scanner.sources.unpinned)."""
    index = 1
    while index < len(args):
        word = args[index]
        if not word.startswith("-"):
            return index
        index += 1 if "=" in word or word in DOCKER_FLAGS else 2
    return None


def _repository(reference: str) -> str:
    name = reference.split("@", 1)[0]
    slash, colon = name.rfind("/"), name.rfind(":")
    return name[:colon] if colon > slash else name
