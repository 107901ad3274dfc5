"""The environment a stdio server is started with: minimal, and the same on every machine."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from scanner.model.environment import IDENTITY, INHERITED, REPRODUCIBLE


def server_environment(
    declared: Mapping[str, str],
    passthrough: Iterable[str] = (),
    caller: Mapping[str, str] | None = None,
    temp_dir: str | None = None,
) -> dict[str, str]:
    """Build the complete environment for one stdio server.

    `declared` is the declaration's own (resolved) env; `passthrough` names extra caller
    variables the repo policy allows this server to see.
    """
    caller = os.environ if caller is None else caller
    env = {name: caller[name] for name in (*IDENTITY, *INHERITED) if name in caller}
    env.setdefault("PATH", os.defpath)
    if temp_dir is not None:
        env["TMPDIR"] = env["TMP"] = env["TEMP"] = temp_dir
    env.update(REPRODUCIBLE)
    # mcp-lock's own variables would tell a server it is being scanned: never passed through.
    env.update({name: caller[name] for name in passthrough if name in caller and not name.startswith("MCP_LOCK_")})
    env.update(declared)
    return env
