"""Fetch the uv the action installs with: the wheel action/uv.txt pins, by its sha256, with nothing but the standard
library (issue 39 item 4: pip fetching uv cost 2.5 of the install's 5.5 CPU-s on a cache miss).

    python fetch_uv.py PINS DEST      # PINS: action/uv.txt; writes DEST/uv (mode 0755)

The wheel is found on the package index the runner is configured with (UV_DEFAULT_INDEX, UV_INDEX_URL or
PIP_INDEX_URL, else the default index of the interpreter's own pip: no host is named here), in its simple API
(PEP 691 JSON, else PEP 503 HTML). Of the files listed for the pinned version, the one built for this machine
(manylinux for glibc, musllinux for musl, this CPU) is downloaded, and it is used only when its sha256 is one
of the pinned ones: what the index says about it is never trusted. Then only the `uv` binary is taken out of
it. Every answer is bounded (size and time). Exit 1 with one line on stderr on any failure; 3 when no index is
configured and the interpreter has no pip to ask.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html.parser
import io
import json
import os
import platform
import re
import ssl
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile
import zlib

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
PAGE_LIMIT = 32 << 20  # uv's project page lists every release: a few MiB
WHEEL_LIMIT = 128 << 20  # a uv wheel is about 20 MiB
BINARY_LIMIT = 256 << 20
TIMEOUT = 60
INDEX_VARIABLES = ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")
OLD_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


NO_INDEX = 3  # exit code: no index configured and no pip to ask its default (the caller brings a pip)


class Refused(Exception):
    pass


class NoIndex(Refused):
    pass


def pins(path: str) -> tuple[str, set[str]]:
    """The pinned uv version and its sha256 digests, from a `uv==V --hash=sha256:...` requirements file."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    version = re.search(r"^uv==([0-9A-Za-z.+!-]+)", text, re.M)
    digests = set(re.findall(r"--hash=sha256:([0-9a-f]{64})", text))
    if not version or not digests:
        raise Refused(f"{path}: no hashed uv pin")
    return version[1], digests


def index_url() -> str:
    for name in INDEX_VARIABLES:
        value = os.environ.get(name, "").split()
        if value:
            return value[0]
    try:  # the interpreter's pip knows its default index; importing this one module costs about 20 ms
        from pip._internal.models.index import PyPI  # type: ignore[import-not-found]
    except ImportError:
        raise NoIndex("no package index: set UV_DEFAULT_INDEX, or give the interpreter pip") from None
    return str(PyPI.simple_url)


@functools.cache
def context() -> ssl.SSLContext:
    """The platform's certificates (OpenSSL reads SSL_CERT_FILE/SSL_CERT_DIR), or the bundle the runner names."""
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("PIP_CERT")
    return ssl.create_default_context(cafile=bundle or None)


def split_credentials(url: str) -> tuple[str, dict[str, str]]:
    """The URL without user:password, and the Basic authorization header they stand for (the index's only)."""
    parts = urllib.parse.urlsplit(url)
    if not parts.username:
        return url, {}
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    user = urllib.parse.unquote(parts.username)
    password = urllib.parse.unquote(parts.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)), {"Authorization": f"Basic {token}"}


def get(url: str, headers: dict[str, str], limit: int) -> tuple[bytes, str, str]:
    """The body (at most `limit` bytes, gzip undone), its content type and the final URL."""
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise Refused(f"not an http(s) URL: {url[:200]}")
    request = urllib.request.Request(url, headers={"User-Agent": "mcp-lock-action", **headers})
    with urllib.request.urlopen(request, timeout=TIMEOUT, context=context()) as response:
        body = response.read(limit + 1)
        kind = response.headers.get("Content-Type", "")
        encoding = response.headers.get("Content-Encoding", "")
        final = response.geturl()
    if len(body) > limit:
        raise Refused(f"{url[:200]}: answer larger than {limit >> 20} MiB")
    if encoding == "gzip":
        body = zlib.decompressobj(wbits=31).decompress(body, limit + 1)  # gzip's format; one C call, bounded
        if len(body) > limit:
            raise Refused(f"{url[:200]}: answer larger than {limit >> 20} MiB")
    return body, kind, final


class Links(html.parser.HTMLParser):
    """The anchors of a PEP 503 page: (file name, href)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href, self._text = dict(attrs).get("href"), []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.found.append(("".join(self._text).strip(), self._href))
            self._href = None


def listed_files(index: str, version: str) -> list[tuple[str, str]]:
    """(file name, absolute URL) of every file the index lists for uv `version` (of its thousands of files, only
    those are made absolute: joining every release's URLs cost more CPU than parsing the page)."""
    base, auth = split_credentials(index.rstrip("/") + "/uv/")
    headers = {**auth, "Accept": f"{JSON_TYPE}, text/html;q=0.1", "Accept-Encoding": "gzip"}
    body, kind, final = get(base, headers, PAGE_LIMIT)
    if kind.split(";")[0].strip() == JSON_TYPE:
        files = json.loads(body).get("files", [])
        pairs = [(str(f.get("filename", "")), str(f.get("url", ""))) for f in files if isinstance(f, dict)]
    else:
        parser = Links()
        parser.feed(body.decode("utf-8", "replace"))
        pairs = parser.found
    prefix = f"uv-{version}-"
    return [(name, urllib.parse.urldefrag(urllib.parse.urljoin(final, href))[0]) for name, href in pairs
            if name.startswith(prefix)]


def machine_tags() -> tuple[str, tuple[int, int] | None]:
    """This CPU as wheel tags name it, and glibc's version (None on musl)."""
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine())
    try:
        found = re.match(r"glibc (\d+)\.(\d+)", os.confstr("CS_GNU_LIBC_VERSION") or "")
    except (ValueError, OSError):
        found = None
    return arch, (int(found[1]), int(found[2])) if found else None


