"""action/fetch_uv.py: the action's uv comes from the index only as the wheel action/uv.txt pins by sha256
(tests/loopback_pypi.py stands in for the index)."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from loopback_pypi import Index, serve

ROOT = Path(__file__).resolve().parent.parent
FETCH = ROOT / "action" / "fetch_uv.py"
VERSION = "0.13.9"

sys.path.insert(0, str(ROOT / "action"))
import fetch_uv  # noqa: E402


def uv_wheel(says: str) -> bytes:
    """A wheel shaped like uv's: the binary under uv-V.data/scripts/ (here a script printing `says`)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"uv-{VERSION}.data/scripts/uv", f"#!/bin/sh\necho {says}\n")
        archive.writestr(f"uv-{VERSION}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: uv\nVersion: {VERSION}\n")
    return buffer.getvalue()


def this_machine_tag() -> str:
    arch, glibc = fetch_uv.machine_tags()
    return f"manylinux_2_17_{arch}.manylinux2014_{arch}" if glibc else f"musllinux_1_1_{arch}"


def pins(path: Path, *wheels: bytes) -> Path:
    hashes = " \\\n".join(f"    --hash=sha256:{hashlib.sha256(w).hexdigest()}" for w in wheels)
    path.write_text(f"uv=={VERSION} \\\n{hashes}\n", encoding="utf-8")
    return path


def fetch(url: str, pinned: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "UV_DEFAULT_INDEX": url}
    return subprocess.run([sys.executable, FETCH, pinned, dest], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def index(tmp_path: Path) -> Index:
    return Index(tmp_path / "files")


def test_the_pinned_wheel_for_this_machine_is_fetched_and_only_uv_taken(index: Index, tmp_path: Path) -> None:
    right, other_arch, other_libc = uv_wheel("right"), uv_wheel("other-arch"), uv_wheel("other-libc")
    arch, glibc = fetch_uv.machine_tags()
    index._add("uv", f"uv-{VERSION}-py3-none-{this_machine_tag()}.whl", right)
    index._add("uv", f"uv-{VERSION}-py3-none-manylinux_2_17_{'s390x' if arch != 's390x' else 'ppc64le'}.whl",
               other_arch)
    index._add("uv", f"uv-{VERSION}-py3-none-{'musllinux_1_1' if glibc else 'manylinux_2_17'}_{arch}.whl",
               other_libc)
    index._add("uv", "uv-0.13.8-py3-none-" + this_machine_tag() + ".whl", uv_wheel("older"))
    with serve(index) as url:
        done = fetch(url, pins(tmp_path / "uv.txt", right, other_arch, other_libc), tmp_path / "tools")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "tools").iterdir()) == ["uv"]
    ran = subprocess.run([tmp_path / "tools" / "uv"], capture_output=True, text=True, timeout=30)
    assert ran.stdout == "right\n"
    downloaded = [p for p in index.served if p.startswith("/files/")]
    assert downloaded == [f"/files/uv-{VERSION}-py3-none-{this_machine_tag()}.whl"]


def test_a_wheel_whose_sha256_is_not_pinned_is_refused(index: Index, tmp_path: Path) -> None:
    """The index (or a cache or proxy in front of it) serves other bytes under the pinned file's name."""
    honest = uv_wheel("honest")
    index._add("uv", f"uv-{VERSION}-py3-none-{this_machine_tag()}.whl", uv_wheel("replaced"))
    with serve(index) as url:
        done = fetch(url, pins(tmp_path / "uv.txt", honest), tmp_path / "tools")
    assert done.returncode == 1
    assert "is not one" in done.stderr and "refused" in done.stderr
    assert not (tmp_path / "tools" / "uv").exists()


def test_no_wheel_for_this_machine_is_a_clear_failure(index: Index, tmp_path: Path) -> None:
    index._add("uv", f"uv-{VERSION}-py3-none-win_amd64.whl", uv_wheel("windows"))
    with serve(index) as url:
        done = fetch(url, pins(tmp_path / "uv.txt", uv_wheel("windows")), tmp_path / "tools")
    assert done.returncode == 1 and f"no uv {VERSION} wheel" in done.stderr


