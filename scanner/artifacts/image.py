"""What `docker run`/`podman run` ran: the engine's own record of the image (`image inspect`), never a pull."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

from scanner.artifacts.record import IMAGE
from scanner.files.bounded_json import AnswerError, Bounds, parse

INSPECT_TIMEOUT = 10.0
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
OUTPUT_LIMIT = 1024 * 1024


def image_artifact(runner: str, image: str, env: dict[str, str]) -> dict[str, Any] | None:
    """The registry digest of `image` as the engine `runner` recorded it when it pulled it (RepoDigests); None
    when the engine cannot say, or the image was built here (its local id differs on every machine and build,
    so pinning it would fail every other checkout)."""
    engine = shutil.which(runner, path=env.get("PATH", os.defpath))
    if engine is None:
        return None
    command = [engine, "image", "inspect", "--format", "{{json .RepoDigests}}", image]
    try:
        done = subprocess.run(command, capture_output=True, timeout=INSPECT_TIMEOUT, env=env, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or len(done.stdout) > OUTPUT_LIMIT:
        return None
    digest = _digest(done.stdout.decode("utf-8", "replace").strip(), image)
    return {"type": IMAGE, "name": image, "digest": digest} if digest else None


_ANSWER = Bounds(bytes=OUTPUT_LIMIT, depth=2, values=10_000)  # a list of repo digests


def _digest(answer: str, image: str) -> str | None:
    try:
        digests = parse(answer.encode("utf-8"), _ANSWER) if answer else []
    except AnswerError:
        return None
    if not isinstance(digests, list):
        return None
    repository = _repository(image)
    named = [d.rpartition("@")[2] for d in digests if isinstance(d, str) and _repository(d) == repository]
    for candidate in [*named, *(d.rpartition("@")[2] for d in digests if isinstance(d, str))]:
        if DIGEST.fullmatch(candidate):
            return candidate
    return None


def _repository(reference: str) -> str:
    """`reference` without its tag or digest."""
    name = reference.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name