def fits(filename: str, version: str, arch: str, glibc: tuple[int, int] | None) -> tuple[int, int] | None:
    """How new a libc the wheel `filename` needs, when it is uv `version` built for this machine; else None."""
    match = re.fullmatch(rf"uv-{re.escape(version)}-py3-none-([A-Za-z0-9_.]+)\.whl", filename)
    if not match:
        return None
    best = None
    for tag in match[1].split("."):
        if not tag.endswith("_" + arch):
            continue
        family = tag[: -len(arch) - 1]
        if glibc is None:
            needed = re.fullmatch(r"musllinux_(\d+)_(\d+)", family)
            wanted = (int(needed[1]), int(needed[2])) if needed else None
        else:
            needed = re.fullmatch(r"manylinux_(\d+)_(\d+)", family)
            wanted = (int(needed[1]), int(needed[2])) if needed else OLD_MANYLINUX.get(family)
            if wanted is not None and wanted > glibc:
                wanted = None
        if wanted is not None and (best is None or wanted > best):
            best = wanted
    return best


def write_member(wheel: bytes, member: str, out: io.BufferedWriter) -> None:
    """Inflate `member` of the (already verified) wheel into `out`, a MiB at a time. zipfile's own reader cost a
    third more CPU on uv's 38 MB binary (its CRC and its chunks joined in memory); the CRC adds nothing once the
    whole wheel's sha256 is a pinned one. Sizes are still checked against the central directory."""
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        info = archive.getinfo(member)
    if info.file_size > BINARY_LIMIT:
        raise Refused(f"{member} is larger than {BINARY_LIMIT >> 20} MiB")
    header = wheel[info.header_offset : info.header_offset + 30]
    if len(header) < 30 or header[:4] != b"PK\x03\x04" or info.compress_type not in (zipfile.ZIP_STORED,
                                                                                     zipfile.ZIP_DEFLATED):
        raise Refused(f"{member}: not a stored or deflated zip member")
    name_length, extra_length = int.from_bytes(header[26:28], "little"), int.from_bytes(header[28:30], "little")
    start = info.header_offset + 30 + name_length + extra_length
    packed = memoryview(wheel)[start : start + info.compress_size]
    inflate = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    written = 0
    for at in range(0, len(packed), 1 << 20):
        chunk = packed[at : at + (1 << 20)]
        piece = inflate.decompress(chunk, BINARY_LIMIT + 1 - written) if inflate else bytes(chunk)
        written += out.write(piece)
        if written > info.file_size or (inflate and inflate.unconsumed_tail):
            raise Refused(f"{member}: larger than the wheel's directory says")
    if inflate:
        written += out.write(inflate.flush())
    if written != info.file_size or len(packed) != info.compress_size or (inflate and not inflate.eof):
        raise Refused(f"{member}: truncated or not the size the wheel's directory says")


def fetch(pins_path: str, dest: str) -> str:
    version, digests = pins(pins_path)
    if sys.platform != "linux":
        raise Refused("the action runs on Linux only")
    arch, glibc = machine_tags()
    candidates = []
    for name, url in listed_files(index_url(), version):
        needed = fits(name, version, arch, glibc)
        if needed is not None:
            candidates.append((needed, name, url))
    if not candidates:
        raise Refused(f"the index lists no uv {version} wheel for {arch} ({'glibc' if glibc else 'musl'})")
    _, name, url = max(candidates)
    data, _, _ = get(url, {}, WHEEL_LIMIT)
    digest = hashlib.sha256(data).hexdigest()
    if digest not in digests:
        raise Refused(f"{name}: sha256 {digest} is not one {pins_path} pins: refused")
    os.makedirs(dest, mode=0o700, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=dest, prefix=".uv.")
    try:
        with os.fdopen(fd, "wb") as handle:
            write_member(data, f"uv-{version}.data/scripts/uv", handle)
        os.chmod(temporary, 0o755)
        os.replace(temporary, os.path.join(dest, "uv"))
    except BaseException:
        os.unlink(temporary)
        raise
    return os.path.join(dest, "uv")


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: fetch_uv.py PINS DEST", file=sys.stderr)
        return 2
    try:
        fetch(argv[1], argv[2])
    except NoIndex as error:
        print(f"mcp-lock: {error}", file=sys.stderr)
        return NO_INDEX
    except (Refused, OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        print(f"mcp-lock: cannot fetch the pinned uv: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