def test_the_html_page_serves_as_well_as_the_json_one(index: Index, tmp_path: Path) -> None:
    wheel = uv_wheel("html")
    name = f"uv-{VERSION}-py3-none-{this_machine_tag()}.whl"
    index._add("uv", name, wheel)
    body = index.project_html("uv").decode()
    links = fetch_uv.Links()
    links.feed(body)
    assert links.found == [(name, f"/files/{name}#sha256={hashlib.sha256(wheel).hexdigest()}")]


@pytest.mark.parametrize(
    ("filename", "glibc", "needed"),
    [
        ("uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", (2, 35), (2, 17)),
        ("uv-0.13.9-py3-none-manylinux_2_28_x86_64.whl", (2, 17), None),  # needs a newer glibc
        ("uv-0.13.9-py3-none-musllinux_1_1_x86_64.whl", (2, 35), None),
        ("uv-0.13.9-py3-none-musllinux_1_1_x86_64.whl", None, (1, 1)),
        ("uv-0.13.9-py3-none-manylinux_2_17_aarch64.whl", (2, 35), None),
        ("uv-0.13.90-py3-none-manylinux_2_17_x86_64.whl", (2, 35), None),
        ("uv-0.13.9.tar.gz", (2, 35), None),
    ],
)
def test_which_files_fit_this_machine(filename: str, glibc: tuple[int, int] | None, needed: object) -> None:
    assert fetch_uv.fits(filename, VERSION, "x86_64", glibc) == needed


def test_only_the_pinned_versions_files_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    # uv's page lists every release (thousands of files); joining each URL cost more CPU than the page's parse,
    # so only the pinned version's files are made absolute (issue 39 item 4).
    import json

    files = [{"filename": f"uv-{v}-py3-none-manylinux_2_17_x86_64.whl", "url": f"../../f/uv-{v}.whl"}
             for v in ("0.13.9", "0.13.10", "0.13.90", "0.4.0")]
    page = json.dumps({"files": files}).encode()
    monkeypatch.setattr(fetch_uv, "get", lambda url, headers, limit: (page, fetch_uv.JSON_TYPE, url))
    listed = fetch_uv.listed_files("https://index.invalid/simple/", "0.13.9")
    assert listed == [("uv-0.13.9-py3-none-manylinux_2_17_x86_64.whl", "https://index.invalid/f/uv-0.13.9.whl")]


def member_of(wheel: bytes, member: str = f"uv-{VERSION}.data/scripts/uv") -> bytes:
    out = io.BytesIO()
    fetch_uv.write_member(wheel, member, out)  # type: ignore[arg-type]
    return out.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_the_binary_is_inflated_whole_from_either_kind_of_member(method: int) -> None:
    binary = os.urandom(3 << 20) + b"\0" * (2 << 20)  # more than one MiB chunk, some of it compressible
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("first.txt", "x" * 1000)
        archive.writestr(f"uv-{VERSION}.data/scripts/uv", binary)
    assert member_of(buffer.getvalue()) == binary


def test_a_member_bigger_than_its_directory_says_is_refused() -> None:
    """The sizes come from the wheel's central directory; an inflated stream that runs past them is refused."""
    wheel = uv_wheel("x" * 5000)
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        info = archive.getinfo(f"uv-{VERSION}.data/scripts/uv")
    first = wheel.index(b"PK\x01\x02")  # uv_wheel writes the binary first: its central directory entry is first
    smaller = (info.file_size - 10).to_bytes(4, "little")
    forged = wheel[: first + 24] + smaller + wheel[first + 28 :]
    with pytest.raises(fetch_uv.Refused, match=r"size the wheel's directory says|larger than"):
        member_of(forged)


def test_a_member_over_the_binary_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch_uv, "BINARY_LIMIT", 100)
    with pytest.raises(fetch_uv.Refused, match="larger than"):
        member_of(uv_wheel("y" * 500))
