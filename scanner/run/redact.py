"""Secret values a server is launched with, masked out of everything the server says back.

A server gets secrets (values from outside the repository: variables interpolated from the caller's
environment, policy inputs read from it, files, pass-through variables; and credential-shaped literals)
and can echo them anywhere: its tool descriptions (which are pinned and committed), its stderr (shown
when it fails to boot) or an error message. Every text that came from a server passes through one
`Redactor` before anything is pinned, printed or reported (see `scanner.run.pinning.boot`), so no
reporter has to think about secrets.

Values shorter than MIN_LENGTH are not masked: "1", "true" or "debug" are not credentials, and
masking them would mangle ordinary text.

A server that wants a secret out encodes it first, so each secret is also masked in its common
encodings (see `encodings`): base64 and base64url with and without padding (and inside a longer
base64 text, as `Basic` credentials carry it), hex in either case, percent-encoding, reversed.
"""

from __future__ import annotations

import base64
import dataclasses
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scanner.model.environment import INHERITED
from scanner.model.findings import Finding
from scanner.model.locations import LockLocation
from scanner.model.secret_values import looks_secret

if TYPE_CHECKING:
    from scanner.policy.settings import Policy
    from scanner.run.boot import BootResult
    from scanner.run.faces import SecondListing
    from scanner.snapshot import Snapshot
    from scanner.sources.declarations import Server

MASK = "***"
MIN_LENGTH = 8

class Redactor:
    """Replaces every known secret value by MASK in text and in JSON-like values."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so a secret that contains another is masked whole.
        forms = {form for s in secrets if len(s) >= MIN_LENGTH for form in encodings(s)}
        unique = sorted({f for f in forms if len(f) >= MIN_LENGTH}, key=lambda s: (-len(s), s))
        self._pattern = re.compile("|".join(map(re.escape, unique))) if unique else None

    def text(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(MASK, text)

    def value(self, value: Any) -> Any:
        """A copy of `value` with every string (and object key) masked; `value` itself when nothing is secret."""
        if self._pattern is None:
            return value
        root = [value]
        # Iterative: a hostile server can nest deeper than Python's recursion limit.
        stack: list[tuple[Any, Any]] = [(root, 0)]
        while stack:
            parent, key = stack.pop()
            item = parent[key]
            if isinstance(item, str):
                parent[key] = self.text(item)
            elif isinstance(item, dict):
                parent[key] = copy = {self.text(k) if isinstance(k, str) else k: v for k, v in item.items()}
                stack += [(copy, k) for k in copy]
            elif isinstance(item, list):
                parent[key] = copy = list(item)
                stack += [(copy, i) for i in range(len(copy))]
        return root[0]

    def snapshot(self, snapshot: Snapshot) -> Snapshot:
        return dataclasses.replace(
            snapshot,
            protocol_version=self.value(snapshot.protocol_version),
            server_info=self.value(snapshot.server_info),
            capabilities=self.value(snapshot.capabilities),
            instructions=self.value(snapshot.instructions),
            definitions=self.value(snapshot.definitions),
            notes=self.value(snapshot.notes),
            prompt_bodies=self.value(snapshot.prompt_bodies),
        )

    def finding(self, finding: Finding) -> Finding:
        """A finding about unmasked text (a detector's evidence), with every secret in it masked."""
        if self._pattern is None:
            return finding
        location = finding.location
        return dataclasses.replace(
            finding,
            message=self.text(finding.message),
            details=[self.text(detail) for detail in finding.details],
            subject=None if finding.subject is None else self.text(finding.subject),
            previous_subject=None if finding.previous_subject is None else self.text(finding.previous_subject),
            location=LockLocation(self.text(location.pointer)) if isinstance(location, LockLocation) else location,
        )

    def result(self, result: BootResult) -> BootResult:
        if self._pattern is None:
            return result
        return dataclasses.replace(
            result,
            snapshot=None if result.snapshot is None else self.snapshot(result.snapshot),
            error=None if result.error is None else self.text(result.error),
            stderr_tail=self.text(result.stderr_tail),
            sandbox_notes=[(rule_id, self.text(message)) for rule_id, message in result.sandbox_notes],
            second=None if result.second is None else self.second(result.second),
        )

    def second(self, second: SecondListing) -> SecondListing:
        snapshot = None if second.snapshot is None else self.snapshot(second.snapshot)
        error = None if second.error is None else self.text(second.error)
        return dataclasses.replace(second, snapshot=snapshot, error=error)


def encodings(secret: str) -> set[str]:
    """`secret` and the forms a server would send it in to slip past a plain match."""
    raw = secret.encode("utf-8")
    forms = {secret, secret[::-1], raw.hex(), raw.hex().upper()}
    forms |= {urllib.parse.quote(secret, safe=""), urllib.parse.quote(secret), urllib.parse.quote_plus(secret)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        forms |= {_aligned(encode, raw, offset) for offset in range(3)}
    return forms


def _aligned(encode: Any, raw: bytes, offset: int) -> str:
    """What base64 of `raw` looks like inside a longer text that puts `offset` bytes before it: only the
    characters made of the secret's own bits (e.g. the token in base64("user:token"))."""
    text = encode(b"\0" * offset + raw).decode("ascii").rstrip("=")
    first = -(-offset * 8 // 6)  # characters that hold any bit of the bytes before
    last = (offset + len(raw)) * 8 // 6  # characters that hold no bit of the bytes after
    return text[first:last]


def redactor_for(servers: Sequence[Server], policy: Policy, environ: Mapping[str, str], repo: Path) -> Redactor:
    """One redactor for a run: the secrets of every server booted in it."""
    secrets = {s for server in servers for s in launch_secrets(server, policy, environ)}
    return Redactor(s for s in secrets if not _harmless(s, environ, repo))


def launch_secrets(server: Server, policy: Policy, environ: Mapping[str, str]) -> set[str]:
    """Every value the server is given that may be a secret: what came from outside the repository.

    A default or literal written in the repository is no secret: it is pinned and scanned as written (a
    `${VAR:-text}` default masked would let a change hide its own text). The exception is a literal env or
    header value shaped like a credential (one word, under a secret-sounding name or 16+ letters and
    digits, or the credential of `Bearer X`): config files are often kept out of git for exactly that.
    """
    resolved = server.resolved
    if resolved is None:
        return set()
    # Every pass-through any of its names' entries lists: masking reaches further than what it is given.
    passed = {n for name in (*server.names, *server.policy_names) for n in policy.for_server(name).env}
    values = [*resolved.outside.values(), *(environ[n] for n in sorted(passed) if n in environ)]
    for name, value in {**resolved.env, **resolved.headers}.items():
        words = value.split()
        if len(words) == 1 or (len(words) == 2 and name in resolved.headers):
            values += [words[-1]] if looks_secret(name, words[-1]) else []
    return set(values)


def _harmless(value: str, environ: Mapping[str, str], repo: Path) -> bool:
    """The repository's path (or a parent of it) and what every server inherits anyway are no secrets."""
    if any(environ.get(name) == value for name in INHERITED):
        return True
    root = str(repo.resolve())
    return root == value or root.startswith(value.rstrip("/") + "/")
