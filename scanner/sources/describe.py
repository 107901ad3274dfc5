"""One printable line per launch, with anything that looks like a secret masked."""

from __future__ import annotations

import re
import shlex
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from scanner.model.transports import is_local
from scanner.sources.declarations import LaunchTemplate

SECRET_NAME = re.compile(r"token|secret|passw|api[-_]?key|auth|credential|private[-_]?key|bearer", re.I)
SECRET_VALUE = re.compile(r"^(sk-|ghp_|gho_|github_pat_|xox[abp]-|AKIA|AIza|glpat-)[A-Za-z0-9_\-]{6,}")
MASK = "****"


def describe_launch(template: LaunchTemplate) -> str:
    if is_local(template.transport):
        words = [template.command or "", *mask_args(template.args)]
        line = " ".join(shlex.quote(w) for w in words)
        if template.env_names:
            line += f"  (env: {', '.join(sorted(template.env_names))})"
        return line
    line = f"{template.transport} {mask_url(template.url or '')}"
    if template.header_names:
        line += f"  (headers: {', '.join(sorted(template.header_names))})"
    return line


def mask_args(args: tuple[str, ...]) -> list[str]:
    masked: list[str] = []
    secret_next = False
    for arg in args:
        if secret_next and not arg.startswith("-"):
            masked.append(MASK)
        elif "=" in arg and arg.startswith("-") and SECRET_NAME.search(arg.split("=", 1)[0]):
            masked.append(arg.split("=", 1)[0] + "=" + MASK)
        elif SECRET_VALUE.match(arg):
            masked.append(MASK)
        else:
            masked.append(arg)
        secret_next = arg.startswith("-") and "=" not in arg and bool(SECRET_NAME.search(arg))
    return masked


def mask_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(f":{parts.password}@", f":{MASK}@")
    query = urlencode(
        [(k, MASK if SECRET_NAME.search(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
        safe="${}:",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
