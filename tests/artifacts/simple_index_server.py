"""A Python package index on 127.0.0.1 answering its JSON simple API (PEP 691) with PEP 700's `upload-time`:
`GET /simple/<normalised name>/` -> {"meta": {"api-version"}, "name", "files": [{"filename", "url", "hashes",
"upload-time"}], "versions"}; and the JSON API beside it (`GET /pypi/<name>/<version>/json` -> {"info":
{"license_expression"?}, "urls": [{"filename", "packagetype", "upload_time_iso_8601", "digests"}]}), unless
`json_api` is off."""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import loopback_http


@dataclass
class Index:
    url: str = ""  # the index's base URL, …/simple/
    files: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # normalised name -> files
    accepts: list[str] = field(default_factory=list)  # the Accept header of every simple-API request
    json_api: bool = True  # off: the JSON API answers 404, as an index without one does
    served: list[str] = field(default_factory=list)  # every path asked for
    licenses: dict[tuple[str, str], str] = field(default_factory=dict)  # (name, version) -> license_expression

    def upload(self, name: str, version: str, *, wheel: bool = True, sdist: bool = True, days_ago: float = 0,
               license: str | None = None) -> None:
        """Upload a version's files `days_ago`: a wheel, an sdist, or both."""
        if license:
            self.licenses[name, version] = license
        at = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days_ago)
        stem = f"{name.replace('-', '_')}-{version}"
        names = ([f"{stem}-py3-none-any.whl"] if wheel else []) + ([f"{stem}.tar.gz"] if sdist else [])
        for filename in names:
            self.files.setdefault(name, []).append({
                "filename": filename,
                "url": f"{self.url}../files/{filename}",
                "hashes": {"sha256": hashlib.sha256(filename.encode()).hexdigest()},
                "upload-time": at.isoformat(timespec="microseconds").replace("+00:00", "Z"),
            })


def serve(index: Index) -> ThreadingHTTPServer:
    class Handler(loopback_http.Handler):
        def do_GET(self) -> None:
            index.served.append(self.path)
            if self.path.startswith("/pypi/"):
                self.json_api()
                return
            index.accepts.append(self.headers.get("Accept", ""))
            name = self.path.removeprefix("/simple/").strip("/")
            if name not in index.files:
                self.send_error(404)
                return
            versions = sorted({f["filename"].split("-")[1].removesuffix(".tar.gz") for f in index.files[name]})
            body = json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": index.files[name],
                               "versions": versions}).encode()
            self.answer(200, "application/vnd.pypi.simple.v1+json", body)

        def json_api(self) -> None:
            parts = self.path.strip("/").split("/")  # pypi, name, version, json
            name, version = (parts[1], parts[2]) if len(parts) == 4 and parts[3] == "json" else ("", "")
            files = [f for f in index.files.get(name, []) if f"-{version}" in f["filename"]]
            if not index.json_api or not files:
                self.send_error(404)
                return
            info = {"name": name, "version": version, "license_expression": index.licenses.get((name, version))}
            urls = [{"filename": f["filename"], "url": f["url"], "digests": f["hashes"],
                     "packagetype": "bdist_wheel" if f["filename"].endswith(".whl") else "sdist",
                     "upload_time_iso_8601": f["upload-time"]} for f in files]
            body = json.dumps({"info": info, "urls": urls}).encode()
            self.answer(200, "application/json", body)

    server, address = loopback_http.start(Handler)
    index.url = f"{address}/simple/"
    return server
