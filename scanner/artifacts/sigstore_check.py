"""A Sigstore bundle verified offline, and the build identity its certificate carries.

Verification is sigstore-python's (`sigstore.verify.Verifier.verify_dsse`): the certificate chains to a Fulcio
CA of the trust root at the moment the transparency log recorded the entry, the log's inclusion proof and
checkpoint are signed by a log key of the trust root, and the DSSE signature is the certificate's. Nothing is
fetched: the trust root is the one the installed sigstore library embeds (the production root its release
shipped), or a file the user names in `MCP_LOCK_SIGSTORE_TRUSTED_ROOT` (a `trusted_root.json` taken from the
Sigstore TUF repository by whatever means the user trusts), so a check without network verifies the same.

sigstore costs about a second to import: it is imported only when a package version has attestations, so a run
without any pays nothing. Which identity a release should carry is not known in advance: the identity is read
from the verified certificate and recorded, and the screen compares it with the one recorded for the version it
replaces (trust on first pin, then every change is a finding).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

TRUST_ROOT_VARIABLE = "MCP_LOCK_SIGSTORE_TRUSTED_ROOT"
MAX_TRUST_ROOT = 1024 * 1024  # bytes of a trusted_root.json (the production one is under 10 KB)
# Where sigstore-python keeps the production trust root it ships (its TUF bootstrap for the production instance).
EMBEDDED = ("_store", "https%3A%2F%2Ftuf-repo-cdn.sigstore.dev", "trusted_root.json")
IN_TOTO = "application/vnd.in-toto+json"

# Fulcio's certificate extensions (github.com/sigstore/fulcio docs/oid-info.md): DER UTF8String values.
ISSUER = "1.3.6.1.4.1.57264.1.8"
ISSUER_V1 = "1.3.6.1.4.1.57264.1.1"  # the same, as raw bytes (older certificates)
SOURCE_REPOSITORY = "1.3.6.1.4.1.57264.1.12"
SOURCE_DIGEST = "1.3.6.1.4.1.57264.1.13"
SOURCE_REF = "1.3.6.1.4.1.57264.1.14"
BUILD_CONFIG = "1.3.6.1.4.1.57264.1.18"  # the workflow that ran: <repository>/<path>@<ref>
SUBJECT_ALT_NAME = "2.5.29.17"
MAX_FIELD = 512  # characters of one recorded identity field


class TrustRootError(Exception):
    """The trust root cannot be used (unreadable, malformed, expired); the message says why, in one line."""


class BundleError(Exception):
    """The bundle does not verify; the message says why, in one line."""


@dataclass(frozen=True)
class TrustRoot:
    raw: bytes
    source: str  # what a message names: the library's embedded root, or the user's file

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.raw).hexdigest()


@dataclass(frozen=True)
class Identity:
    """Who built a release, as its verified certificate says (the lock's `provenance` record)."""

    issuer: str | None
    repository: str | None  # https://github.com/owner/repo
    workflow: str | None  # .github/workflows/publish.yml (the build config, without repository and ref)
    ref: str | None  # refs/tags/v1.2.3
    commit: str | None
    signer: str | None  # the certificate's subject when it names no repository (a person's e-mail)

    def record(self) -> dict[str, str]:
        fields = {"repository": self.repository, "workflow": self.workflow, "ref": self.ref,
                  "commit": self.commit, "issuer": self.issuer, "signer": self.signer}
        return {key: value for key, value in fields.items() if value}


def load_trust_root(environ: Mapping[str, str]) -> TrustRoot:
    """The user's trust root file when `MCP_LOCK_SIGSTORE_TRUSTED_ROOT` names one, else the embedded one."""
    named = environ.get(TRUST_ROOT_VARIABLE)
    if named:
        try:
            with open(named, "rb") as handle:
                raw = handle.read(MAX_TRUST_ROOT + 1)
        except OSError as error:
            raise TrustRootError(f"the trust root {named} ({TRUST_ROOT_VARIABLE}) cannot be read: "
                                 f"{error.strerror or error}") from None
        if len(raw) > MAX_TRUST_ROOT:
            raise TrustRootError(f"the trust root {named} is larger than {MAX_TRUST_ROOT >> 10} KiB")
        return TrustRoot(raw, f"{named} ({TRUST_ROOT_VARIABLE})")
    try:
        embedded = resources.files("sigstore").joinpath(*EMBEDDED)
        return TrustRoot(embedded.read_bytes(), f"the production trust root of sigstore {_version()}")
    except (ModuleNotFoundError, OSError) as error:
        raise TrustRootError(f"the sigstore library's trust root cannot be read: {error}") from None


def check_trust_root(root: TrustRoot, now: datetime.datetime) -> None:
    """TrustRootError unless `root` is a trusted root document with a Fulcio CA and a log key valid `now`: a root
    whose every CA or log key has ended can verify no release published today, so it is refused, never used."""
    try:
        document = json.loads(root.raw)
    except ValueError:
        raise TrustRootError(f"{root.source} is not JSON") from None
    if not isinstance(document, dict) or not str(document.get("mediaType", "")).startswith(
        "application/vnd.dev.sigstore.trustedroot"
    ):
        raise TrustRootError(f"{root.source} is not a Sigstore trusted root (mediaType)")
    for member, what in (("certificateAuthorities", "certificate authority"), ("tlogs", "transparency log key")):
        ends = [_valid_for(entry, now) for entry in document.get(member) or [] if isinstance(entry, dict)]
        if not ends:
            raise TrustRootError(f"{root.source} has no {what}")
        if not any(end is None for end in ends):
            last = max(end for end in ends if end is not None)
            raise TrustRootError(f"{root.source} expired: its last {what} ended {last:%Y-%m-%d}")


def _valid_for(entry: Mapping[str, Any], now: datetime.datetime) -> datetime.datetime | None:
    """None when `entry` is valid `now`; else the moment it ended (or the far past, when it never started)."""
    window = entry.get("validFor") if isinstance(entry.get("validFor"), dict) else {}
    if not window and isinstance(entry.get("publicKey"), dict):
        window = entry["publicKey"].get("validFor") or {}
    start, end = _moment(window.get("start")), _moment(window.get("end"))
    if start is not None and start > now:
        return datetime.datetime.min.replace(tzinfo=datetime.UTC)
    if end is not None and end < now:
        return end
    return None


def _moment(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def verify(bundle: Mapping[str, Any], root: TrustRoot) -> tuple[dict[str, Any], Identity]:
    """The in-toto statement `bundle` signs and the identity of its certificate, once the bundle verifies
    against `root`; BundleError when it does not (a bad signature, chain, log entry or a malformed bundle)."""
    from sigstore.errors import Error as SigstoreError  # imported here: only a release with attestations pays
    from sigstore.models import Bundle, InvalidBundle

    verifier, policy = _verifier(root.raw, root.source)
    try:
        parsed = Bundle.from_json(json.dumps(bundle))
    except (InvalidBundle, ValueError) as error:
        raise BundleError(f"the bundle is malformed: {_line(error)}") from None
    try:
        payload_type, payload = verifier.verify_dsse(parsed, policy)
    except (SigstoreError, ValueError) as error:
        raise BundleError(f"the bundle does not verify: {_line(error)}") from None
    if payload_type != IN_TOTO:
        raise BundleError(f"the bundle signs {payload_type[:80]!r}, not an in-toto statement")
    try:
        statement = json.loads(payload)
    except ValueError:
        raise BundleError("the signed statement is not JSON") from None
    if not isinstance(statement, dict):
        raise BundleError("the signed statement is not an object")
    return statement, identity_of(parsed.signing_certificate)


@functools.lru_cache(maxsize=4)
def _verifier(raw: bytes, source: str) -> tuple[Any, Any]:
    """sigstore's verifier over the trust root `raw` (parsed once per run), and a policy that accepts any
    identity: which identity is right is judged against the lock, after verification."""
    from sigstore.models import TrustedRoot
    from sigstore.verify import Verifier
    from sigstore.verify.policy import VerificationPolicy

    class Recorded(VerificationPolicy):
        def verify(self, cert: Any) -> None:
            return None

    with tempfile.TemporaryDirectory(prefix="mcp-lock-trust-") as folder:
        path = Path(folder, "trusted_root.json")
        path.write_bytes(raw)
        try:
            trusted = TrustedRoot.from_file(str(path))
        except Exception as error:  # any failure to read the root is the root's, never the bundle's
            raise TrustRootError(f"{source} cannot be read as a trusted root: {_line(error)}") from None
    return Verifier(trusted_root=trusted), Recorded()


def identity_of(certificate: Any) -> Identity:
    """The build identity a Fulcio certificate (a `cryptography` certificate) carries."""
    values: dict[str, str] = {}
    subject: str | None = None
    for extension in certificate.extensions:
        oid = extension.oid.dotted_string
        if oid == SUBJECT_ALT_NAME:
            names = [str(name.value) for name in extension.value]
            subject = names[0] if names else None
        elif oid in (ISSUER, SOURCE_REPOSITORY, SOURCE_DIGEST, SOURCE_REF, BUILD_CONFIG):
            values[oid] = _utf8(extension.value.value)
        elif oid == ISSUER_V1:
            values.setdefault(ISSUER, extension.value.value.decode("utf-8", "replace"))
    repository = values.get(SOURCE_REPOSITORY)
    return Identity(
        issuer=_short(values.get(ISSUER)),
        repository=_short(repository),
        workflow=_short(_workflow(values.get(BUILD_CONFIG), repository)),
        ref=_short(values.get(SOURCE_REF)),
        commit=_short(values.get(SOURCE_DIGEST)),
        signer=None if repository else _short(subject),
    )


def _workflow(config: str | None, repository: str | None) -> str | None:
    """`.github/workflows/publish.yml` from `https://github.com/o/r/.github/workflows/publish.yml@refs/tags/v1`."""
    if not config:
        return None
    path = config.rsplit("@", 1)[0]
    if repository and path.startswith(repository.rstrip("/") + "/"):
        return path[len(repository.rstrip("/")) + 1 :]
    return path


def _utf8(der: bytes) -> str:
    """A DER UTF8String's text (tag 0x0c, then a short or long length); undecodable bytes as replacement."""
    if len(der) < 2 or der[0] != 0x0C:
        return der.decode("utf-8", "replace")
    length, offset = der[1], 2
    if length & 0x80:
        count = length & 0x7F
        length, offset = int.from_bytes(der[2 : 2 + count], "big"), 2 + count
    return der[offset : offset + length].decode("utf-8", "replace")


def _short(value: str | None) -> str | None:
    if value is None:
        return None
    printable = "".join(c for c in value if c.isprintable())
    return printable[:MAX_FIELD] or None


def _line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sigstore")
    except PackageNotFoundError:
        return "(unknown version)"
